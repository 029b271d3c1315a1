import type { RequestHandler, Request } from 'express';
import { unauthorized } from '../../errors';
import { safeEqual } from '../../lib/crypto';
import type { TokenService } from '../../services/tokens';

export interface AuthedRequest extends Request {
  auth: { userId: number; sessionId: string };
}

function bearer(req: Request): string | null {
  const h = req.headers.authorization;
  if (!h || !h.startsWith('Bearer ')) return null;
  return h.slice(7).trim() || null;
}

export function requireUser(tokens: TokenService): RequestHandler {
  return async (req, _res, next) => {
    const token = bearer(req);
    if (!token) throw unauthorized('Authentication required');
    (req as AuthedRequest).auth = await tokens.verifyAccess(token);
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
