// Building blocks of the REST schemas: each rule written once, each failure carrying its SPEC message.
import { z } from 'zod';
import { DEFAULT_TIME_ZONE, TIME_ZONE_ERROR, isTimeZone } from '../time-zone';

/** The one email rule (server and web forms). */
const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
export const isEmail = (v: string): boolean => EMAIL_RE.test(v.trim());

/**
 * A plain mailbox `local@domain` and nothing else: a dot-atom local part and a host name. The loose
 * rule above lets through what a mail library reads as the same mailbox dressed up (`a:x@y.z;`,
 * `"Name"<x@y.z>`, `x@y.z(comment)`), so every variant would count as a new address.
 */
const MAILBOX_RE = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;
export const isMailbox = (v: string): boolean => {
  const t = v.trim();
  return t.length <= 254 && t.indexOf('@') <= 64 && MAILBOX_RE.test(t);
};

/** The one http(s) URL rule: parses, is http or https, has a host. */
export function isHttpUrl(value: string): boolean {
  try {
    const u = new URL(value.trim());
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname.length > 0;
  } catch {
    return false;
  }
}

/**
 * The fixed-offset values of before IANA names (UTC-12 .. UTC+14 with UTC+5:30): still accepted
 * and applied as fixed offsets (proto/time-zone.ts); pickers offer IANA names (timeZoneOptions).
 */
export const TIMEZONES: readonly string[] = (() => {
  const list: string[] = [];
  for (let h = -12; h <= 14; h++) {
    list.push(h === 0 ? 'UTC' : `UTC${h > 0 ? '+' : ''}${h}`);
    if (h === 5) list.push('UTC+5:30');
  }
  return list;
})();

/** A profile's or status page's zone: an IANA name or a fixed-offset value; UTC when absent. */
export const timeZoneField = () =>
  z.string({ error: TIME_ZONE_ERROR }).trim().max(64, TIME_ZONE_ERROR).refine(isTimeZone, { message: TIME_ZONE_ERROR }).default(DEFAULT_TIME_ZONE)
    .meta({ description: "An IANA time zone ('Europe/Berlin'); 'UTC+2'-style fixed offsets are still accepted. Default UTC." });

/** A non-blank string, trimmed: `{label} is required` when missing or blank, a length cap beside it. */
export const requiredText = (label: string, max = 1000) =>
  z
    .string({ error: `${label} is required` })
    .trim()
    .min(1, `${label} is required`)
    .max(max, `${label} must be at most ${max} characters long`);

/** Optional text: absent or null becomes ''. */
export const optionalText = (label: string, max = 1000) =>
  z
    .string({ error: `${label} must be text` })
    .trim()
    .max(max, `${label} must be at most ${max} characters long`)
    .nullish()
    .transform((v) => v ?? '');

/** Optional boolean `field`: absent or null takes `def`, anything else but true/false is refused. */
export const flag = (field: string, def: boolean) =>
  z
    .boolean({ error: `${field} must be true or false` })
    .nullish()
    .transform((v) => v ?? def);

/** An email address, lower-cased (the account key). */
export const emailAddress = (label = 'Email') =>
  requiredText(label, 254)
    .refine(isEmail, 'Please enter a valid email address')
    .transform((v) => v.toLowerCase());

/** A plain mailbox, lower-cased: where one address must stay one key (mail to strangers, its limits). */
export const mailboxAddress = (label = 'Email') =>
  requiredText(label, 254)
    .refine(isMailbox, 'Please enter a valid email address')
    .transform((v) => v.toLowerCase());

export type Checked<T> = { ok: true; data: T } | { ok: false; error: string };

/** Parses `value` with `schema`: the typed data, or the first failure's message (the SPEC's text). */
export function check<S extends z.ZodType>(schema: S, value: unknown): Checked<z.output<S>> {
  const r = schema.safeParse(value);
  return r.success ? { ok: true, data: r.data } : { ok: false, error: r.error.issues[0]?.message ?? 'Invalid input' };
}

/** First failure message of `schema` for `value`, or null when it passes (web forms). */
export function firstError(schema: z.ZodType, value: unknown): string | null {
  const r = check(schema, value);
  return r.ok ? null : r.error;
}
