// One error type for the whole control plane; each edge (HTTP, gRPC) maps its code once.
import type { PlanViolation } from '@upfleet/proto/plan';

export type ErrorCode =
  | 'bad_request'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'rate_limited'
  | 'payload_too_large'
  | 'unavailable'
  | 'timeout'
  | 'internal';

export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'AppError';
  }
}

export const HTTP_STATUS: Record<ErrorCode, number> = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  payload_too_large: 413,
  rate_limited: 429,
  unavailable: 503,
  timeout: 504,
  internal: 500,
};

export const badRequest = (msg: string) => new AppError('bad_request', msg);
export const notFound = (what = 'Not found') => new AppError('not_found', what);
export const unauthorized = (msg = 'Authentication required', extra: Record<string, unknown> = {}) =>
  new AppError('unauthorized', msg, extra);
export const conflict = (msg: string) => new AppError('conflict', msg);
export const forbidden = (msg: string) => new AppError('forbidden', msg);
/** A plan's refusal, with the status the plan table gives it (`REFUSAL_STATUS` in @upfleet/proto/plan). */
export const planRefused = (v: PlanViolation) => new AppError(v.status === 403 ? 'forbidden' : 'bad_request', v.message);
