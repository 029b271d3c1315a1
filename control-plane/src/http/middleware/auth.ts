import type { RequestHandler, Request } from 'express';
import { MESSAGES } from '@upfleet/proto/rest';
import { forbidden, unauthorized } from '../../errors';
import { safeEqual } from '../../lib/crypto';
import { isApiKey, type ApiKeyService } from '../../services/api-keys';
import type { TokenService } from '../../services/tokens';
import { requireRole, type WorkspaceService } from '../../services/workspaces';
import type { Role } from '../../store/workspaces-repo';

export interface AuthedRequest extends Request {
  /**
   * sessionId is '' when the caller used an API key (apiKeyId set). On the workspace-scoped routes
   * (after `inWorkspace`) userId is the workspace's id (the user_id its data carries), memberId the
   * person acting and role their role there; on account routes userId is the person.
   */
  auth: { userId: number; sessionId: string; apiKeyId?: number; keyCreatedBy?: number | null; workspaceId?: number; memberId?: number; role?: Role };
}

function bearer(req: Request): string | null {
  const h = req.headers.authorization;
  if (!h || !h.startsWith('Bearer ')) return null;
  return h.slice(7).trim() || null;
}

/** A signed-in session (access token). An API key is refused with 403: account routes are the web app's. */
export function requireUser(tokens: TokenService): RequestHandler {
  return async (req, _res, next) => {
    const token = bearer(req);
    if (!token) throw unauthorized('Authentication required');
    if (isApiKey(token)) throw forbidden(MESSAGES.apiKeyNotAllowed);
    (req as AuthedRequest).auth = await tokens.verifyAccess(token);
    next();
  };
}

/**
 * A session or an API key acting as its owner (the data routes). Every keyed answer carries the
 * key's RateLimit-* headers, a 429 also Retry-After.
 */
export function requireUserOrKey(tokens: TokenService, apiKeys: ApiKeyService): RequestHandler {
  const session = requireUser(tokens);
  return async (req, res, next) => {
    const token = bearer(req);
    if (!token || !isApiKey(token)) return session(req, res, next);
    const use = await apiKeys.use(token);
    res.setHeader('RateLimit-Limit', String(use.allowance.limit));
    res.setHeader('RateLimit-Remaining', String(use.allowance.remaining));
    res.setHeader('RateLimit-Reset', String(use.allowance.resetSeconds));
    if (use.refusal) throw use.refusal;
    (req as AuthedRequest).auth = { userId: use.userId, sessionId: '', apiKeyId: use.keyId, keyCreatedBy: use.createdBy };
    next();
  };
}

export function requireAdmin(adminToken: string): RequestHandler {
  return (req, _res, next) => {
    const token = bearer(req);
    if (!token || !safeEqual(token, adminToken)) throw unauthorized('Admin token required');
    next();
  };
}

export const authOf = (req: Request) => (req as AuthedRequest).auth;

/**
 * Scopes a signed-in request to a workspace (after requireUser / requireUserOrKey): the one named by
 * `X-Workspace-Id`, or the personal one; 404 for a workspace the caller is not a member of. From
 * here on `auth.userId` is the workspace, so every service keeps scoping its queries by it.
 * Membership is read on every request: a removed member (and their keys) is refused at once.
 */
export function inWorkspace(workspaces: WorkspaceService): RequestHandler {
  return async (req, _res, next) => {
    const a = authOf(req);
    if (a.workspaceId !== undefined) return next();
    const header = req.header('x-workspace-id');
    if (a.apiKeyId !== undefined) {
      const r = await workspaces.resolveForKey(a.userId, a.keyCreatedBy ?? null, header);
      Object.assign(a, { workspaceId: r.workspaceId, memberId: r.memberId, role: r.role });
    } else {
      const r = await workspaces.resolveForUser(a.userId, header);
      Object.assign(a, { memberId: a.userId, userId: r.workspaceId, workspaceId: r.workspaceId, role: r.role });
    }
    next();
  };
}

/**
 * The sign-in gates routes are built with, made once from the token, API-key and workspace
 * services: a feature declares what a route needs without knowing how sign-in is done.
 */
export interface SignIn {
  /** A session, never an API key (account settings, API keys, workspaces, billing). */
  user: RequestHandler;
  /** A session or an API key acting as its owner (the data routes). */
  userOrKey: RequestHandler;
  /** The request's workspace and the caller's role there (after `user` or `userOrKey`). */
  inWorkspace: RequestHandler;
}

export function signInGates(tokens: TokenService, apiKeys: ApiKeyService, workspaces: WorkspaceService): SignIn {
  return { user: requireUser(tokens), userOrKey: requireUserOrKey(tokens, apiKeys), inWorkspace: inWorkspace(workspaces) };
}

/** A route that needs at least `role` in the request's workspace (403 with the role's message). */
export function needRole(role: Role): RequestHandler {
  return (req, _res, next) => {
    requireRole(authOf(req).role ?? 'viewer', role);
    next();
  };
}
