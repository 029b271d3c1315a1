// The arithmetic SLOs and SLA reports share: the minutes a range measures (the endpoint existed,
// no maintenance) and the downtime its failed checks stand for. Pure: no SQL, no clock.
import type { MaintenanceSpan } from '../../maintenance';

export const MINUTE_MS = 60_000;
export const DAY_MS = 86_400_000;

/** Minutes of [fromMs, toMs) after `createdAtMs` and outside every maintenance span (overlaps counted once). */
export function measuredMinutes(fromMs: number, toMs: number, createdAtMs: number, spans: readonly MaintenanceSpan[]): number {
  const start = Math.max(fromMs, createdAtMs);
  if (toMs <= start) return 0;
  const cut = spans
    .map((m) => [Math.max(m.startsAt, start), Math.min(m.endsAt, toMs)] as const)
    .filter(([s, e]) => e > s)
    .sort((a, b) => a[0] - b[0]);
  let inside = 0;
  let reach = start;
  for (const [s, e] of cut) {
    const from = Math.max(s, reach);
    if (e > from) inside += e - from;
    reach = Math.max(reach, e);
  }
  return (toMs - start - inside) / MINUTE_MS;
}

/**
 * Downtime of a measured range: each counted check stands for an equal share of its minutes, so
 * the failed ones stand for (failed / counted) of them. null without checks ("no data").
 */
export const downtimeMinutes = (n: number, ok: number, minutes: number): number | null => (n > 0 ? round2(((n - ok) / n) * minutes) : null);

export const round2 = (x: number): number => Math.round(x * 100) / 100;
