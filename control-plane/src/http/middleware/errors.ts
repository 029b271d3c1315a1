import crypto from 'node:crypto';
import type { ErrorRequestHandler, RequestHandler } from 'express';
import { AppError, HTTP_STATUS } from '../../errors';
import type { Logger } from '../../logger';

/** The one place errors become HTTP answers: `{ success: false, error }`, never a stack or SQL text. */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    if (err instanceof AppError) {
      if (err.code === 'rate_limited' && typeof err.extra.retryAfter === 'number') res.setHeader('Retry-After', String(err.extra.retryAfter));
      const { retryAfter: _r, ...extra } = err.extra;
      res.status(HTTP_STATUS[err.code]).json({ success: false, error: err.message, ...extra });
      return;
    }
    const e = err as { type?: string; status?: number; message?: string };
    if (e.type === 'entity.parse.failed') {
      res.status(400).json({ success: false, error: 'Request body is not valid JSON' });
      return;
    }
    if (e.type === 'entity.too.large') {
      res.status(413).json({ success: false, error: 'Request body is too large' });
      return;
    }
    if (typeof e.status === 'number' && e.status >= 400 && e.status < 500) {
      res.status(e.status).json({ success: false, error: 'Bad request' });
      return;
    }
    const requestId = crypto.randomUUID();
    logger.error({ err, requestId, path: req.path, method: req.method }, 'unhandled error');
    res.status(500).json({ success: false, error: `Internal server error (request id ${requestId})` });
  };
}

export const notFoundApi: RequestHandler = (_req, res) => {
  res.status(404).json({ success: false, error: 'Not found' });
};
