// Input checks shared by services: each returns the cleaned value or throws a 400 with the SPEC's text.
import { badRequest, notFound } from '../errors';

export const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function requireString(body: Record<string, unknown>, field: string, label: string, max = 1000): string {
  const v = body[field];
  if (typeof v !== 'string' || v.trim() === '') throw badRequest(`${label} is required`);
  if (v.length > max) throw badRequest(`${label} must be at most ${max} characters long`);
  return v.trim();
}

export function optionalString(body: Record<string, unknown>, field: string, label: string, max = 1000): string {
  const v = body[field];
  if (v === undefined || v === null) return '';
  if (typeof v !== 'string') throw badRequest(`${label} must be text`);
  if (v.length > max) throw badRequest(`${label} must be at most ${max} characters long`);
  return v.trim();
}

export function optionalBool(body: Record<string, unknown>, field: string, def: boolean): boolean {
  const v = body[field];
  if (v === undefined || v === null) return def;
  if (typeof v !== 'boolean') throw badRequest(`${field} must be true or false`);
  return v;
}

export function validateUsername(v: string): string {
  if (v.length < 3 || v.length > 30) throw badRequest('Username must be between 3 and 30 characters');
  return v;
}

export function validateEmail(v: string): string {
  if (!EMAIL_RE.test(v) || v.length > 254) throw badRequest('Please enter a valid email address');
  return v.toLowerCase();
}

export function asBody(body: unknown): Record<string, unknown> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return {};
  return body as Record<string, unknown>;
}

export function parseId(raw: unknown, what = 'Not found'): number {
  const s = String(raw);
  if (!/^\d{1,15}$/.test(s)) throw notFound(what);
  return Number(s);
}

/** Valid http(s) URL for a monitor, or a 400 with the SPEC's meaning. */
export function validateMonitorUrl(raw: string): string {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw badRequest('Please enter a valid URL');
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw badRequest('URL must start with http:// or https://');
  if (!u.hostname) throw badRequest('Please enter a valid URL');
  if (u.username || u.password) throw badRequest('URL must not contain a username or password');
  return u.toString();
}

export function validateHttpUrl(raw: string, label: string): string {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw badRequest(`${label} must be a valid URL`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw badRequest(`${label} must be a valid URL`);
  return raw;
}

export const TIMEZONES: string[] = (() => {
  const out = ['UTC'];
  for (let h = -12; h <= 14; h++) {
    if (h === 0) continue;
    out.push(`UTC${h > 0 ? '+' : ''}${h}`);
    if (h === 5) out.push('UTC+5:30');
  }
  return out;
})();
