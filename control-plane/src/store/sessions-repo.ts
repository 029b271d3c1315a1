import { sql, type Kysely } from 'kysely';
import type { RefreshTokensTable, Schema } from './sql/schema';

export type RefreshRow = RefreshTokensTable & { session_revoked_at: number | null };

// A session is a refresh-token family: every refresh rotates the token inside it.
// Kysely, so the same code runs on SQLite and on Postgres (sessions-repo.test.ts runs it on both).
export function createSessionsRepo(db: Kysely<Schema>) {
  const insertToken = (q: Kysely<Schema>, tokenHash: string, sessionId: string, userId: number, now: number, expiresAt: number) =>
    q.insertInto('refresh_tokens')
      .values({ token_hash: tokenHash, session_id: sessionId, user_id: userId, created_at: now, expires_at: expiresAt, used_at: null })
      .execute();
  return {
    create: (sessionId: string, userId: number, tokenHash: string, now: number, expiresAt: number): Promise<void> =>
      db.transaction().execute(async (trx) => {
        await trx.insertInto('sessions').values({ id: sessionId, user_id: userId, created_at: now, revoked_at: null, revoked_reason: null }).execute();
        await insertToken(trx, tokenHash, sessionId, userId, now, expiresAt);
      }),
    findToken: (hash: string): Promise<RefreshRow | undefined> =>
      db.selectFrom('refresh_tokens as t')
        .innerJoin('sessions as s', 's.id', 't.session_id')
        .selectAll('t')
        .select('s.revoked_at as session_revoked_at')
        .where('t.token_hash', '=', hash)
        .executeTakeFirst(),
    /** Rotates: marks the old token used and stores its successor, atomically; false if it was already
     *  used. The conditional UPDATE is the compare-and-set: of two processes rotating one token, one wins. */
    rotate: (oldHash: string, newHash: string, sessionId: string, userId: number, now: number, expiresAt: number): Promise<boolean> =>
      db.transaction().execute(async (trx) => {
        const marked = await trx.updateTable('refresh_tokens').set({ used_at: now })
          .where('token_hash', '=', oldHash).where('used_at', 'is', null)
          .executeTakeFirst();
        if (Number(marked.numUpdatedRows) !== 1) return false;
        await insertToken(trx, newHash, sessionId, userId, now, expiresAt);
        return true;
      }),
    /** Another token in an existing family (the reuse grace of a just-rotated token). */
    addToken: async (tokenHash: string, sessionId: string, userId: number, now: number, expiresAt: number): Promise<void> => {
      await insertToken(db, tokenHash, sessionId, userId, now, expiresAt);
    },
    revoke: async (sessionId: string, reason: string, now = Date.now()): Promise<void> => {
      await db.updateTable('sessions').set({ revoked_at: now, revoked_reason: reason })
        .where('id', '=', sessionId).where('revoked_at', 'is', null)
        .execute();
    },
    revokeOthers: async (userId: number, keepSessionId: string, reason: string, now = Date.now()): Promise<void> => {
      await db.updateTable('sessions').set({ revoked_at: now, revoked_reason: reason })
        .where('user_id', '=', userId).where('id', '!=', keepSessionId).where('revoked_at', 'is', null)
        .execute();
    },
    isLive: async (sessionId: string, userId: number): Promise<boolean> =>
      (await db.selectFrom('sessions').select(sql<number>`1`.as('live'))
        .where('id', '=', sessionId).where('user_id', '=', userId).where('revoked_at', 'is', null)
        .executeTakeFirst()) !== undefined,
    /** Deletes expired refresh tokens, then sessions that are revoked or have no token left. */
    prune: (now: number): Promise<{ sessions: number; tokens: number }> =>
      db.transaction().execute(async (trx) => {
        const tokens = await trx.deleteFrom('refresh_tokens').where('expires_at', '<=', now).executeTakeFirst();
        // After its tokens are gone a session can neither refresh nor hold a live access token (access
        // tokens live shorter than refresh tokens); a revoked one is refused whether it exists or not.
        const sessions = await trx.deleteFrom('sessions')
          .where((eb) => eb.or([
            eb('revoked_at', 'is not', null),
            eb.not(eb.exists(eb.selectFrom('refresh_tokens as t').select(sql<number>`1`.as('one')).whereRef('t.session_id', '=', 'sessions.id'))),
          ]))
          .executeTakeFirst();
        return { sessions: Number(sessions.numDeletedRows), tokens: Number(tokens.numDeletedRows) };
      }),
  };
}
export type SessionsRepo = ReturnType<typeof createSessionsRepo>;
