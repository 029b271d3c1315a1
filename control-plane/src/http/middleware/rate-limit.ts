import type { RequestHandler } from 'express';
import type { LimitBucket, RateLimiter } from '../../services/rate-limiter';
import { AppError } from '../../errors';
import { clientKey } from '../../lib/net';
import { authOf } from './auth';

/** Counts one request per signed-in user in `bucket`; the 429 leaves in the usual error shape.
 *  `message` names what was limited when routes of several kinds share one allowance. */
export function limitPerUser(limiter: RateLimiter, bucket: LimitBucket, message?: string): RequestHandler {
  return async (req, _res, next) => {
    try {
      await limiter.consume(bucket, String(authOf(req).userId));
    } catch (err) {
      if (message && err instanceof AppError && err.code === 'rate_limited') throw new AppError('rate_limited', message, err.extra);
      throw err;
    }
    next();
  };
}

/** At most `perMinute` requests per client address in a fixed minute window, kept in memory (the
 *  unauthenticated public routes: the catalogue and the public checkout). The 429 says when to retry. */
export function limitPerAddress(perMinute: number, now: () => number = Date.now): RequestHandler {
  let windowStart = 0;
  let counts = new Map<string, number>();
  return (req, _res, next) => {
    const t = now();
    if (t - windowStart >= 60_000) {
      windowStart = t - (t % 60_000);
      counts = new Map();
    }
    const key = clientKey(req.ip);
    const n = (counts.get(key) ?? 0) + 1;
    counts.set(key, n);
    if (n > perMinute) {
      const retryAfter = Math.max(1, Math.ceil((windowStart + 60_000 - t) / 1000));
      next(new AppError('rate_limited', 'Too many requests from this address. Please try again in a minute.', { retryAfter }));
      return;
    }
    next();
  };
}
