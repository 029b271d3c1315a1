// Status pages' daily uptime: HTTP checks per endpoint and page-local day, read from the
// rollups (never the raw results at request time). A day without counted checks is absent ("no data").
// Results taken during an endpoint's maintenance count neither for nor against it: whole hours
// outside every window come from the hour rollup; an hour a window touches comes from the minute
// rollup, leaving out the minutes inside the window.
import { fixedOffsetMinutes, ianaZone } from '@upfleet/proto/time-zone';
import type { MaintenanceSpan } from '../maintenance';
import { hourTouched, minutesOutsideWindows, windowParams } from './maintenance-sql';
import { sqlRollupPassed, sqlUptimeKinds } from './kind-sql';

/** Daily uptime of endpoints, from the results store's rollups. */
export interface DailyUptimeSource {
  /**
   * Per endpoint: date (YYYY-MM-DD in the page's zone) → [checks counted, checks up]; days without
   * counted checks are absent. Results taken during `maintenance` count neither for nor against.
   */
  dailyUptime(endpointIds: number[], fromMs: number, untilMs: number, zone: string, maintenance?: MaintenanceSpan[]): Promise<Map<number, Map<string, [number, number]>>>;
}

export interface RowReader {
  select<T>(sql: string, params?: Record<string, unknown>): Promise<T[]>;
  readonly database: string;
}

/**
 * Days are cut at midnight in the page's zone: an IANA zone by ClickHouse's own zone rules (DST
 * included), a fixed offset ('UTC+5:30', proto/time-zone.ts) by its offset. Hour buckets are whole
 * UTC hours, so with a half-hour zone a bucket lands on the day its start falls in.
 */
export function dailyUptimeFrom(store: RowReader): DailyUptimeSource {
  return {
    async dailyUptime(endpointIds, fromMs, untilMs, zone, maintenance: MaintenanceSpan[] = []) {
      const out = new Map<number, Map<string, [number, number]>>();
      if (endpointIds.length === 0) return out;
      const spans = maintenance.filter((m) => endpointIds.includes(m.endpointId));
      const iana = ianaZone(zone);
      const offsetMinutes = fixedOffsetMinutes(zone) ?? 0;
      const dayOf = (seconds: string) => (iana ? `toString(toDate(toDateTime(${seconds}, 'UTC'), {tz:String}))` : `toString(toDate(toDateTime(${seconds} + {offset:Int32}, 'UTC')))`);
      const day = dayOf('toUInt32(bucket)');
      // The kinds counted for uptime, each passed by its own rule (the kinds table's `uptime`).
      const range = (unitSeconds: number) => `endpoint_id IN {ids:Array(UInt64)} AND kind IN ${sqlUptimeKinds()}
           AND bucket >= toDateTime(intDiv({fromMs:Int64}, ${unitSeconds * 1000}) * ${unitSeconds}, 'UTC')
           AND bucket <= toDateTime(intDiv({untilMs:Int64}, 1000), 'UTC')`;
      const hourly = `SELECT endpoint_id, ${day} AS d, sum(n) AS n, sum(${sqlRollupPassed()}) AS ok FROM ${store.database}.check_results_1h WHERE ${range(3600)}`;
      const sql = spans.length === 0
        ? `${hourly} GROUP BY endpoint_id, d`
        : `SELECT endpoint_id, d, sum(n) AS n, sum(ok) AS ok FROM (
             ${hourly} AND NOT ${hourTouched('bucket')} GROUP BY endpoint_id, d
             UNION ALL
             SELECT endpoint_id, ${dayOf('s')} AS d, sum(n) AS n, sum(ok) AS ok FROM (${minutesOutsideWindows(
               `SELECT endpoint_id, toUInt32(bucket) AS s, sum(n) AS n, sum(${sqlRollupPassed()}) AS ok FROM ${store.database}.check_results_1m
                WHERE ${range(60)} AND ${hourTouched('toStartOfHour(bucket)')} GROUP BY endpoint_id, s`,
             )})
             GROUP BY endpoint_id, d
           ) GROUP BY endpoint_id, d`;
      const rows = await store.select<{ endpoint_id: number | string; d: string; n: number | string; ok: number | string }>(sql, {
        ids: endpointIds, fromMs: Math.trunc(fromMs), untilMs: Math.trunc(untilMs), offset: offsetMinutes * 60, tz: iana ?? 'UTC', ...windowParams(spans),
      });
      for (const r of rows) {
        const id = Number(r.endpoint_id);
        let m = out.get(id);
        if (!m) out.set(id, (m = new Map<string, [number, number]>()));
        if (Number(r.n) > 0) m.set(r.d, [Number(r.n), Number(r.ok)]);
      }
      return out;
    },
  };
}
