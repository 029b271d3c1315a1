// Each API route is declared with what it needs next to its handler: `route(method, path, access,
// ...handlers)`. The role gate and the audit log read the declaration of the route express matched,
// never the raw URL, whose spelling (case, a trailing slash) can differ from the route's. API routers
// are strict as well (case-sensitive, no trailing slash), so a URL either is a route or is a 404.
import { Router, type RequestHandler } from 'express';
import { requireRole } from '../services/workspaces';
import type { Role } from '../store/workspaces-repo';
import { authOf } from './middleware/auth';

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/**
 * The least role in the request's workspace (after `inWorkspace`); 'member' where the path names
 * the workspace (or an invitation) and its service checks the caller's role there; 'account' for
 * the signed-in person's own account (no workspace); 'public' for routes without sign-in.
 */
export type Permission = Role | 'member' | 'account' | 'public';

export interface Access {
  role: Permission;
  /** The audit log's action for a mutation (`endpoint.create`); reads are not logged. */
  action?: string;
}

export interface RouteDecl extends Access {
  method: Method;
  path: string;
  handlers: RequestHandler[];
}

/** What the gate middleware of a declared route carries, for tests that walk the mounted routers. */
export interface DeclaredGate extends RequestHandler {
  declaration: Access & { method: Method; path: string };
}

/** `'viewer'` for a read; `{ role, action }` for a mutation. */
export function route(method: Method, path: string, access: Permission | Access, ...handlers: RequestHandler[]): RouteDecl {
  const a = typeof access === 'string' ? { role: access } : access;
  return { method, path, ...a, handlers };
}

/** A router whose paths match as written: `/Users/x` and `/users/x/` are not `/users/x`. */
export function strictRouter(): Router {
  return Router({ caseSensitive: true, strict: true });
}

/** res.locals key of the matched route's audit action. */
export const ROUTE_ACTION = 'routeAction';

function gate(d: RouteDecl): DeclaredGate {
  const role = d.role;
  const fn = ((req, res, next) => {
    if (d.action) res.locals[ROUTE_ACTION] = d.action;
    if (role !== 'member' && role !== 'account' && role !== 'public') {
      const held = authOf(req)?.role;
      // Fails closed: a workspace route mounted without sign-in and inWorkspace is a wiring mistake.
      if (!held) throw new Error(`${d.method.toUpperCase()} ${d.path} needs a role but the request has no workspace`);
      requireRole(held, role);
    }
    next();
  }) as DeclaredGate;
  fn.declaration = { method: d.method, path: d.path, role: d.role, action: d.action };
  return fn;
}

/** Registers each declared route on `r`: `before` (sign-in, workspace), its gate, its handlers. */
export function mount(r: Router, routes: RouteDecl[], ...before: RequestHandler[]): Router {
  for (const d of routes) r[d.method](d.path, ...before, gate(d), ...d.handlers);
  return r;
}
