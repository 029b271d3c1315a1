// Display rules of SPEC sections 3, 8 and 9: currency symbols, badges, classes, and the app's one date formatter.
import { formatDuration } from '@upfleet/proto/duration';
import { intlTimeZone, isTimeZone, zonedDate } from '@upfleet/proto/time-zone';
import { FEATURE_LABELS, type CodeBucket, type CodeClass, type Feature, type GraphFunction, type GraphSeries } from '@upfleet/proto/rest';
import { regionKey, regionKeyLabel, regionLabel } from '@upfleet/proto/regions';

const SYMBOLS: Record<string, string> = { EUR: '€', USD: '$', GBP: '£', JPY: '¥' };

export function currencySymbol(currency: string | null | undefined): string {
  return (currency && SYMBOLS[currency]) || '€';
}

export function formatPrice(price: number, currency?: string | null): string {
  const digits = currency === 'JPY' || Number.isInteger(price) ? 0 : 2;
  return `${currencySymbol(currency)}${Number(price).toFixed(digits)}`;
}

type Tone = 'green' | 'yellow' | 'orange' | 'red' | 'grey';

/** The uptime badge's colour for a percentage: at least 99.5 green, at least 95 yellow, below red. */
export const uptimeTone = (value: number): Tone => (value >= 99.5 ? 'green' : value >= 95 ? 'yellow' : 'red');

/** 7-day uptime badge: null is shown as 100 (dashboard default). */
export function uptimeBadge(uptime: number | null | undefined): { text: string; tone: Tone } {
  const value = uptime === null || uptime === undefined || Number.isNaN(uptime) ? 100 : uptime;
  const tone = uptimeTone(value);
  return { text: `${value.toFixed(2)}%`, tone };
}

export function statusCodeClass(code: number): { label: string; tone: Tone } {
  if (code >= 200 && code < 300) return { label: 'Success', tone: 'green' };
  if (code >= 300 && code < 400) return { label: 'Redirect', tone: 'yellow' };
  if (code >= 400 && code < 500) return { label: 'Client Error', tone: 'orange' };
  if (code >= 500 && code < 600) return { label: 'Server Error', tone: 'red' };
  return { label: 'No Response', tone: 'grey' };
}

/** The response-code chart's classes: label and colour, in stacking order. */
export const CODE_CLASS_STYLE: Record<CodeClass, { label: string; color: string; tone: Tone }> = {
  '2xx': { label: '2xx', color: '#10b981', tone: 'green' },
  '3xx': { label: '3xx', color: '#f59e0b', tone: 'yellow' },
  '4xx': { label: '4xx', color: '#f97316', tone: 'orange' },
  '5xx': { label: '5xx', color: '#ef4444', tone: 'red' },
  failed: { label: 'Failed', color: '#6b7280', tone: 'grey' },
};

/** A bucket's class counts from its codes, for an answer without `codes` (one check per point). */
export function codeBuckets(series: Pick<GraphSeries, 'data' | 'codes'>): CodeBucket[] {
  if (series.codes) return series.codes;
  return series.data.map(([t, v]) => {
    const code = Math.round(v);
    const cls: CodeClass = code >= 200 && code < 300 ? '2xx' : code >= 300 && code < 400 ? '3xx' : code >= 400 && code < 500 ? '4xx' : code >= 500 ? '5xx' : 'failed';
    const classes = { '2xx': 0, '3xx': 0, '4xx': 0, '5xx': 0, failed: 0, [cls]: 1 };
    return { t, checks: 1, passed: cls === '2xx' ? 1 : 0, classes };
  });
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

// ---- dates and times: one formatter for the whole app ----
// Every instant on screen is shown in the user's zone (their profile's, set by the app when the
// user is known; the browser's before), in one style for date-times, one for dates, one for times
// (24-hour clock) and one for chart axes. The words are the app's English with day-month order
// ('20 Nov 2026, 14:05'), which no reader mistakes for month-day.
const LOCALE = 'en-GB';

let shownZone: string | null = null;
const browserZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
/** The zone dates are shown in from now on (null: the browser's). */
export function setDisplayZone(zone: string | null | undefined): void {
  shownZone = zone && isTimeZone(zone) ? zone : null;
}
export const displayZone = (): string => shownZone ?? browserZone();

type Style = 'datetime' | 'date' | 'time' | 'seconds' | 'dayMonth';
const STYLES: Record<Style, Intl.DateTimeFormatOptions> = {
  datetime: { day: 'numeric', month: 'short', year: 'numeric', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' },
  date: { day: 'numeric', month: 'short', year: 'numeric' },
  time: { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' },
  seconds: { hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' },
  dayMonth: { day: 'numeric', month: 'short' },
};
const formatters = new Map<string, Intl.DateTimeFormat>();
function show(ms: number, style: Style, zone: string = displayZone()): string {
  const { timeZone, shiftMs } = intlTimeZone(zone);
  const key = `${style}|${timeZone}`;
  let f = formatters.get(key);
  if (!f) formatters.set(key, (f = new Intl.DateTimeFormat(LOCALE, { ...STYLES[style], timeZone })));
  return f.format(new Date(ms + shiftMs));
}
function instant(value: string | number | Date | null | undefined): number | null {
  if (value === null || value === undefined || value === '') return null;
  const ms = value instanceof Date ? value.getTime() : typeof value === 'number' ? value : /^\d+$/.test(value) ? Number(value) : Date.parse(value);
  return Number.isFinite(ms) ? ms : null;
}

/** A date and time: '27 Nov 2026, 14:05'; '' for no value. */
export function formatDateTime(value: string | number | Date | null | undefined, zone?: string): string {
  const ms = instant(value);
  return ms === null ? '' : show(ms, 'datetime', zone);
}

/** A time of day, 24-hour: '14:05', with seconds '14:05:09'. */
export function formatTime(value: string | number | Date, opts: { seconds?: boolean; zone?: string } = {}): string {
  const ms = instant(value);
  return ms === null ? '' : show(ms, opts.seconds ? 'seconds' : 'time', opts.zone);
}

/** A chart axis label: times of day for a range up to two days, day and month beyond. */
export function formatAxis(ms: number, spanMs: number, zone?: string): string {
  return show(ms, spanMs <= 2 * 86_400_000 ? 'time' : 'dayMonth', zone);
}

/** Empty or epoch dates show 'Not available'. */
export function formatDate(value: string | number | null | undefined, zone?: string): string {
  const ms = instant(value);
  if (ms === null || ms <= 0) return 'Not available';
  return show(ms, 'date', zone);
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

/** The fixed offsets of before IANA names (UTC-12 .. UTC+14 with UTC+5:30), still accepted; pickers: components/TimeZoneSelect.tsx. */
export { TIMEZONES } from '@upfleet/proto/schemas';

/** 'since 14:05' for today (in the shown zone), 'since 23 Nov 14:05' before. */
export function sinceLabel(iso: string, now: number = Date.now(), zone: string = displayZone()): string {
  return `since ${clockLabel(Date.parse(iso), now, zone)}`;
}

/** A time of day, with its day and month when that is not today: '11:20', '3 Jul 11:20'. */
export function clockLabel(ms: number, now: number = Date.now(), zone: string = displayZone()): string {
  const time = show(ms, 'time', zone);
  return zonedDate(ms, zone) === zonedDate(now, zone) ? time : `${show(ms, 'dayMonth', zone)} ${time}`;
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
