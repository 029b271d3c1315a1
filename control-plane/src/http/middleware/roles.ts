// Which role a data route needs (issue 23): owner (everything, billing, deleting the workspace),
// admin (members, invitations, alert methods, API keys, status pages), editor (endpoints,
// thresholds, maintenance windows, status-page reports), viewer (reads everything, changes nothing).
// One table for the `/users/*` data router; a route missing here that changes something needs editor.
import type { RequestHandler } from 'express';
import { requireRole } from '../../services/workspaces';
import type { Role } from '../../store/workspaces-repo';
import { authOf } from './auth';

const READ = new Set(['GET', 'HEAD', 'OPTIONS']);

/** [method or '*' for any mutation, path pattern under /users, role]; the first match wins. */
const RULES: Array<[string, RegExp, Role]> = [
  ['GET', /^\/alert-methods\/[^/]+\/signing-secret$/, 'admin'], // a secret: admins only
  ['*', /^\/alert-methods(\/|$)/, 'admin'],
  ['*', /^\/api-keys(\/|$)/, 'admin'],
  ['*', /^\/status-pages\/[^/]+\/(reports|incidents|updates)(\/|$)/, 'editor'],
  ['*', /^\/status-pages(\/|$)/, 'admin'],
  ['*', /^\/maintenance-windows(\/|$)/, 'editor'],
  ['*', /^\/(endpoints|heartbeats)(\/|$)/, 'editor'],
];

/** The role a request to `/users{path}` needs, or null for a read anyone in the workspace may make. */
export function roleNeeded(method: string, path: string): Role | null {
  const read = READ.has(method);
  for (const [m, re, role] of RULES) {
    if ((m === '*' ? !read : m === method) && re.test(path)) return role;
  }
  return read ? null : 'editor';
}

/** The gate of the `/users/*` data routes (after inWorkspace). */
export function workspaceRoleGate(): RequestHandler {
  return (req, _res, next) => {
    // The path under /api/users, wherever the gate is mounted.
    const needed = roleNeeded(req.method, req.originalUrl.split('?')[0].replace(/^\/api\/users/, ''));
    if (needed) requireRole(authOf(req).role ?? 'viewer', needed);
    next();
  };
}
