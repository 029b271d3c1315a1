import type { RequestHandler } from 'express';

/**
 * The built web app (Vite) loads only same-origin script and CSS files, so scripts need no
 * 'unsafe-inline'. Styles do: apexcharts builds its tooltips and legends with inline style
 * attributes and <style> elements. Images include data: URLs (the favicon, the 2FA QR code) and
 * blob: URLs (browser checks' screenshots, fetched with the session's token and shown from a Blob).
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

export const securityHeaders: RequestHandler = (_req, res, next) => {
  res.setHeader('Content-Security-Policy', CONTENT_SECURITY_POLICY);
  res.setHeader('X-Frame-Options', 'DENY'); // frame-ancestors for browsers that predate CSP 2
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'same-origin');
  next();
};
