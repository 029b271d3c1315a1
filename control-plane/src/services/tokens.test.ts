// The token service over the sessions repo, on both databases: what a signed-in user sees when a
// refresh token is rotated, reused, or the session is ended.
import { describe, expect, it } from 'vitest';
import { createSessionsRepo } from '../store/sessions-repo';
import { freshSql, insertTestUser, SQL_DIALECTS } from '../testing/sql';
import { createTokenService } from './tokens';

describe.each(SQL_DIALECTS)('token service on $title', (d) => {
  const sql = freshSql(d);
  let clock = 1_700_000_000_000;
  const service = (reuseGraceSeconds = 0) => createTokenService({
    sessions: createSessionsRepo(sql().db), signingKey: Buffer.alloc(32, 7), accessTtlSeconds: 900, refreshTtlDays: 30,
    reuseGraceSeconds, now: () => clock,
  });

  it('rotates the refresh token; a reused one ends the whole session', async () => {
    const tokens = service();
    const user = await insertTestUser(sql());
    const first = await tokens.issue(user);
    expect(await tokens.verifyAccess(first.accessToken)).toMatchObject({ userId: user });
    clock += 1000;
    const second = await tokens.refresh(first.refreshToken);
    expect(second.refreshToken).not.toBe(first.refreshToken);
    clock += 1000;
    await expect(tokens.refresh(first.refreshToken)).rejects.toThrow('Invalid refresh token');
    await expect(tokens.refresh(second.refreshToken)).rejects.toThrow('Invalid refresh token');
    await expect(tokens.verifyAccess(second.accessToken)).rejects.toThrow('Session has ended');
  });

  it('gives a second tab within the grace a token of the same session instead of ending it', async () => {
    const tokens = service(30);
    const user = await insertTestUser(sql());
    const first = await tokens.issue(user);
    const a = await tokens.refresh(first.refreshToken);
    clock += 5000;
    const b = await tokens.refresh(first.refreshToken);
    expect(b.refreshToken).not.toBe(a.refreshToken);
    expect(await tokens.verifyAccess(b.accessToken)).toMatchObject({ userId: user });
    expect(await tokens.verifyAccess(a.accessToken)).toMatchObject({ userId: user });
  });

  it('ends every other session of the user on revokeOthers, and one on revoke (logout)', async () => {
    const tokens = service();
    const user = await insertTestUser(sql());
    const here = await tokens.issue(user);
    const there = await tokens.issue(user);
    const { sessionId } = await tokens.verifyAccess(here.accessToken);
    await tokens.revokeOthers(user, sessionId, 'password change');
    await expect(tokens.verifyAccess(there.accessToken)).rejects.toThrow('Session has ended');
    await expect(tokens.refresh(there.refreshToken)).rejects.toThrow('Invalid refresh token');
    expect(await tokens.verifyAccess(here.accessToken)).toMatchObject({ sessionId });
    await tokens.revoke(sessionId);
    await expect(tokens.verifyAccess(here.accessToken)).rejects.toThrow('Session has ended');
    expect(await tokens.prune()).toEqual({ sessions: 2, tokens: 0 });
  });
});
