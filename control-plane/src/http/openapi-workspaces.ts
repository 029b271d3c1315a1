// The workspace routes of the API (members, invitations, audit log), spliced into API_ROUTES by
// openapi.ts. Signed-in sessions only: an API key acts inside its workspace, never on membership.
import { z } from 'zod';
import { AuditLogQuery, InvitationBody, MemberRoleBody, WorkspaceBody, WorkspaceDeleteBody } from '@upfleet/proto/schemas';
import type { ApiRoute } from './api-route';

const list = (s: z.ZodType) => z.array(s);
const tag = 'Workspaces' as const;
const access = 'session' as const;
const ws = '/api/workspaces/{id}';
const roles = ['owner', 'admin', 'editor', 'viewer'] as const;

const WorkspaceResource = z.object({
  id: z.number().int(), name: z.string(), personal: z.boolean(), role: z.enum(roles),
  package_name: z.string().meta({ description: 'The workspace\'s plan' }), created_at: z.string(),
}).meta({ id: 'Workspace' });
const MemberResource = z.object({ user_id: z.number().int(), username: z.string(), email: z.string(), role: z.enum(roles), created_at: z.string() }).meta({ id: 'WorkspaceMember' });
const InvitationResource = z.object({ id: z.number().int(), email: z.string(), role: z.enum(roles), created_at: z.string(), expires_at: z.string(), invited_by: z.string().nullable().meta({ description: 'The email of the admin who sent it' }) }).meta({ id: 'Invitation' });
const CreatedInvitation = z.object({
  id: z.number().int(), email: z.string(), role: z.enum(roles), expires_at: z.string(),
  emailed: z.boolean().meta({ description: 'Mailed to the address (SMTP configured)' }),
  link: z.string().optional().meta({ description: 'Without SMTP: the one-use link to pass on (it works only for the invited address)' }),
}).meta({ id: 'CreatedInvitation' });
const AuditEntry = z.object({
  id: z.number().int(), at: z.string(), member_id: z.number().int().nullable(), member_name: z.string(), action: z.string(),
  target_id: z.string().nullable(), summary: z.string(), client_address: z.string(),
}).meta({ id: 'AuditEntry' });

export const WORKSPACE_ROUTES: ApiRoute[] = [
  { method: 'get', path: '/api/workspaces', summary: 'Your workspaces (the personal one first) with your role and each one\'s plan', tag, access, data: list(WorkspaceResource) },
  { method: 'post', path: '/api/workspaces', summary: 'Create a workspace (you own it; it starts on the server\'s default plan)', tag, access, body: WorkspaceBody, data: WorkspaceResource, created: true },
  { method: 'get', path: ws, summary: 'A workspace you are a member of', tag, access, data: WorkspaceResource },
  { method: 'put', path: ws, summary: 'Rename a workspace (admins and owners)', tag, access, body: WorkspaceBody, data: WorkspaceResource },
  { method: 'delete', path: ws, summary: 'Delete a workspace with everything in it (its owner, with their password; not the personal one)', tag, access, body: WorkspaceDeleteBody, data: z.object({ id: z.number().int() }) },
  { method: 'get', path: `${ws}/members`, summary: 'The members and their roles', tag, access, data: list(MemberResource) },
  { method: 'put', path: `${ws}/members/{user_id}`, summary: 'Change a member\'s role (admins; ownership only by an owner)', tag, access, body: MemberRoleBody, data: z.object({ user_id: z.number().int(), role: z.enum(roles), previous_role: z.enum(roles) }).meta({ id: 'MemberRoleChanged' }) },
  { method: 'delete', path: `${ws}/members/{user_id}`, summary: 'Remove a member, or leave (your own id)', tag, access, data: z.object({ user_id: z.number().int() }) },
  { method: 'get', path: `${ws}/invitations`, summary: 'Pending invitations (admins)', tag, access, data: list(InvitationResource) },
  { method: 'post', path: `${ws}/invitations`, summary: 'Invite an address with a role: a one-use link valid 7 days (the plan\'s max_members counts members and pending invitations: 403 past it)', tag, access, body: InvitationBody, data: CreatedInvitation, created: true, errors: [409] },
  { method: 'delete', path: `${ws}/invitations/{inv_id}`, summary: 'Revoke a pending invitation', tag, access, data: z.object({ id: z.number().int() }) },
  { method: 'post', path: '/api/invitations/{token}/accept', summary: 'Accept an invitation as the invited address (this confirms the address)', tag, access, data: WorkspaceResource.extend({ invitation_id: z.number().int() }).meta({ id: 'AcceptedInvitation' }) },
  { method: 'get', path: `${ws}/audit-log`, summary: 'Who changed what, newest first (admins; X-Total-Count says how many match)', tag, access, query: AuditLogQuery, data: list(AuditEntry), headers: ['X-Total-Count'] },
];
