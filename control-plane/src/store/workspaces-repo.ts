// Workspaces: the owner of every endpoint, alert method, incident, API key, plan and
// subscription. A workspace's id is the `users.id` of its account row (kind 'workspace'), or of the
// person whose personal workspace it is: that id is the `user_id` its data carries (migration 20).
// Kysely, so the same code runs on SQLite and on Postgres (workspaces-repo.test.ts runs it on both).
import type { Kysely } from 'kysely';
import { randomToken } from '../lib/crypto';
import type { Schema } from './sql/schema';

export const ROLES = ['owner', 'admin', 'editor', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

export interface WorkspaceRow { id: number; name: string; personal: number; created_at: string }
export interface MemberRow { user_id: number; username: string; email: string; role: Role; created_at: string }
export interface InvitationRow {
  id: number; workspace_id: number; email: string; role: Role; token_hash: string; invited_by: number | null;
  created_at: number; expires_at: number; accepted_at: number | null;
}
export interface AuditRow {
  id: number; at: number; member_id: number | null; member_name: string; action: string; target_id: string | null; summary: string; client_address: string;
}

export interface AuditEntry {
  workspaceId: number; at: number; memberId: number | null; memberName: string; action: string; targetId: string | null; summary: string; clientAddress: string;
}

export interface AdminWorkspaceRow {
  id: number; name: string; personal: number; package_name: string; account_email: string; created_at: string;
  members: number; endpoints: number; owner_email: string | null;
}

export function createWorkspacesRepo(db: Kysely<Schema>) {
  const roleOf = async (q: Kysely<Schema>, workspaceId: number, userId: number): Promise<Role | undefined> =>
    (await q.selectFrom('workspace_members').select('role').where('workspace_id', '=', workspaceId).where('user_id', '=', userId).executeTakeFirst())?.role;
  const insertMember = async (q: Kysely<Schema>, workspaceId: number, userId: number, role: Role): Promise<void> => {
    await q.insertInto('workspace_members').values({ workspace_id: workspaceId, user_id: userId, role }).execute();
  };
  const dropInvitationsBy = async (q: Kysely<Schema>, workspaceId: number, userId: number): Promise<number> =>
    Number((await q.deleteFrom('workspace_invitations')
      .where('workspace_id', '=', workspaceId).where('invited_by', '=', userId).where('accepted_at', 'is', null)
      .executeTakeFirst()).numDeletedRows);
  const count = (n: { n: number | string | bigint } | undefined) => Number(n?.n ?? 0);

  /** Audit filters: member and action (an action ending in '.' or a bare resource matches its family).
   *  The family is a prefix compared with substr, not LIKE: LIKE's case rules differ between the databases. */
  function auditQuery(workspaceId: number, f: { memberId?: number; action?: string }) {
    let q = db.selectFrom('audit_log').where('workspace_id', '=', workspaceId);
    if (f.memberId !== undefined) q = q.where('member_id', '=', f.memberId);
    if (f.action) {
      const action = f.action;
      const family = action.endsWith('.') ? action : `${action}.`;
      q = q.where((eb) => eb.or([
        eb('action', '=', action),
        eb(eb.fn<string>('substr', ['action', eb.val(1), eb.val(family.length)]), '=', family),
      ]));
    }
    return q;
  }

  return {
    forUser: (userId: number): Promise<Array<WorkspaceRow & { role: Role }>> =>
      db.selectFrom('workspace_members as m').innerJoin('workspaces as w', 'w.id', 'm.workspace_id')
        .select(['w.id', 'w.name', 'w.personal', 'w.created_at', 'm.role'])
        .where('m.user_id', '=', userId)
        .orderBy('w.personal', 'desc').orderBy('w.id')
        .execute(),
    get: (id: number): Promise<WorkspaceRow | undefined> => db.selectFrom('workspaces').selectAll().where('id', '=', id).executeTakeFirst(),
    role: (workspaceId: number, userId: number) => roleOf(db, workspaceId, userId),
    /** A new workspace: its account row (on `packageId`), the workspace, its creator as owner. */
    create: (name: string, creatorId: number, packageId: number): Promise<number> =>
      db.transaction().execute(async (trx) => {
        const handle = `ws-${randomToken(9).toLowerCase().replace(/[^a-z0-9]/g, 'x')}`;
        const account = await trx.insertInto('users')
          .values({ username: handle, email: `${handle}@workspaces.invalid`, password_hash: '!', package_id: packageId, email_verified: 1, kind: 'workspace' })
          .returning('id')
          .executeTakeFirstOrThrow();
        const id = Number(account.id);
        await trx.insertInto('workspaces').values({ id, name, personal: 0 }).execute();
        await insertMember(trx, id, creatorId, 'owner');
        return id;
      }),
    rename: async (id: number, name: string): Promise<void> => {
      await db.updateTable('workspaces').set({ name }).where('id', '=', id).execute();
    },
    /** Workspaces besides their personal one that the person owns. */
    ownedCount: async (userId: number): Promise<number> =>
      count(await db.selectFrom('workspace_members as m').innerJoin('workspaces as w', 'w.id', 'm.workspace_id')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('m.user_id', '=', userId).where('m.role', '=', 'owner').where('w.personal', '=', 0)
        .executeTakeFirst()),
    /** Deletes a (non-personal) workspace's account and, by cascade, everything it owns. */
    delete: async (id: number): Promise<boolean> =>
      Number((await db.deleteFrom('users').where('id', '=', id).where('kind', '=', 'workspace').executeTakeFirst()).numDeletedRows) === 1,
    endpointIds: async (id: number): Promise<number[]> =>
      (await db.selectFrom('endpoints').select('url_id').where('user_id', '=', id).orderBy('url_id').execute()).map((r) => r.url_id),
    members: (id: number): Promise<MemberRow[]> =>
      db.selectFrom('workspace_members as m').innerJoin('users as u', 'u.id', 'm.user_id')
        .select(['m.user_id', 'u.username', 'u.email', 'm.role', 'm.created_at'])
        .where('m.workspace_id', '=', id)
        .orderBy('m.created_at').orderBy('m.user_id')
        .execute(),
    memberCount: async (id: number): Promise<number> =>
      count(await db.selectFrom('workspace_members').select((eb) => eb.fn.countAll().as('n')).where('workspace_id', '=', id).executeTakeFirst()),
    ownerCount: async (id: number): Promise<number> =>
      count(await db.selectFrom('workspace_members').select((eb) => eb.fn.countAll().as('n'))
        .where('workspace_id', '=', id).where('role', '=', 'owner').executeTakeFirst()),
    addMember: (workspaceId: number, userId: number, role: Role) => insertMember(db, workspaceId, userId, role),
    setRole: async (workspaceId: number, userId: number, role: Role): Promise<boolean> =>
      Number((await db.updateTable('workspace_members').set({ role })
        .where('workspace_id', '=', workspaceId).where('user_id', '=', userId)
        .executeTakeFirst()).numUpdatedRows) === 1,
    /** Removes a member, the API keys they made for this workspace and the invitations they sent that are still pending. */
    removeMember: (workspaceId: number, userId: number): Promise<boolean> =>
      db.transaction().execute(async (trx) => {
        await trx.deleteFrom('api_keys').where('user_id', '=', workspaceId).where('created_by', '=', userId).execute();
        await dropInvitationsBy(trx, workspaceId, userId);
        const removed = await trx.deleteFrom('workspace_members').where('workspace_id', '=', workspaceId).where('user_id', '=', userId).executeTakeFirst();
        return Number(removed.numDeletedRows) === 1;
      }),
    insertInvitation: async (workspaceId: number, email: string, role: Role, tokenHash: string, invitedBy: number, at: number, expiresAt: number): Promise<number> =>
      Number((await db.insertInto('workspace_invitations')
        .values({ workspace_id: workspaceId, email, role, token_hash: tokenHash, invited_by: invitedBy, created_at: at, expires_at: expiresAt, accepted_at: null, accepted_by: null })
        .returning('id')
        .executeTakeFirstOrThrow()).id),
    pendingInvitations: (workspaceId: number, at: number): Promise<InvitationRow[]> =>
      db.selectFrom('workspace_invitations')
        .select(['id', 'workspace_id', 'email', 'role', 'token_hash', 'invited_by', 'created_at', 'expires_at', 'accepted_at'])
        .where('workspace_id', '=', workspaceId).where('accepted_at', 'is', null).where('expires_at', '>', at)
        .orderBy('id')
        .execute(),
    pendingCount: async (workspaceId: number, at: number): Promise<number> =>
      count(await db.selectFrom('workspace_invitations').select((eb) => eb.fn.countAll().as('n'))
        .where('workspace_id', '=', workspaceId).where('accepted_at', 'is', null).where('expires_at', '>', at)
        .executeTakeFirst()),
    invitationByHash: (tokenHash: string): Promise<InvitationRow | undefined> =>
      db.selectFrom('workspace_invitations')
        .select(['id', 'workspace_id', 'email', 'role', 'token_hash', 'invited_by', 'created_at', 'expires_at', 'accepted_at'])
        .where('token_hash', '=', tokenHash)
        .executeTakeFirst(),
    deleteInvitation: async (workspaceId: number, id: number): Promise<boolean> =>
      Number((await db.deleteFrom('workspace_invitations')
        .where('workspace_id', '=', workspaceId).where('id', '=', id).where('accepted_at', 'is', null)
        .executeTakeFirst()).numDeletedRows) === 1,
    /** Revokes the pending invitations one member sent (they no longer may invite). */
    dropInvitationsBy: (workspaceId: number, userId: number) => dropInvitationsBy(db, workspaceId, userId),
    /** Uses an invitation once (false when used or expired) and adds the member, in one transaction.
     *  The conditional UPDATE is the compare-and-set: of two processes accepting one link, one wins. */
    acceptInvitation: (inv: InvitationRow, userId: number, at: number): Promise<boolean> =>
      db.transaction().execute(async (trx) => {
        const used = await trx.updateTable('workspace_invitations').set({ accepted_at: at, accepted_by: userId })
          .where('id', '=', inv.id).where('accepted_at', 'is', null).where('expires_at', '>', at)
          .executeTakeFirst();
        if (Number(used.numUpdatedRows) !== 1) return false;
        if ((await roleOf(trx, inv.workspace_id, userId)) === undefined) await insertMember(trx, inv.workspace_id, userId, inv.role);
        return true;
      }),
    insertAudit: async (e: AuditEntry): Promise<void> => {
      await db.insertInto('audit_log').values({
        workspace_id: e.workspaceId, at: e.at, member_id: e.memberId, member_name: e.memberName, action: e.action, target_id: e.targetId,
        summary: e.summary, client_address: e.clientAddress,
      }).execute();
    },
    purgeAudit: async (before: number): Promise<number> =>
      Number((await db.deleteFrom('audit_log').where('at', '<', before).executeTakeFirst()).numDeletedRows),
    async auditPage(workspaceId: number, f: { memberId?: number; action?: string; limit: number; offset: number }): Promise<{ total: number; items: AuditRow[] }> {
      const total = count(await auditQuery(workspaceId, f).select((eb) => eb.fn.countAll().as('n')).executeTakeFirst());
      const items = await auditQuery(workspaceId, f)
        .select(['id', 'at', 'member_id', 'member_name', 'action', 'target_id', 'summary', 'client_address'])
        .orderBy('id', 'desc').limit(f.limit).offset(f.offset)
        .execute();
      return { total, items };
    },
    // account_email: the address `upfleet user set-package` takes to move the workspace's plan.
    adminList: async (): Promise<AdminWorkspaceRow[]> => {
      const rows = await db.selectFrom('workspaces as w')
        .innerJoin('users as u', 'u.id', 'w.id')
        .innerJoin('packages as p', 'p.package_id', 'u.package_id')
        .select(['w.id', 'w.name', 'w.personal', 'p.package_name', 'u.email as account_email', 'w.created_at'])
        .select((eb) => [
          eb.selectFrom('workspace_members as m').select(eb.fn.countAll().as('n')).whereRef('m.workspace_id', '=', 'w.id').as('members'),
          eb.selectFrom('endpoints as e').select(eb.fn.countAll().as('n')).whereRef('e.user_id', '=', 'w.id').as('endpoints'),
          eb.selectFrom('workspace_members as m2').innerJoin('users as u2', 'u2.id', 'm2.user_id').select('u2.email')
            .whereRef('m2.workspace_id', '=', 'w.id').where('m2.role', '=', 'owner')
            .orderBy('m2.created_at').orderBy('m2.user_id').limit(1)
            .as('owner_email'),
        ])
        .orderBy('w.id')
        .execute();
      return rows.map((r) => ({ ...r, members: Number(r.members ?? 0), endpoints: Number(r.endpoints ?? 0), owner_email: r.owner_email ?? null }));
    },
  };
}
export type WorkspacesRepo = ReturnType<typeof createWorkspacesRepo>;
