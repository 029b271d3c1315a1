// Workspaces, members, invitations and the audit log. Account routes: a signed-in
// session only (an API key acts inside its workspace's data routes, never on membership).
import type { Router } from 'express';
import { AuditLogQuery, InvitationBody, MemberRoleBody, WorkspaceBody, WorkspaceDeleteBody } from '@upfleet/proto/schemas';
import { badRequest, notFound } from '../../errors';
import type { RateLimiter } from '../../services/rate-limiter';
import { parseId, parseInput } from '../../services/validation';
import { requireRole, WORKSPACE_NOT_FOUND, type WorkspaceService } from '../../services/workspaces';
import type { WorkspacesRepo } from '../../store/workspaces-repo';
import { authOf, type SignIn } from '../middleware/auth';
import { mount, route, strictRouter } from '../route-table';

export function workspaceRoutes(deps: { workspaces: WorkspaceService; repo: WorkspacesRepo; signIn: SignIn; limiter: RateLimiter }): Router {
  const { workspaces: ws } = deps;
  const r = strictRouter();
  // The join page reads an invitation before anyone signs in (the token is the secret).
  r.get('/public/invitations/:token', async (req, res) => {
    const token = String(req.params.token ?? '');
    if (!/^[A-Za-z0-9_-]{20,100}$/.test(token)) throw notFound('This invitation is invalid, used or expired');
    res.json({ success: true, data: await ws.preview(token) });
  });
  r.use(['/workspaces', '/invitations'], deps.signIn.user);
  const me = (req: Parameters<typeof authOf>[0]) => authOf(req).userId;
  const wid = (raw: unknown) => parseId(raw, WORKSPACE_NOT_FOUND);
  const memberId = (raw: unknown) => parseId(raw, 'Member not found');

  // The path names the workspace: each service checks the caller's role there.
  return mount(r, [
    route('get', '/workspaces', 'member', async (req, res) => {
      res.json({ success: true, data: await ws.list(me(req)) });
    }),
    route('post', '/workspaces', { role: 'member', action: 'workspace.create' }, async (req, res) => {
      res.status(201).json({ success: true, data: await ws.create(me(req), parseInput(WorkspaceBody, req.body).name) });
    }),
    route('get', '/workspaces/:id', 'member', async (req, res) => {
      res.json({ success: true, data: await ws.get(me(req), wid(req.params.id)) });
    }),
    route('put', '/workspaces/:id', { role: 'member', action: 'workspace.rename' }, async (req, res) => {
      const id = wid(req.params.id);
      await ws.roleIn(id, me(req)); // 404 before 400 for a workspace one is not in
      res.json({ success: true, data: await ws.rename(me(req), id, parseInput(WorkspaceBody, req.body).name) });
    }),
    route('delete', '/workspaces/:id', { role: 'member', action: 'workspace.delete' }, async (req, res) => {
      const id = wid(req.params.id);
      await ws.roleIn(id, me(req));
      res.json({ success: true, data: await ws.remove(me(req), id, parseInput(WorkspaceDeleteBody, req.body ?? {}).password) });
    }),

    route('get', '/workspaces/:id/members', 'member', async (req, res) => {
      res.json({ success: true, data: await ws.members(me(req), wid(req.params.id)) });
    }),
    route('put', '/workspaces/:id/members/:userId', { role: 'member', action: 'member.role_change' }, async (req, res) => {
      const id = wid(req.params.id);
      await ws.roleIn(id, me(req));
      res.json({ success: true, data: await ws.setRole(me(req), id, memberId(req.params.userId), parseInput(MemberRoleBody, req.body).role) });
    }),
    route('delete', '/workspaces/:id/members/:userId', { role: 'member', action: 'member.remove' }, async (req, res) => {
      res.json({ success: true, data: await ws.removeMember(me(req), wid(req.params.id), memberId(req.params.userId)) });
    }),

    route('get', '/workspaces/:id/invitations', 'member', async (req, res) => {
      res.json({ success: true, data: await ws.invitations(me(req), wid(req.params.id)) });
    }),
    route('post', '/workspaces/:id/invitations', { role: 'member', action: 'invitation.create' }, async (req, res) => {
      const id = wid(req.params.id);
      await ws.roleIn(id, me(req));
      const body = parseInput(InvitationBody, req.body);
      await deps.limiter.consume('invitation_user', String(me(req))); // 30 mails an hour per member
      res.status(201).json({ success: true, data: await ws.invite(me(req), id, body) });
    }),
    route('delete', '/workspaces/:id/invitations/:invId', { role: 'member', action: 'invitation.revoke' }, async (req, res) => {
      res.json({ success: true, data: await ws.revokeInvitation(me(req), wid(req.params.id), parseId(req.params.invId, 'Invitation not found')) });
    }),
    route('post', '/invitations/:token/accept', { role: 'member', action: 'member.join' }, async (req, res) => {
      const token = String(req.params.token ?? '');
      if (!/^[A-Za-z0-9_-]{20,100}$/.test(token)) throw notFound('This invitation is invalid, used or expired');
      res.json({ success: true, data: await ws.accept(me(req), token) });
    }),

    // Admins and owners read the log, newest first; X-Total-Count says how many match.
    route('get', '/workspaces/:id/audit-log', 'member', async (req, res) => {
      const id = wid(req.params.id);
      requireRole(await ws.roleIn(id, me(req)), 'admin');
      const q = parseInput(AuditLogQuery, req.query);
      if (q.action !== undefined && !/^[a-z_.]*$/.test(q.action)) throw badRequest('action must be an action name such as endpoint.create');
      const page = await deps.repo.auditPage(id, { memberId: q.member_id, action: q.action || undefined, limit: q.limit ?? 50, offset: q.offset ?? 0 });
      res.set('X-Total-Count', String(page.total)).json({
        success: true,
        data: page.items.map((e) => ({ ...e, at: new Date(e.at).toISOString() })),
      });
    }),
  ]);
}
