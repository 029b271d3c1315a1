// Workspaces, members, roles and invitations: which workspace a request acts on and with
// which role, who may change what, and the one-use 7-day invitation links.
import { planViolations } from '@upfleet/proto/plan';
import { MESSAGES, type Package } from '@upfleet/proto/rest';
import type { InvitationBody, WorkspaceRole } from '@upfleet/proto/schemas';
import type { ChangeTopic } from '../change-hub';
import { badRequest, conflict, forbidden, notFound, planRefused } from '../errors';
import { randomToken, sha256, verifyPassword } from '../lib/crypto';
import type { UsersRepo } from '../store/users-repo';
import type { Role, WorkspacesRepo } from '../store/workspaces-repo';

export const INVITATION_TTL_MS = 7 * 24 * 3600_000;
export const AUDIT_RETENTION_MS = 365 * 24 * 3600_000;
export const WORKSPACE_NOT_FOUND = 'Workspace not found';
export const INVITATION_INVALID = 'This invitation is invalid, used or expired';

const RANK: Record<Role, number> = { viewer: 0, editor: 1, admin: 2, owner: 3 };
/** True when `role` may do what needs `needed`. */
export const roleAllows = (role: Role, needed: Role): boolean => RANK[role] >= RANK[needed];

/** The 403 of a mutation beyond one's role (the exact message clients rely on). */
export function requireRole(role: Role, needed: Role): void {
  if (!roleAllows(role, needed)) throw forbidden(MESSAGES.roleNotAllowed(role));
}

export interface InvitationMailer {
  sendInvitation(to: string, link: string, workspaceName: string, inviterName: string): Promise<void>;
}

export function createWorkspaceService(deps: {
  workspaces: WorkspacesRepo;
  users: UsersRepo;
  planOf: (workspaceId: number) => Package | Promise<Package>;
  freePackageId: () => number;
  /** Billing is on: the members refusal points at checkout, not at the operator. */
  billingEnabled?: () => boolean;
  /** Endpoints of a deleted workspace stop being monitored. */
  endpointChanges: ChangeTopic;
  mailer: InvitationMailer | null;
  /** Whether the person's address is confirmed (always, without SMTP): only then may they accept. */
  emailVerified: (userId: number) => boolean | Promise<boolean>;
  publicUrl: () => string;
  /** Workspaces a person may own besides their personal one (each is a fresh set of plan limits). */
  maxWorkspacesPerUser?: number;
  logger?: { warn(obj: object, msg: string): void };
  now?: () => number;
  /** A member's access to a workspace ended (removed, left; memberId null: the workspace was
   *  deleted): their open event streams there end at once instead of at the token's TTL. */
  onAccessEnded?: (workspaceId: number, memberId: number | null) => void;
}) {
  const { workspaces, users } = deps;
  const now = deps.now ?? Date.now;

  /** The member's role, or 404 for a workspace they are not in (never saying whether it exists). */
  async function roleIn(workspaceId: number, userId: number): Promise<Role> {
    const role = await workspaces.role(workspaceId, userId);
    if (!role) throw notFound(WORKSPACE_NOT_FOUND);
    return role;
  }

  function parseWorkspaceHeader(raw: string | undefined): number | null {
    if (raw === undefined || raw.trim() === '') return null;
    const id = Number(raw.trim());
    if (!Number.isSafeInteger(id) || id <= 0) throw notFound(WORKSPACE_NOT_FOUND);
    return id;
  }

  async function workspaceView(id: number, role: Role) {
    const w = await workspaces.get(id);
    if (!w) throw notFound(WORKSPACE_NOT_FOUND);
    return { id: w.id, name: w.name, personal: w.personal === 1, role, package_name: (await deps.planOf(id)).package_name, created_at: w.created_at };
  }

  return {
    roleIn,

    /**
     * The workspace a signed-in person acts on: `X-Workspace-Id`, or their personal workspace
     * (whose id is their own) without it. 404 when they are not a member.
     */
    async resolveForUser(userId: number, header: string | undefined): Promise<{ workspaceId: number; role: Role }> {
      const workspaceId = parseWorkspaceHeader(header) ?? userId;
      return { workspaceId, role: await roleIn(workspaceId, userId) };
    },

    /**
     * An API key acts in its own workspace only (another `X-Workspace-Id` is a 404), with the role
     * its maker has there now: a member who left takes their keys' access with them.
     */
    async resolveForKey(keyWorkspaceId: number, createdBy: number | null, header: string | undefined): Promise<{ workspaceId: number; role: Role; memberId: number }> {
      const asked = parseWorkspaceHeader(header);
      if (asked !== null && asked !== keyWorkspaceId) throw notFound(WORKSPACE_NOT_FOUND);
      const memberId = createdBy ?? keyWorkspaceId;
      return { workspaceId: keyWorkspaceId, role: await roleIn(keyWorkspaceId, memberId), memberId };
    },

    async list(userId: number) {
      return Promise.all((await workspaces.forUser(userId)).map(async (w) => ({
        id: w.id, name: w.name, personal: w.personal === 1, role: w.role, package_name: (await deps.planOf(w.id)).package_name, created_at: w.created_at,
      })));
    },

    get: async (userId: number, id: number) => workspaceView(id, await roleIn(id, userId)),

    async create(userId: number, name: string) {
      const max = deps.maxWorkspacesPerUser;
      if (max !== undefined && (await workspaces.ownedCount(userId)) >= max) throw forbidden(MESSAGES.tooManyWorkspaces(max));
      const id = await workspaces.create(name, userId, deps.freePackageId());
      return workspaceView(id, 'owner');
    },

    async rename(userId: number, id: number, name: string) {
      requireRole(await roleIn(id, userId), 'admin');
      await workspaces.rename(id, name);
      return workspaceView(id, await roleIn(id, userId));
    },

    async remove(userId: number, id: number, password: string) {
      const role = await roleIn(id, userId);
      requireRole(role, 'owner');
      const w = (await workspaces.get(id))!;
      if (w.personal) throw badRequest('Your personal workspace cannot be deleted');
      const user = await users.byId(userId);
      if (!user || !(await verifyPassword(password, user.password_hash))) throw badRequest('Password is incorrect');
      const endpointIds = await workspaces.endpointIds(id);
      if (!(await workspaces.delete(id))) throw notFound(WORKSPACE_NOT_FOUND);
      for (const e of endpointIds) deps.endpointChanges.removed(e);
      deps.onAccessEnded?.(id, null);
      return { id };
    },

    async members(userId: number, id: number) {
      await roleIn(id, userId);
      return workspaces.members(id);
    },

    /** Admins change admins, editors and viewers; only an owner gives or takes ownership; one owner always stays. */
    async setRole(actorId: number, id: number, memberId: number, role: WorkspaceRole) {
      const actorRole = await roleIn(id, actorId);
      requireRole(actorRole, 'admin');
      const current = await workspaces.role(id, memberId);
      if (!current) throw notFound('Member not found');
      if ((current === 'owner' || role === 'owner') && actorRole !== 'owner') throw forbidden(MESSAGES.roleNotAllowed(actorRole));
      if (current === 'owner' && role !== 'owner') {
        if ((await workspaces.get(id))!.personal && memberId === id) throw badRequest('The owner of a personal workspace stays its owner');
        if ((await workspaces.ownerCount(id)) <= 1) throw badRequest('A workspace must keep at least one owner');
      }
      // An invitation acts with its sender's authority: it goes when they may no longer invite.
      if (!roleAllows(role, 'admin')) await workspaces.dropInvitationsBy(id, memberId);
      await workspaces.setRole(id, memberId, role);
      return { user_id: memberId, role, previous_role: current };
    },

    /** Removes a member (admins; an owner only by an owner) or leaves (anyone): access ends at once, with their API keys here. */
    async removeMember(actorId: number, id: number, memberId: number) {
      const actorRole = await roleIn(id, actorId);
      const current = await workspaces.role(id, memberId);
      if (!current) throw notFound('Member not found');
      if (memberId !== actorId) {
        requireRole(actorRole, 'admin');
        if (current === 'owner' && actorRole !== 'owner') throw forbidden(MESSAGES.roleNotAllowed(actorRole));
      }
      if ((await workspaces.get(id))!.personal && memberId === id) throw badRequest('You cannot leave your personal workspace');
      if (current === 'owner' && (await workspaces.ownerCount(id)) <= 1) throw badRequest('A workspace must keep at least one owner');
      await workspaces.removeMember(id, memberId);
      deps.onAccessEnded?.(id, memberId);
      return { user_id: memberId };
    },

    async invite(actorId: number, id: number, body: InvitationBody) {
      requireRole(await roleIn(id, actorId), 'admin');
      const email = body.email.trim();
      if ((await workspaces.members(id)).some((m) => m.email.toLowerCase() === email.toLowerCase())) throw conflict('This person is already a member of the workspace');
      const at = now();
      const plan = await deps.planOf(id);
      const over = planViolations(plan, { members: (await workspaces.memberCount(id)) + (await workspaces.pendingCount(id, at)) + 1 }, { checkout: deps.billingEnabled?.() })[0];
      if (over) throw planRefused(over);
      const token = randomToken(32);
      const invId = await workspaces.insertInvitation(id, email, body.role, sha256(token), actorId, at, at + INVITATION_TTL_MS);
      const link = `${deps.publicUrl().replace(/\/+$/, '')}/invitations/${token}`;
      const inviter = (await users.byId(actorId))?.username ?? 'A member';
      if (deps.mailer) {
        await deps.mailer.sendInvitation(email, link, (await workspaces.get(id))!.name, inviter).catch((err: Error) => {
          deps.logger?.warn({ err: err.message, workspaceId: id }, 'invitation mail failed');
        });
      }
      return {
        id: invId, email, role: body.role, expires_at: new Date(at + INVITATION_TTL_MS).toISOString(), emailed: deps.mailer !== null,
        // Without SMTP the inviter passes the link on; it still works only for the invited address.
        ...(deps.mailer ? {} : { link }),
      };
    },

    async invitations(actorId: number, id: number) {
      requireRole(await roleIn(id, actorId), 'admin');
      return Promise.all((await workspaces.pendingInvitations(id, now())).map(async (i) => ({
        id: i.id, email: i.email, role: i.role, created_at: new Date(i.created_at).toISOString(), expires_at: new Date(i.expires_at).toISOString(),
        invited_by: i.invited_by === null ? null : (await users.byId(i.invited_by))?.email ?? null,
      })));
    },

    async revokeInvitation(actorId: number, id: number, invId: number) {
      requireRole(await roleIn(id, actorId), 'admin');
      if (!(await workspaces.deleteInvitation(id, invId))) throw notFound('Invitation not found');
      return { id: invId };
    },

    /** What the join page shows to whoever holds the link: the workspace, who invited, the role. */
    async preview(token: string) {
      const inv = await workspaces.invitationByHash(sha256(token));
      if (!inv || inv.accepted_at !== null || inv.expires_at <= now()) throw notFound(INVITATION_INVALID);
      const inviter = inv.invited_by === null ? undefined : await users.byId(inv.invited_by);
      return {
        workspace_name: (await workspaces.get(inv.workspace_id))?.name ?? '', inviter: inviter?.username || 'A member',
        role: inv.role, email: inv.email, expires_at: new Date(inv.expires_at).toISOString(),
      };
    },

    /** Accepted by a signed-in person whose email is the invited one; once. The link was mailed
     *  to that address, so opening it proves the address: an unconfirmed one is confirmed. */
    async accept(userId: number, token: string) {
      const inv = await workspaces.invitationByHash(sha256(token));
      const at = now();
      if (!inv || inv.accepted_at !== null || inv.expires_at <= at) throw notFound(INVITATION_INVALID);
      // The sender must still be allowed to invite (an invitation sent before a demotion is void too).
      const sender = inv.invited_by === null ? null : await workspaces.role(inv.workspace_id, inv.invited_by);
      if (inv.invited_by !== null && (!sender || !roleAllows(sender, 'admin'))) throw notFound(INVITATION_INVALID);
      const user = await users.byId(userId);
      if (!user || user.email.toLowerCase() !== inv.email.toLowerCase()) throw forbidden('This invitation was sent to another email address');
      if (!(await deps.emailVerified(userId))) await users.setVerifiedEmail(userId, user.email);
      if (!(await workspaces.acceptInvitation(inv, userId, at))) throw notFound(INVITATION_INVALID);
      return { ...(await workspaceView(inv.workspace_id, await roleIn(inv.workspace_id, userId))), invitation_id: inv.id };
    },
  };
}
export type WorkspaceService = ReturnType<typeof createWorkspaceService>;
