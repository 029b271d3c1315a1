import { Counter, type Registry } from 'prom-client';
import { AppError } from '../errors';
import type { RateLimitRepo } from '../store/rate-limit-repo';

export type LimitBucket = 'login_ip' | 'signup_ip' | 'refresh_ip' | 'twofa_ip' | 'account_fail' | 'endpoint_mutation'
  | 'checkout_ip' | 'test_send_user' | 'test_send_person' | 'test_send_method' | 'verify_email_user'
  | 'status_password' | 'subscribe_email' | 'subscribe_page' | 'invitation_user';

export interface LimitRule {
  max: number;
  windowSeconds: number;
  /** The 429 text; 'Too many attempts. Please try again later.' unless set. */
  message?: string;
}

/** One counted attempt, so a caller can take it back once it turns out to be a success. */
export type AttemptId = number;

export interface RateLimiter {
  /** Throws 429 when the key already used its allowance in the window. */
  check(bucket: LimitBucket, key: string): void;
  /** check + count in one synchronous step. Callers count an attempt BEFORE awaiting anything
   *  (a password hash), so parallel requests cannot all pass the check before any is counted. */
  consume(bucket: LimitBucket, key: string): AttemptId;
  /** Takes back one counted attempt (a login that needed no penalty). */
  undo(attempt: AttemptId): void;
  reset(bucket: LimitBucket, key: string): void;
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
  const limiter: RateLimiter = {
    check(bucket, key) {
      const t = now();
      if (t - lastPrune > 60_000) {
        repo.prune(t - 24 * 3600_000 - longestWindowMs);
        lastPrune = t;
      }
      const windowMs = rules[bucket].windowSeconds * 1000;
      if (repo.count(bucket, key, t - windowMs) >= rules[bucket].max) {
        const oldest = repo.oldest(bucket, key, t - windowMs) ?? t;
        const retryAfter = Math.max(1, Math.ceil((oldest + windowMs - t) / 1000));
        refused?.inc({ bucket });
        throw new AppError('rate_limited', rules[bucket].message ?? 'Too many attempts. Please try again later.', { retryAfter });
      }
    },
    consume(bucket, key) {
      limiter.check(bucket, key);
      return repo.record(bucket, key, now());
    },
    undo(attempt) {
      repo.remove(attempt);
    },
    reset(bucket, key) {
      repo.clear(bucket, key);
    },
  };
  return limiter;
}
