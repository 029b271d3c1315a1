// The one time-zone rule of the API, the web app and the CLI: a zone is an IANA name ('UTC',
// 'Europe/Berlin', 'Asia/Kathmandu'), so daylight saving time follows the place. Values stored or
// sent before IANA names ('UTC+2', 'UTC-5', 'UTC+5:30') stay valid as fixed offsets: whole hours
// are the Etc/GMT zones (whose sign is inverted by POSIX: UTC+2 is Etc/GMT-2); a half or quarter
// hour has no Etc zone and is computed from the offset. Browser-safe: Intl only.

export const DEFAULT_TIME_ZONE = 'UTC';

const FIXED_RE = /^UTC([+-])(\d{1,2})(?::(\d{2}))?$/;

/** Minutes east of UTC of a fixed-offset value ('UTC+5:30' → 330); null for anything else. */
export function fixedOffsetMinutes(zone: string): number | null {
  const m = FIXED_RE.exec(zone);
  if (!m) return null;
  const hours = Number(m[2]);
  const minutes = Number(m[3] ?? 0);
  if (hours > 14 || ![0, 30, 45].includes(minutes) || (hours === 14 && minutes > 0)) return null;
  const total = hours * 60 + minutes;
  return m[1] === '-' ? -total : total;
}

function intlKnows(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/**
 * The IANA zone Intl and croner are given for a value: the name itself, or the Etc/GMT zone of a
 * whole-hour offset; null for an offset with minutes (computed from the offset instead) or an
 * unknown value.
 */
export function ianaZone(zone: string): string | null {
  const fixed = fixedOffsetMinutes(zone);
  if (fixed !== null) {
    if (fixed % 60 !== 0) return null;
    const h = -fixed / 60;
    return h === 0 ? 'UTC' : `Etc/GMT${h > 0 ? '+' : ''}${h}`;
  }
  return zone !== '' && intlKnows(zone) ? zone : null;
}

/** Whether a value names a zone: an IANA name the runtime knows, or a 'UTC+2'-style offset. */
export function isTimeZone(zone: string): boolean {
  return fixedOffsetMinutes(zone) !== null || ianaZone(zone) !== null;
}

/** The message a refused zone carries (API and forms). */
export const TIME_ZONE_ERROR = 'Please choose a timezone from the list';

// Names newer than the ones some ICU versions list (Node 20 lists Asia/Katmandu and accepts Asia/Kathmandu).
const CURRENT_NAMES: Record<string, string> = {
  'Asia/Katmandu': 'Asia/Kathmandu', 'Asia/Calcutta': 'Asia/Kolkata', 'Europe/Kiev': 'Europe/Kyiv', 'Asia/Saigon': 'Asia/Ho_Chi_Minh',
  'Asia/Rangoon': 'Asia/Yangon', 'America/Godthab': 'America/Nuuk', 'Atlantic/Faeroe': 'Atlantic/Faroe', 'Pacific/Enderbury': 'Pacific/Kanton',
};

let options: string[] | null = null;
/** The zones a picker offers: UTC first, then every IANA name of the runtime, by name. */
export function timeZoneOptions(): string[] {
  if (options) return options;
  const listed = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
  const names = listed.map((z) => (CURRENT_NAMES[z] && intlKnows(CURRENT_NAMES[z]) ? CURRENT_NAMES[z] : z));
  options = [DEFAULT_TIME_ZONE, ...[...new Set(names)].filter((z) => z !== DEFAULT_TIME_ZONE).sort()];
  return options;
}

/** A picker's options with a stored value it does not list (a 'UTC+2' of before) kept first. */
export function timeZoneChoices(current: string): string[] {
  const list = timeZoneOptions();
  return current && !list.includes(current) ? [current, ...list] : list;
}

const partsCache = new Map<string, Intl.DateTimeFormat>();
function wallParts(ms: number, iana: string): { y: number; mo: number; d: number; h: number; mi: number; s: number } {
  let f = partsCache.get(iana);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone: iana, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' });
    partsCache.set(iana, f);
  }
  const p: Record<string, number> = {};
  for (const part of f.formatToParts(new Date(ms))) if (part.type !== 'literal') p[part.type] = Number(part.value);
  return { y: p.year, mo: p.month, d: p.day, h: p.hour % 24, mi: p.minute, s: p.second };
}

/** Minutes east of UTC in `zone` at the instant `ms` (DST included); 0 for an unknown zone. */
export function zoneOffsetMinutes(zone: string, ms: number): number {
  const fixed = fixedOffsetMinutes(zone);
  if (fixed !== null) return fixed;
  const iana = ianaZone(zone);
  if (!iana) return 0;
  const w = wallParts(ms, iana);
  const asUtc = Date.UTC(w.y, w.mo - 1, w.d, w.h, w.mi, w.s);
  return Math.round((asUtc - (Math.floor(ms / 1000) * 1000)) / 60_000);
}

/** The wall-clock date and time of an instant in `zone`: 'YYYY-MM-DDTHH:mm'. */
export function toZonedLocal(ms: number, zone: string): string {
  return new Date(ms + zoneOffsetMinutes(zone, ms) * 60_000).toISOString().slice(0, 16);
}

/** The date (YYYY-MM-DD) of an instant in `zone`. */
export const zonedDate = (ms: number, zone: string): string => toZonedLocal(ms, zone).slice(0, 10);

/**
 * The instant a wall-clock time ('YYYY-MM-DDTHH:mm') in `zone` names. A time skipped by a DST
 * change reads as the offset before it; a repeated one as its first occurrence.
 */
export function fromZonedLocal(local: string, zone: string): number {
  const asUtc = Date.parse(`${local.length === 16 ? `${local}:00` : local}Z`);
  // Two passes: the offset at the guess, then at the corrected instant.
  let ms = asUtc - zoneOffsetMinutes(zone, asUtc) * 60_000;
  ms = asUtc - zoneOffsetMinutes(zone, ms) * 60_000;
  return ms;
}

/** The options Intl.DateTimeFormat needs to show times in `zone`, and the instant shift for an offset it cannot name. */
export function intlTimeZone(zone: string): { timeZone: string; shiftMs: number } {
  const iana = ianaZone(zone);
  if (iana) return { timeZone: iana, shiftMs: 0 };
  // 'UTC+5:30': format the shifted instant as UTC
  return { timeZone: 'UTC', shiftMs: (fixedOffsetMinutes(zone) ?? 0) * 60_000 };
}

/** The options croner needs to run a cron in `zone`. */
export function cronZone(zone: string): { timezone: string } | { utcOffset: number } {
  const iana = ianaZone(zone);
  return iana ? { timezone: iana } : { utcOffset: fixedOffsetMinutes(zone) ?? 0 };
}
