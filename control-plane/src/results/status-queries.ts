// Status pages' daily uptime: checks per endpoint and page-local day, from the one uptime count
// (queries.ts queryUptimeCounts: rollups, raw rows only for a range's first partial hour). A day
// without counted checks is absent ("no data"). Results taken during an endpoint's maintenance
// count neither for nor against it (maintenance-sql.ts).
import { fromZonedLocal, zonedDate } from '@upfleet/proto/time-zone';
import type { MaintenanceSpan } from '../maintenance';
import type { UptimeCount, UptimeGrouping, UptimeWindow } from './queries';

/** Daily uptime of endpoints, from the results store's rollups. */
export interface DailyUptimeSource {
  /**
   * Per endpoint: date (YYYY-MM-DD in the page's zone) → [checks counted, checks up]; days without
   * counted checks are absent. Results taken during `maintenance` count neither for nor against.
   */
  dailyUptime(endpointIds: number[], fromMs: number, untilMs: number, zone: string, maintenance?: MaintenanceSpan[]): Promise<Map<number, Map<string, [number, number]>>>;
}

/** The results store's one uptime count (queries.ts queryUptimeCounts). */
export interface UptimeCountReader {
  uptimeCounts(endpointIds: number[], window: UptimeWindow, by?: UptimeGrouping): Promise<UptimeCount[]>;
}

/**
 * Days are cut at midnight in the page's zone (proto/time-zone.ts: an IANA zone by its own rules,
 * DST included, or a fixed offset) and counted by the same query as the dashboard's badge and the
 * SLA report, grouped by day. Hour buckets are whole UTC hours, so with a half-hour zone a bucket
 * lands on the day its start falls in.
 */
export function dailyUptimeFrom(store: UptimeCountReader): DailyUptimeSource {
  return {
    async dailyUptime(endpointIds, fromMs, untilMs, zone, maintenance: MaintenanceSpan[] = []) {
      const out = new Map<number, Map<string, [number, number]>>();
      if (endpointIds.length === 0) return out;
      const starts = dayStarts(fromMs, untilMs, zone);
      const counts = await store.uptimeCounts(endpointIds, { sinceMs: fromMs, untilMs, maintenance }, { periodStarts: starts });
      const dates = starts.map((ms) => zonedDate(ms, zone));
      for (const c of counts) {
        let m = out.get(c.endpointId);
        if (!m) out.set(c.endpointId, (m = new Map<string, [number, number]>()));
        m.set(dates[c.period], [c.n, c.ok]);
      }
      return out;
    },
  };
}

/** `fromMs`, then each midnight in `zone` up to `untilMs` (by the calendar: a DST day is 23 or 25 hours). */
export function dayStarts(fromMs: number, untilMs: number, zone: string): number[] {
  const out = [fromMs];
  let date = zonedDate(fromMs, zone);
  for (;;) {
    date = new Date(Date.parse(`${date}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
    const start = fromZonedLocal(`${date}T00:00`, zone);
    if (start > untilMs) return out;
    if (start > out.at(-1)!) out.push(start);
  }
}
