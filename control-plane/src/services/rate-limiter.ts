import { AppError } from '../errors';
import type { RateLimitRepo } from '../store/rate-limit-repo';

export type LimitBucket = 'login_ip' | 'signup_ip' | 'refresh_ip' | 'twofa_ip' | 'account_fail';

export interface RateLimiter {
  /** Throws 429 when the key already used its allowance in the window. */
  check(bucket: LimitBucket, key: string): void;
  /** Counts one attempt (or one failure, for account_fail). */
  hit(bucket: LimitBucket, key: string): void;
  /** check + hit in one go, for buckets that count every attempt. */
  consume(bucket: LimitBucket, key: string): void;
  reset(bucket: LimitBucket, key: string): void;
}

export function createRateLimiter(
  repo: RateLimitRepo,
  limits: Record<LimitBucket, number>,
  windowSeconds: number,
  now: () => number = Date.now,
): RateLimiter {
  const windowMs = windowSeconds * 1000;
  let lastPrune = 0;
  const limiter: RateLimiter = {
    check(bucket, key) {
      const t = now();
      if (t - lastPrune > 60_000) {
        repo.prune(t - 24 * 3600_000 - windowMs);
        lastPrune = t;
      }
      if (repo.count(bucket, key, t - windowMs) >= limits[bucket]) {
        const oldest = repo.oldest(bucket, key, t - windowMs) ?? t;
        const retryAfter = Math.max(1, Math.ceil((oldest + windowMs - t) / 1000));
        throw new AppError('rate_limited', 'Too many attempts. Please try again later.', { retryAfter });
      }
    },
    hit(bucket, key) {
      repo.record(bucket, key, now());
    },
    consume(bucket, key) {
      limiter.check(bucket, key);
      limiter.hit(bucket, key);
    },
    reset(bucket, key) {
      repo.clear(bucket, key);
    },
  };
  return limiter;
}
