// Display rules of SPEC sections 3, 8 and 9: currency symbols, badges, classes and dates.
import { formatDuration } from '@upfleet/proto/duration';
import { FEATURE_LABELS, type Currency, type Feature, type GraphFunction } from '@upfleet/proto/rest';
import { regionKey, regionKeyLabel, regionLabel } from '@upfleet/proto/regions';

const SYMBOLS: Record<string, string> = { EUR: '€', USD: '$', GBP: '£', JPY: '¥' };

export function currencySymbol(currency: Currency | string | null | undefined): string {
  return (currency && SYMBOLS[currency]) || '€';
}

export function formatPrice(price: number, currency?: Currency | string | null): string {
  const digits = currency === 'JPY' || Number.isInteger(price) ? 0 : 2;
  return `${currencySymbol(currency)}${Number(price).toFixed(digits)}`;
}

type Tone = 'green' | 'yellow' | 'orange' | 'red' | 'grey';

/** 7-day uptime badge: null is shown as 100 (dashboard default). */
export function uptimeBadge(uptime: number | null | undefined): { text: string; tone: Tone } {
  const value = uptime === null || uptime === undefined || Number.isNaN(uptime) ? 100 : uptime;
  const tone: Tone = value >= 99.5 ? 'green' : value >= 95 ? 'yellow' : 'red';
  return { text: `${value.toFixed(2)}%`, tone };
}

export function statusCodeClass(code: number): { label: string; tone: Tone } {
  if (code >= 200 && code < 300) return { label: 'Success', tone: 'green' };
  if (code >= 300 && code < 400) return { label: 'Redirect', tone: 'yellow' };
  if (code >= 400 && code < 500) return { label: 'Client Error', tone: 'orange' };
  if (code >= 500 && code < 600) return { label: 'Server Error', tone: 'red' };
  return { label: 'No Response', tone: 'grey' };
}

/** Share of 2xx among checks, one decimal. */
export function successShare(codes: number[]): string {
  if (codes.length === 0) return '0.0';
  const ok = codes.filter((c) => c >= 200 && c < 300).length;
  return ((ok / codes.length) * 100).toFixed(1);
}

export function certStatus(days: number): { label: 'Safe' | 'Warning' | 'Critical'; tone: Tone } {
  if (days > 30) return { label: 'Safe', tone: 'green' };
  if (days > 7) return { label: 'Warning', tone: 'yellow' };
  return { label: 'Critical', tone: 'red' };
}

/** Width of the certificate bar on a 365-day scale, 0..100. */
export function certBarPercent(days: number): number {
  return Math.max(0, Math.min(100, (days / 365) * 100));
}

/** High, low and average with `digits` decimals (response codes: 0, whole numbers). */
export function seriesStats(values: number[], digits = 2): { high: string; low: string; avg: string } | null {
  if (values.length === 0) return null;
  let high = -Infinity;
  let low = Infinity;
  let sum = 0;
  for (const v of values) {
    if (v > high) high = v;
    if (v < low) low = v;
    sum += v;
  }
  return { high: high.toFixed(digits), low: low.toFixed(digits), avg: (sum / values.length).toFixed(digits) };
}

const SUBSCRIPTION_TONES: Record<string, Tone> = {
  active: 'green',
  canceled: 'red',
  past_due: 'yellow',
  incomplete: 'grey',
};

export function subscriptionTone(status: string | null | undefined): Tone {
  return (status && SUBSCRIPTION_TONES[status]) || 'grey';
}

/** Empty or epoch dates show 'Not available'. */
export function formatDate(value: string | number | null | undefined): string {
  if (value === null || value === undefined || value === '') return 'Not available';
  const d = new Date(typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value);
  if (Number.isNaN(d.getTime()) || d.getTime() <= 0) return 'Not available';
  return d.toLocaleDateString('en-GB', { year: 'numeric', month: 'short', day: 'numeric' });
}

// Defined once in proto (the server and the CLI name regions the same way).
export { regionKey, regionKeyLabel, regionLabel };

export const GRAPH_FUNCTION_LABELS: Record<GraphFunction, string> = {
  response_time: 'Response Time',
  response_code: 'Response Code',
  ping: 'Ping',
  cert_expiry: 'Certificate Expiry',
};

export const GRAPH_UNITS: Record<GraphFunction, string> = {
  response_time: 'ms',
  response_code: '',
  ping: 'ms',
  cert_expiry: 'days',
};

/** UTC-12 .. UTC+14 with UTC+5:30 (SPEC section 9): the profile form's list is the one the server accepts. */
export { TIMEZONES } from '@upfleet/proto/schemas';

/** 'since 14:05' for today, 'since 23 Nov 14:05' before. */
export function sinceLabel(iso: string, now: number = Date.now()): string {
  const d = new Date(iso);
  const time = d.toLocaleTimeString('en-GB', { hour: '2-digit', minute: '2-digit' });
  const sameDay = new Date(now).toDateString() === d.toDateString();
  return sameDay ? `since ${time}` : `since ${d.toLocaleDateString('en-GB', { day: 'numeric', month: 'short' })} ${time}`;
}

/** How long from one instant to another (to now while still open): '3 min 20 s', '2 h 5 min'. */
export function durationLabel(fromIso: string, toIso: string | null, now: number = Date.now()): string {
  return formatDuration((toIso ? Date.parse(toIso) : now) - Date.parse(fromIso));
}

/** What an incident's condition means for a person: 'Down', 'Response Time threshold (US - Virginia)'. */
export function conditionLabel(condition: string): string {
  if (condition === 'down') return 'Down';
  const [, type, region] = condition.split(':');
  const name = FEATURE_LABELS[type as Feature] ?? type;
  return `${name} threshold${region && region !== 'any' ? ` (${regionKeyLabel(region)})` : ''}`;
}
