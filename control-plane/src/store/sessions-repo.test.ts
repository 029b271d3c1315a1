// The sessions repo on both databases (SQLite and Postgres): the pattern every converted repo's
// tests follow.
import { describe, expect, it } from 'vitest';
import { freshSql, insertTestUser, SQL_DIALECTS } from '../testing/sql';
import { createSessionsRepo } from './sessions-repo';

describe.each(SQL_DIALECTS)('sessions repo on $title', (d) => {
  const sql = freshSql(d);
  const DAY = 86400_000;

  it('stores a session with its first refresh token and finds it by hash', async () => {
    const repo = createSessionsRepo(sql().db);
    const user = await insertTestUser(sql());
    await repo.create('s1', user, 'hash-1', 1000, 1000 + DAY);
    expect(await repo.findToken('hash-1')).toEqual({
      token_hash: 'hash-1', session_id: 's1', user_id: user, created_at: 1000, expires_at: 1000 + DAY, used_at: null, session_revoked_at: null,
    });
    expect(await repo.findToken('nope')).toBeUndefined();
    expect(await repo.isLive('s1', user)).toBe(true);
    expect(await repo.isLive('s1', user + 1)).toBe(false);
  });

  it('rotates a token once: a second rotation of the same token is refused, also when both run at the same moment', async () => {
    const repo = createSessionsRepo(sql().db);
    const user = await insertTestUser(sql());
    await repo.create('s1', user, 'old', 1000, 1000 + DAY);
    const results = await Promise.all([
      repo.rotate('old', 'next-a', 's1', user, 2000, 2000 + DAY),
      repo.rotate('old', 'next-b', 's1', user, 2000, 2000 + DAY),
    ]);
    expect(results.filter(Boolean)).toHaveLength(1);
    expect((await repo.findToken('old'))?.used_at).toBe(2000);
    const winner = results[0] ? 'next-a' : 'next-b';
    const loser = results[0] ? 'next-b' : 'next-a';
    expect(await repo.findToken(winner)).toMatchObject({ session_id: 's1', used_at: null });
    expect(await repo.findToken(loser)).toBeUndefined();
    expect(await repo.rotate('old', 'next-c', 's1', user, 3000, 3000 + DAY)).toBe(false);
  });

  it('revokes one session, or every other session of the user, and says which are live', async () => {
    const repo = createSessionsRepo(sql().db);
    const ann = await insertTestUser(sql());
    const bob = await insertTestUser(sql());
    for (const s of ['a1', 'a2', 'a3']) await repo.create(s, ann, `h-${s}`, 1000, 1000 + DAY);
    await repo.create('b1', bob, 'h-b1', 1000, 1000 + DAY);
    await repo.revoke('a1', 'logout', 5000);
    expect((await repo.findToken('h-a1'))?.session_revoked_at).toBe(5000);
    await repo.revokeOthers(ann, 'a2', 'password change', 6000);
    expect([await repo.isLive('a1', ann), await repo.isLive('a2', ann), await repo.isLive('a3', ann), await repo.isLive('b1', bob)])
      .toEqual([false, true, false, true]);
    // A revoked session keeps the time and reason it ended first.
    await repo.revoke('a1', 'again', 7000);
    expect((await repo.findToken('h-a1'))?.session_revoked_at).toBe(5000);
  });

  it('prunes expired tokens, then sessions that are revoked or hold no token, and counts both', async () => {
    const repo = createSessionsRepo(sql().db);
    const user = await insertTestUser(sql());
    await repo.create('expired', user, 'h-expired', 1000, 2000);
    await repo.create('revoked', user, 'h-revoked', 1000, 1000 + DAY);
    await repo.create('live', user, 'h-live', 1000, 1000 + DAY);
    await repo.addToken('h-live-2', 'live', user, 1500, 1500 + DAY);
    await repo.revoke('revoked', 'logout', 1500);
    expect(await repo.prune(3000)).toEqual({ tokens: 1, sessions: 2 });
    expect(await repo.isLive('live', user)).toBe(true);
    expect(await repo.findToken('h-live-2')).toMatchObject({ session_id: 'live' });
    expect(await repo.findToken('h-revoked')).toBeUndefined();
    expect(await repo.prune(3000)).toEqual({ tokens: 0, sessions: 0 });
  });
});
