import { formatDuration } from '../lib/duration';

/** '3s ago', '5m ago', 'in 23h', 'never'; coarse on purpose (largest unit only). */
export function formatRelative(iso: string | number | null | undefined, nowMs: number): string {
  if (iso === null || iso === undefined || iso === '') return 'never';
  const t = typeof iso === 'number' ? iso : Date.parse(iso);
  if (Number.isNaN(t)) return String(iso);
  const diffSeconds = Math.round((nowMs - t) / 1000);
  const abs = Math.abs(diffSeconds);
  if (abs < 1) return 'just now';
  const text = largestUnit(abs);
  return diffSeconds > 0 ? `${text} ago` : `in ${text}`;
}

function largestUnit(seconds: number): string {
  // formatDuration gives '1d2h'; keep the leading unit only.
  return formatDuration(seconds).match(/^\d+[a-z]/)?.[0] ?? `${seconds}s`;
}

/** '2025-01-31 14:05' (UTC) for absolute dates in tables. */
export function formatDate(iso: string | null | undefined): string {
  if (!iso) return '-';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return d.toISOString().slice(0, 16).replace('T', ' ');
}
