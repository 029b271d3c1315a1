import crypto from 'node:crypto';
import type { ErrorRequestHandler, Request, RequestHandler, Response } from 'express';
import { AppError, HTTP_STATUS } from '../../errors';
import type { Logger } from '../../logger';
import { escapeHtml } from '../../alerting/render';

/** A browser's page load or form post (not an API call): it must get a page it can show, never API JSON. */
export const wantsPage = (req: Request): boolean =>
  !req.originalUrl.startsWith('/api/') && req.accepts(['json', 'html']) === 'html';

/** A small HTML page for a failed page load, with a way back into the app. */
export function sendErrorPage(res: Response, status: number, heading: string, text: string): void {
  res.status(status).set('Cache-Control', 'no-store').type('html').send(
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(heading)} · Upfleet</title></head>` +
      `<body style="font-family:system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem">` +
      `<h1>${escapeHtml(heading)}</h1><p>${escapeHtml(text)}</p><p><a href="/">Upfleet home</a></p></body></html>`,
  );
}

/** The one place errors become HTTP answers: `{ success: false, error }`, never a stack or SQL text. */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    if (wantsPage(req)) return pageError(err, req, res, logger);
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

const NOT_THERE = 'The address may be mistyped, or the page is no longer there.';
const GO_BACK = 'Please go back and try again.';

function pageError(err: unknown, req: Request, res: Response, logger: Logger): void {
  if (err instanceof AppError) {
    const status = HTTP_STATUS[err.code];
    return sendErrorPage(res, status, err.message, status === 404 ? NOT_THERE : GO_BACK);
  }
  const status = (err as { status?: number }).status;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return status === 404 ? sendErrorPage(res, 404, 'Page not found', NOT_THERE) : sendErrorPage(res, status, 'Bad request', GO_BACK);
  }
  const requestId = crypto.randomUUID();
  logger.error({ err, requestId, path: req.path, method: req.method }, 'unhandled error');
  sendErrorPage(res, 500, 'Something went wrong', `Please try again in a moment (request id ${requestId}).`);
}

export const notFoundApi: RequestHandler = (_req, res) => {
  res.status(404).json({ success: false, error: 'Not found' });
};
