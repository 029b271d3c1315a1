// Access tokens (JWT, HS256 via jose) and rotating refresh tokens (opaque, stored hashed).
import crypto from 'node:crypto';
import { SignJWT, jwtVerify } from 'jose';
import { unauthorized } from '../errors';
import { randomToken, sha256 } from '../lib/crypto';
import type { SessionsRepo } from '../store/sessions-repo';

export interface AccessClaims { userId: number; sessionId: string }
export interface TokenPair { accessToken: string; refreshToken: string }

export function createTokenService(deps: {
  sessions: SessionsRepo;
  signingKey: Buffer;
  accessTtlSeconds: number;
  refreshTtlDays: number;
  /** A rotated token presented again within this window is a second tab or a retried request,
   *  not theft: it gets a fresh token in the same family instead of revoking it. */
  reuseGraceSeconds?: number;
  now?: () => number;
}) {
  const now = deps.now ?? Date.now;
  const key = new Uint8Array(deps.signingKey);
  const refreshTtlMs = deps.refreshTtlDays * 86400_000;

  async function signAccess(userId: number, sessionId: string): Promise<string> {
    const iat = Math.floor(now() / 1000);
    return new SignJWT({ sid: sessionId })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(String(userId))
      .setIssuedAt(iat)
      .setExpirationTime(iat + deps.accessTtlSeconds)
      .setIssuer('upfleet')
      .setJti(randomToken(9))
      .sign(key);
  }

  return {
    /** Starts a new session (refresh family) for a signed-in user. */
    async issue(userId: number): Promise<TokenPair> {
      const sessionId = crypto.randomUUID();
      const refreshToken = randomToken();
      const t = now();
      await deps.sessions.create(sessionId, userId, sha256(refreshToken), t, t + refreshTtlMs);
      return { accessToken: await signAccess(userId, sessionId), refreshToken };
    },

    /** Verifies an access token and that its session was not revoked (logout, reuse, password change). */
    async verifyAccess(token: string): Promise<AccessClaims> {
      let payload;
      try {
        ({ payload } = await jwtVerify(token, key, { issuer: 'upfleet', algorithms: ['HS256'], currentDate: new Date(now()) }));
      } catch {
        throw unauthorized('Invalid or expired token');
      }
      const userId = Number(payload.sub);
      const sessionId = typeof payload.sid === 'string' ? payload.sid : '';
      if (!Number.isInteger(userId) || !(await deps.sessions.isLive(sessionId, userId))) throw unauthorized('Session has ended');
      return { userId, sessionId };
    },

    /** Rotates a refresh token. A token used twice means it leaked: the whole family is revoked. */
    async refresh(refreshToken: string): Promise<TokenPair & { userId: number }> {
      const row = await deps.sessions.findToken(sha256(refreshToken));
      const t = now();
      if (!row || row.session_revoked_at !== null || row.expires_at <= t) throw unauthorized('Invalid refresh token');
      const next = randomToken();
      if (row.used_at !== null) {
        if (t - row.used_at <= (deps.reuseGraceSeconds ?? 0) * 1000) {
          await deps.sessions.addToken(sha256(next), row.session_id, row.user_id, t, t + refreshTtlMs);
          return { userId: row.user_id, accessToken: await signAccess(row.user_id, row.session_id), refreshToken: next };
        }
        await deps.sessions.revoke(row.session_id, 'refresh token reuse', t);
        throw unauthorized('Invalid refresh token');
      }
      if (!(await deps.sessions.rotate(row.token_hash, sha256(next), row.session_id, row.user_id, t, t + refreshTtlMs))) {
        await deps.sessions.revoke(row.session_id, 'refresh token reuse', t);
        throw unauthorized('Invalid refresh token');
      }
      return { userId: row.user_id, accessToken: await signAccess(row.user_id, row.session_id), refreshToken: next };
    },

    revoke: (sessionId: string) => deps.sessions.revoke(sessionId, 'logout', now()),
    /** Ends every session of the user but the current one (password, email or 2FA changed). */
    revokeOthers: (userId: number, keepSessionId: string, reason: string) => deps.sessions.revokeOthers(userId, keepSessionId, reason, now()),
    /** Drops expired and revoked sessions with their refresh tokens; returns what it deleted. */
    prune: () => deps.sessions.prune(now()),
  };
}
export type TokenService = ReturnType<typeof createTokenService>;
