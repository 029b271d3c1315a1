import type { RequestHandler } from 'express';
import type { LimitBucket, RateLimiter } from '../../services/rate-limiter';
import { authOf } from './auth';

/** Counts one request per signed-in user in `bucket`; the 429 leaves in the usual error shape. */
export function limitPerUser(limiter: RateLimiter, bucket: LimitBucket): RequestHandler {
  return (req, _res, next) => {
    limiter.consume(bucket, String(authOf(req).userId));
    next();
  };
}
