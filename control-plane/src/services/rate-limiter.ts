import { Counter, type Registry } from 'prom-client';
import { AppError } from '../errors';
import type { Config } from '../config';
import type { RateLimitRepo } from '../store/rate-limit-repo';

export type LimitBucket = 'login_ip' | 'signup_ip' | 'refresh_ip' | 'twofa_ip' | 'account_fail' | 'endpoint_mutation'
  | 'checkout_ip' | 'test_send_user' | 'test_send_person' | 'test_send_method' | 'verify_email_user'
  | 'status_password' | 'subscribe_email' | 'subscribe_page' | 'invitation_user' | 'browser_run';

export interface LimitRule {
  max: number;
  windowSeconds: number;
  /** The 429 text; 'Too many attempts. Please try again later.' unless set. */
  message?: string;
}

/** Test sends per user and per method in ten minutes: a test send is a free relay otherwise. */
export const TEST_SENDS_PER_WINDOW = 5;
export const TEST_SEND_LIMITED = 'Too many test sends. Please wait a few minutes and try again.';

/** "Run now" browser runs per workspace in ten minutes. */
export const BROWSER_RUNS_PER_WINDOW = 20;

/** Every bucket's allowance; the configurable ones come from RATE_LIMIT_*. */
export function rateLimitRules(rl: Config['rateLimits']): Record<LimitBucket, LimitRule> {
  const perWindow = (max: number) => ({ max, windowSeconds: rl.windowSeconds });
  return {
    login_ip: perWindow(rl.ipLogins),
    signup_ip: perWindow(rl.ipSignups),
    refresh_ip: perWindow(rl.ipRefreshes),
    twofa_ip: perWindow(rl.ipLogins),
    account_fail: perWindow(rl.accountFailures),
    endpoint_mutation: { max: rl.endpointMutationsPerMinute, windowSeconds: 60, message: 'Too many changes to endpoints. Please wait a minute and try again.' },
    // Anonymous checkouts per address, test sends and verification mails: each sends mail or costs money.
    checkout_ip: { ...perWindow(rl.ipSignups), message: 'Too many checkouts from this address. Please try again later.' },
    test_send_user: { max: TEST_SENDS_PER_WINDOW, windowSeconds: 600, message: TEST_SEND_LIMITED },
    // the same allowance per person across all their workspaces (a new workspace is not a new one)
    test_send_person: { max: TEST_SENDS_PER_WINDOW, windowSeconds: 600, message: TEST_SEND_LIMITED },
    test_send_method: { max: TEST_SENDS_PER_WINDOW, windowSeconds: 600, message: TEST_SEND_LIMITED },
    verify_email_user: { max: 3, windowSeconds: 3600, message: 'Too many verification emails. Please try again later.' },
    // Each invitation is a mail to an address the member chose.
    invitation_user: { max: 30, windowSeconds: 3600, message: 'Too many invitations. Please try again later.' },
    // "Run now" of a browser check, per workspace: each run holds a Chromium on an agent.
    browser_run: { max: BROWSER_RUNS_PER_WINDOW, windowSeconds: 600, message: 'Too many browser runs. Please wait a few minutes and try again.' },
    // Status pages: wrong page passwords per address and page, subscriptions per address and per page.
    status_password: { max: 10, windowSeconds: 600 },
    subscribe_email: { max: 3, windowSeconds: 3600, message: 'Too many subscription requests. Please try again later.' },
    subscribe_page: { max: 100, windowSeconds: 3600, message: 'Too many subscription requests. Please try again later.' },
  };
}

/** One counted attempt, so a caller can take it back once it turns out to be a success. */
export type AttemptId = number;

export interface RateLimiter {
  /** Throws 429 when the key already used its allowance in the window. */
  check(bucket: LimitBucket, key: string): Promise<void>;
  /** Counts an attempt, then throws 429 (taking it back) when it goes past the allowance. Callers
   *  consume BEFORE the slow part (a password hash), so parallel requests cannot all pass. */
  consume(bucket: LimitBucket, key: string): Promise<AttemptId>;
  /** Takes back one counted attempt (a login that needed no penalty). */
  undo(attempt: AttemptId): Promise<void>;
  reset(bucket: LimitBucket, key: string): Promise<void>;
}

export function createRateLimiter(
  repo: RateLimitRepo,
  rules: Record<LimitBucket, LimitRule>,
  opts: { now?: () => number; metrics?: Registry } = {},
): RateLimiter {
  const now = opts.now ?? Date.now;
  const refused = opts.metrics
    ? new Counter({ name: 'upfleet_rate_limited_total', help: 'Requests refused with 429, by limit', labelNames: ['bucket'], registers: [opts.metrics] })
    : null;
  const longestWindowMs = Math.max(...Object.values(rules).map((r) => r.windowSeconds)) * 1000;
  let lastPrune = 0;

  async function refuse(bucket: LimitBucket, key: string, t: number): Promise<never> {
    const windowMs = rules[bucket].windowSeconds * 1000;
    const oldest = (await repo.oldest(bucket, key, t - windowMs)) ?? t;
    const retryAfter = Math.max(1, Math.ceil((oldest + windowMs - t) / 1000));
    refused?.inc({ bucket });
    throw new AppError('rate_limited', rules[bucket].message ?? 'Too many attempts. Please try again later.', { retryAfter });
  }

  const limiter: RateLimiter = {
    async check(bucket, key) {
      const t = now();
      if (t - lastPrune > 60_000) {
        lastPrune = t;
        await repo.prune(t - 24 * 3600_000 - longestWindowMs);
      }
      if (await repo.count(bucket, key, t - rules[bucket].windowSeconds * 1000) >= rules[bucket].max) await refuse(bucket, key, t);
    },
    async consume(bucket, key) {
      await limiter.check(bucket, key);
      // Record first, then count (the own row included): of two processes racing for the last
      // attempt, the one that counts later sees the other's row, so both cannot pass.
      const t = now();
      const id = await repo.record(bucket, key, t);
      if (await repo.count(bucket, key, t - rules[bucket].windowSeconds * 1000) > rules[bucket].max) {
        await repo.remove(id);
        await refuse(bucket, key, t);
      }
      return id;
    },
    async undo(attempt) {
      await repo.remove(attempt);
    },
    async reset(bucket, key) {
      await repo.clear(bucket, key);
    },
  };
  return limiter;
}
