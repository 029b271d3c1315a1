// Workspaces: the owner of every endpoint, alert method, incident, API key, plan and
// subscription. A workspace's id is the `users.id` of its account row (kind 'workspace'), or of the
// person whose personal workspace it is: that id is the `user_id` its data carries (migration 20).
import type { Db } from './db';
import { randomToken } from '../lib/crypto';

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

export function createWorkspacesRepo(db: Db) {
  const q = {
    forUser: db.prepare(`SELECT w.id, w.name, w.personal, w.created_at, m.role FROM workspace_members m
      JOIN workspaces w ON w.id = m.workspace_id WHERE m.user_id = ? ORDER BY w.personal DESC, w.id`),
    get: db.prepare('SELECT * FROM workspaces WHERE id = ?'),
    role: db.prepare('SELECT role FROM workspace_members WHERE workspace_id = ? AND user_id = ?').pluck(),
    insertAccount: db.prepare(`INSERT INTO users (username, email, password_hash, package_id, email_verified, kind) VALUES (?, ?, '!', ?, 1, 'workspace')`),
    insertWorkspace: db.prepare('INSERT INTO workspaces (id, name, personal) VALUES (?, ?, 0)'),
    insertMember: db.prepare('INSERT INTO workspace_members (workspace_id, user_id, role) VALUES (?, ?, ?)'),
    rename: db.prepare('UPDATE workspaces SET name = ? WHERE id = ?'),
    ownedCount: db.prepare(`SELECT COUNT(*) FROM workspace_members m JOIN workspaces w ON w.id = m.workspace_id
      WHERE m.user_id = ? AND m.role = 'owner' AND w.personal = 0`).pluck(),
    deleteAccount: db.prepare("DELETE FROM users WHERE id = ? AND kind = 'workspace'"),
    members: db.prepare(`SELECT m.user_id, u.username, u.email, m.role, m.created_at FROM workspace_members m
      JOIN users u ON u.id = m.user_id WHERE m.workspace_id = ? ORDER BY m.created_at, m.user_id`),
    memberCount: db.prepare('SELECT COUNT(*) FROM workspace_members WHERE workspace_id = ?').pluck(),
    ownerCount: db.prepare("SELECT COUNT(*) FROM workspace_members WHERE workspace_id = ? AND role = 'owner'").pluck(),
    setRole: db.prepare('UPDATE workspace_members SET role = ? WHERE workspace_id = ? AND user_id = ?'),
    removeMember: db.prepare('DELETE FROM workspace_members WHERE workspace_id = ? AND user_id = ?'),
    dropMemberKeys: db.prepare('DELETE FROM api_keys WHERE user_id = ? AND created_by = ?'),
    endpointIds: db.prepare('SELECT url_id FROM endpoints WHERE user_id = ?').pluck(),
    insertInvitation: db.prepare(`INSERT INTO workspace_invitations (workspace_id, email, role, token_hash, invited_by, created_at, expires_at)
      VALUES (?, ?, ?, ?, ?, ?, ?)`),
    pendingInvitations: db.prepare(`SELECT * FROM workspace_invitations WHERE workspace_id = ? AND accepted_at IS NULL AND expires_at > ? ORDER BY id`),
    pendingCount: db.prepare('SELECT COUNT(*) FROM workspace_invitations WHERE workspace_id = ? AND accepted_at IS NULL AND expires_at > ?').pluck(),
    invitationByHash: db.prepare('SELECT * FROM workspace_invitations WHERE token_hash = ?'),
    deleteInvitation: db.prepare('DELETE FROM workspace_invitations WHERE workspace_id = ? AND id = ? AND accepted_at IS NULL'),
    dropInvitationsBy: db.prepare('DELETE FROM workspace_invitations WHERE workspace_id = ? AND invited_by = ? AND accepted_at IS NULL'),
    acceptInvitation: db.prepare('UPDATE workspace_invitations SET accepted_at = ?, accepted_by = ? WHERE id = ? AND accepted_at IS NULL AND expires_at > ?'),
    insertAudit: db.prepare(`INSERT INTO audit_log (workspace_id, at, member_id, member_name, action, target_id, summary, client_address)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?)`),
    purgeAudit: db.prepare('DELETE FROM audit_log WHERE at < ?'),
    // account_email: the address `upfleet user set-package` takes to move the workspace's plan.
    adminList: db.prepare(`SELECT w.id, w.name, w.personal, p.package_name, u.email AS account_email, w.created_at,
        (SELECT COUNT(*) FROM workspace_members m WHERE m.workspace_id = w.id) AS members,
        (SELECT COUNT(*) FROM endpoints e WHERE e.user_id = w.id) AS endpoints,
        (SELECT u2.email FROM workspace_members m2 JOIN users u2 ON u2.id = m2.user_id WHERE m2.workspace_id = w.id AND m2.role = 'owner' ORDER BY m2.created_at LIMIT 1) AS owner_email
      FROM workspaces w JOIN users u ON u.id = w.id JOIN packages p ON p.package_id = u.package_id ORDER BY w.id`),
  };

  /** Audit filters: member and action (an action ending in '.' or a bare resource matches its family). */
  function auditWhere(workspaceId: number, f: { memberId?: number; action?: string }) {
    const where = ['workspace_id = ?'];
    const args: unknown[] = [workspaceId];
    if (f.memberId !== undefined) {
      where.push('member_id = ?');
      args.push(f.memberId);
    }
    if (f.action) {
      where.push('(action = ? OR action LIKE ?)');
      args.push(f.action, `${f.action.replace(/[%_]/g, '')}.%`);
    }
    return { sql: where.join(' AND '), args };
  }

  return {
    forUser: (userId: number) => q.forUser.all(userId) as Array<WorkspaceRow & { role: Role }>,
    get: (id: number) => q.get.get(id) as WorkspaceRow | undefined,
    role: (workspaceId: number, userId: number) => q.role.get(workspaceId, userId) as Role | undefined,
    /** A new workspace: its account row (on `packageId`), the workspace, its creator as owner. */
    create: db.transaction((name: string, creatorId: number, packageId: number): number => {
      const handle = `ws-${randomToken(9).toLowerCase().replace(/[^a-z0-9]/g, 'x')}`;
      const id = Number(q.insertAccount.run(handle, `${handle}@workspaces.invalid`, packageId).lastInsertRowid);
      q.insertWorkspace.run(id, name);
      q.insertMember.run(id, creatorId, 'owner');
      return id;
    }),
    rename: (id: number, name: string) => q.rename.run(name, id),
    /** Workspaces besides their personal one that the person owns. */
    ownedCount: (userId: number) => q.ownedCount.get(userId) as number,
    /** Deletes a (non-personal) workspace's account and, by cascade, everything it owns. */
    delete: (id: number): boolean => q.deleteAccount.run(id).changes === 1,
    endpointIds: (id: number) => q.endpointIds.all(id) as number[],
    members: (id: number) => q.members.all(id) as MemberRow[],
    memberCount: (id: number) => q.memberCount.get(id) as number,
    ownerCount: (id: number) => q.ownerCount.get(id) as number,
    addMember: (workspaceId: number, userId: number, role: Role) => q.insertMember.run(workspaceId, userId, role),
    setRole: (workspaceId: number, userId: number, role: Role) => q.setRole.run(role, workspaceId, userId).changes === 1,
    /** Removes a member, the API keys they made for this workspace and the invitations they sent that are still pending. */
    removeMember: db.transaction((workspaceId: number, userId: number): boolean => {
      q.dropMemberKeys.run(workspaceId, userId);
      q.dropInvitationsBy.run(workspaceId, userId);
      return q.removeMember.run(workspaceId, userId).changes === 1;
    }),
    insertInvitation: (workspaceId: number, email: string, role: Role, tokenHash: string, invitedBy: number, at: number, expiresAt: number): number =>
      Number(q.insertInvitation.run(workspaceId, email, role, tokenHash, invitedBy, at, expiresAt).lastInsertRowid),
    pendingInvitations: (workspaceId: number, at: number) => q.pendingInvitations.all(workspaceId, at) as InvitationRow[],
    pendingCount: (workspaceId: number, at: number) => q.pendingCount.get(workspaceId, at) as number,
    invitationByHash: (tokenHash: string) => q.invitationByHash.get(tokenHash) as InvitationRow | undefined,
    deleteInvitation: (workspaceId: number, id: number) => q.deleteInvitation.run(workspaceId, id).changes === 1,
    /** Revokes the pending invitations one member sent (they no longer may invite). */
    dropInvitationsBy: (workspaceId: number, userId: number) => q.dropInvitationsBy.run(workspaceId, userId).changes,
    /** Uses an invitation once (false when used or expired) and adds the member, in one transaction. */
    acceptInvitation: db.transaction((inv: InvitationRow, userId: number, at: number): boolean => {
      if (q.acceptInvitation.run(at, userId, inv.id, at).changes !== 1) return false;
      if (q.role.get(inv.workspace_id, userId) === undefined) q.insertMember.run(inv.workspace_id, userId, inv.role);
      return true;
    }),
    insertAudit: (e: { workspaceId: number; at: number; memberId: number | null; memberName: string; action: string; targetId: string | null; summary: string; clientAddress: string }) =>
      q.insertAudit.run(e.workspaceId, e.at, e.memberId, e.memberName, e.action, e.targetId, e.summary, e.clientAddress),
    purgeAudit: (before: number) => q.purgeAudit.run(before).changes,
    auditPage(workspaceId: number, f: { memberId?: number; action?: string; limit: number; offset: number }) {
      const w = auditWhere(workspaceId, f);
      const total = db.prepare(`SELECT COUNT(*) FROM audit_log WHERE ${w.sql}`).pluck().get(...w.args) as number;
      const items = db.prepare(`SELECT id, at, member_id, member_name, action, target_id, summary, client_address FROM audit_log
        WHERE ${w.sql} ORDER BY id DESC LIMIT ? OFFSET ?`).all(...w.args, f.limit, f.offset) as AuditRow[];
      return { total, items };
    },
    adminList: () => q.adminList.all() as Array<Record<string, unknown>>,
  };
}
export type WorkspacesRepo = ReturnType<typeof createWorkspacesRepo>;
