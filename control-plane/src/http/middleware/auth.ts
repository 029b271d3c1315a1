import type { RequestHandler, Request } from 'express';
import { MESSAGES } from '@upfleet/proto/rest';
import { forbidden, unauthorized } from '../../errors';
import { safeEqual } from '../../lib/crypto';
import { isApiKey, type ApiKeyService } from '../../services/api-keys';
import type { TokenService } from '../../services/tokens';

export interface AuthedRequest extends Request {
  /** sessionId is '' when the caller used an API key (apiKeyId set). */
  auth: { userId: number; sessionId: string; apiKeyId?: number };
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
  return (req, res, next) => {
    const token = bearer(req);
    if (!token || !isApiKey(token)) return session(req, res, next);
    const use = apiKeys.use(token);
    res.setHeader('RateLimit-Limit', String(use.allowance.limit));
    res.setHeader('RateLimit-Remaining', String(use.allowance.remaining));
    res.setHeader('RateLimit-Reset', String(use.allowance.resetSeconds));
    if (use.refusal) throw use.refusal;
    (req as AuthedRequest).auth = { userId: use.userId, sessionId: '', apiKeyId: use.keyId };
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
