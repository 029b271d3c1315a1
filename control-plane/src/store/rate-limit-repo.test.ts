// The rate-limit repo and the limiter over it, on both databases: counts, windows, undo, and the
// last attempt of an allowance given to one of several requests racing for it.
import { describe, expect, it } from 'vitest';
import { AppError } from '../errors';
import { createRateLimiter, rateLimitRules, type LimitBucket, type LimitRule } from '../services/rate-limiter';
import { freshSql, SQL_DIALECTS } from '../testing/sql';
import { createRateLimitRepo } from './rate-limit-repo';

const rules = (max: number): Record<LimitBucket, LimitRule> => {
  const all = rateLimitRules({ windowSeconds: 60, ipLogins: max, ipSignups: max, ipRefreshes: max, accountFailures: max, endpointMutationsPerMinute: max } as Parameters<typeof rateLimitRules>[0]);
  return Object.fromEntries(Object.entries(all).map(([k, r]) => [k, { ...r, max, windowSeconds: 60 }])) as Record<LimitBucket, LimitRule>;
};

async function refusal(p: Promise<unknown>): Promise<AppError | null> {
  try {
    await p;
    return null;
  } catch (err) {
    return err as AppError;
  }
}

describe.each(SQL_DIALECTS)('rate limits on $title', (d) => {
  const sql = freshSql(d);

  it('counts events of one bucket and key inside the window, finds the oldest, removes one, clears and prunes', async () => {
    const repo = createRateLimitRepo(sql().db);
    const a = await repo.record('login_ip', '1.2.3.4', 1000);
    await repo.record('login_ip', '1.2.3.4', 2000);
    await repo.record('login_ip', '5.6.7.8', 2000);
    await repo.record('signup_ip', '1.2.3.4', 2000);
    expect(await repo.count('login_ip', '1.2.3.4', 0)).toBe(2);
    expect(await repo.count('login_ip', '1.2.3.4', 1000)).toBe(1);
    expect(await repo.oldest('login_ip', '1.2.3.4', 0)).toBe(1000);
    expect(await repo.oldest('login_ip', 'nobody', 0)).toBeNull();
    await repo.remove(a);
    expect(await repo.count('login_ip', '1.2.3.4', 0)).toBe(1);
    await repo.clear('login_ip', '1.2.3.4');
    expect(await repo.count('login_ip', '1.2.3.4', 0)).toBe(0);
    expect(await repo.count('login_ip', '5.6.7.8', 0)).toBe(1);
    await repo.prune(2001);
    expect(await repo.count('signup_ip', '1.2.3.4', 0)).toBe(0);
  });

  it('refuses with 429 and a Retry-After once the allowance is used, and lets an undone attempt count no more', async () => {
    let t = 100_000;
    const limiter = createRateLimiter(createRateLimitRepo(sql().db), rules(2), { now: () => t });
    const first = await limiter.consume('login_ip', 'ip');
    t += 10_000;
    await limiter.consume('login_ip', 'ip');
    const refused = await refusal(limiter.consume('login_ip', 'ip'));
    expect(refused?.code).toBe('rate_limited');
    expect(refused?.extra).toEqual({ retryAfter: 50 });
    expect((await refusal(limiter.check('login_ip', 'ip')))?.code).toBe('rate_limited');
    expect(await refusal(limiter.check('login_ip', 'other'))).toBeNull();
    await limiter.undo(first);
    await limiter.consume('login_ip', 'ip');
    await limiter.reset('login_ip', 'ip');
    await limiter.consume('login_ip', 'ip');
    // Past the window the old attempts no longer count.
    t += 61_000;
    await limiter.consume('login_ip', 'ip');
    await limiter.consume('login_ip', 'ip');
  });

  it('gives the last attempt to one of several requests consuming at the same moment', async () => {
    const limiter = createRateLimiter(createRateLimitRepo(sql().db), rules(3), { now: () => 500_000 });
    await limiter.consume('signup_ip', 'ip');
    await limiter.consume('signup_ip', 'ip');
    const outcomes = await Promise.all(Array.from({ length: 6 }, () => refusal(limiter.consume('signup_ip', 'ip'))));
    expect(outcomes.filter((o) => o === null).length).toBeLessThanOrEqual(1);
    expect(outcomes.filter((o) => o !== null).every((o) => o?.code === 'rate_limited')).toBe(true);
    // Refused attempts are taken back: the count stays at the allowance.
    expect(await createRateLimitRepo(sql().db).count('signup_ip', 'ip', 0)).toBeLessThanOrEqual(3);
  });
});
