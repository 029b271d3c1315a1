import type { Db } from './db';

export interface RefreshRow {
  token_hash: string;
  session_id: string;
  user_id: number;
  created_at: number;
  expires_at: number;
  used_at: number | null;
  session_revoked_at: number | null;
}

// A session is a refresh-token family: every refresh rotates the token inside it.
export function createSessionsRepo(db: Db) {
  const q = {
    insertSession: db.prepare('INSERT INTO sessions (id, user_id, created_at) VALUES (?, ?, ?)'),
    insertToken: db.prepare('INSERT INTO refresh_tokens (token_hash, session_id, user_id, created_at, expires_at) VALUES (?, ?, ?, ?, ?)'),
    token: db.prepare(`SELECT t.*, s.revoked_at AS session_revoked_at FROM refresh_tokens t
      JOIN sessions s ON s.id = t.session_id WHERE t.token_hash = ?`),
    markUsed: db.prepare('UPDATE refresh_tokens SET used_at = ? WHERE token_hash = ? AND used_at IS NULL'),
    revoke: db.prepare('UPDATE sessions SET revoked_at = ?, revoked_reason = ? WHERE id = ? AND revoked_at IS NULL'),
    revokeOthers: db.prepare('UPDATE sessions SET revoked_at = ?, revoked_reason = ? WHERE user_id = ? AND id != ? AND revoked_at IS NULL'),
    isLive: db.prepare('SELECT 1 FROM sessions WHERE id = ? AND user_id = ? AND revoked_at IS NULL'),
    pruneTokens: db.prepare('DELETE FROM refresh_tokens WHERE expires_at <= ?'),
    // After its tokens are gone a session can neither refresh nor hold a live access token (access
    // tokens live shorter than refresh tokens); a revoked one is refused whether it exists or not.
    pruneSessions: db.prepare(`DELETE FROM sessions WHERE revoked_at IS NOT NULL
      OR NOT EXISTS (SELECT 1 FROM refresh_tokens t WHERE t.session_id = sessions.id)`),
  };
  return {
    create: db.transaction((sessionId: string, userId: number, tokenHash: string, now: number, expiresAt: number) => {
      q.insertSession.run(sessionId, userId, now);
      q.insertToken.run(tokenHash, sessionId, userId, now, expiresAt);
    }),
    findToken: (hash: string) => q.token.get(hash) as RefreshRow | undefined,
    /** Rotates: marks the old token used and stores its successor, atomically; false if it was already used. */
    rotate: db.transaction((oldHash: string, newHash: string, sessionId: string, userId: number, now: number, expiresAt: number): boolean => {
      if (q.markUsed.run(now, oldHash).changes !== 1) return false;
      q.insertToken.run(newHash, sessionId, userId, now, expiresAt);
      return true;
    }),
    /** Another token in an existing family (the reuse grace of a just-rotated token). */
    addToken: (tokenHash: string, sessionId: string, userId: number, now: number, expiresAt: number) =>
      q.insertToken.run(tokenHash, sessionId, userId, now, expiresAt),
    revoke: (sessionId: string, reason: string, now = Date.now()) => q.revoke.run(now, reason, sessionId),
    revokeOthers: (userId: number, keepSessionId: string, reason: string, now = Date.now()) => q.revokeOthers.run(now, reason, userId, keepSessionId),
    isLive: (sessionId: string, userId: number): boolean => q.isLive.get(sessionId, userId) !== undefined,
    /** Deletes expired refresh tokens, then sessions that are revoked or have no token left. */
    prune: db.transaction((now: number) => {
      const tokens = q.pruneTokens.run(now).changes;
      const sessions = q.pruneSessions.run().changes;
      return { sessions, tokens };
    }),
  };
}
export type SessionsRepo = ReturnType<typeof createSessionsRepo>;
