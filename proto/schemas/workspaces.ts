// Workspaces, members, invitations and the audit log.
import { z } from 'zod';
import { mailboxAddress, requiredText } from './common';

export const WORKSPACE_ROLES = ['owner', 'admin', 'editor', 'viewer'] as const;
export type WorkspaceRole = (typeof WORKSPACE_ROLES)[number];
/** Roles an invitation may give (ownership is given by an owner to a member). */
export const INVITABLE_ROLES = ['admin', 'editor', 'viewer'] as const;

const roleOf = <T extends readonly [string, ...string[]]>(roles: T) =>
  z.enum(roles, { error: `Role must be one of ${roles.join(', ')}` });

export const WorkspaceBody = z
  .object({ name: requiredText('Name', 100) })
  .meta({ id: 'WorkspaceBody', description: 'POST /api/workspaces and PUT /api/workspaces/{id}' });
export type WorkspaceBody = z.infer<typeof WorkspaceBody>;

export const WorkspaceDeleteBody = z
  .object({ password: z.string({ error: 'Password is required' }).min(1, 'Password is required') })
  .meta({ id: 'WorkspaceDeleteBody', description: 'DELETE /api/workspaces/{id} (owner only; the personal workspace cannot be deleted)' });
export type WorkspaceDeleteBody = z.infer<typeof WorkspaceDeleteBody>;

export const InvitationBody = z
  .object({
    // Mailed to a stranger: one plain mailbox, as for status-page subscribers (no groups, no display names).
    email: mailboxAddress(),
    role: roleOf(INVITABLE_ROLES),
  })
  .meta({ id: 'InvitationBody', description: 'POST /api/workspaces/{id}/invitations' });
export type InvitationBody = z.infer<typeof InvitationBody>;

export const MemberRoleBody = z
  .object({ role: roleOf(WORKSPACE_ROLES) })
  .meta({ id: 'MemberRoleBody', description: 'PUT /api/workspaces/{id}/members/{user_id}' });
export type MemberRoleBody = z.infer<typeof MemberRoleBody>;

const pageNumber = (label: string, max: number) =>
  z.coerce.number({ error: `${label} must be a number` }).int(`${label} must be a whole number`).min(0, `${label} must be 0 or more`).max(max, `${label} must be at most ${max}`);

export const AuditLogQuery = z
  .object({
    limit: pageNumber('limit', 200).min(1, 'limit must be 1 or more').optional(),
    offset: pageNumber('offset', 1_000_000_000).optional(),
    member_id: z.coerce.number({ error: 'member_id must be a number' }).int().positive().optional(),
    action: z.string().trim().max(64, 'action must be at most 64 characters long').optional(),
  })
  .meta({ id: 'AuditLogQuery', description: 'GET /api/workspaces/{id}/audit-log' });
export type AuditLogQuery = z.infer<typeof AuditLogQuery>;
