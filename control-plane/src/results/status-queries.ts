// Status pages' daily uptime (issue 21): HTTP checks per endpoint and page-local day, read from the
// hour rollup (never the raw results at request time). A day without counted checks is absent ("no data").
import type { DailyUptimeSource } from '../services/status-pages';

export interface RowReader {
  select<T>(sql: string, params?: Record<string, unknown>): Promise<T[]>;
  readonly database: string;
}

/**
 * Days are cut at the page's UTC offset. Hour buckets are whole UTC hours, so with a half-hour zone
 * (UTC+5:30) a bucket lands on the day its start falls in.
 */
export function dailyUptimeFrom(store: RowReader): DailyUptimeSource {
  return {
    async dailyUptime(endpointIds, fromMs, untilMs, offsetMinutes) {
      const out = new Map<number, Map<string, [number, number]>>();
      if (endpointIds.length === 0) return out;
      const rows = await store.select<{ endpoint_id: number | string; d: string; n: number | string; ok: number | string }>(
        `SELECT endpoint_id, toString(toDate(toDateTime(toUInt32(bucket) + {offset:Int32}, 'UTC'))) AS d, sum(n) AS n, sum(ok2xx_n) AS ok
         FROM ${store.database}.check_results_1h
         WHERE endpoint_id IN {ids:Array(UInt64)} AND kind = 'http'
           AND bucket >= toDateTime(intDiv({fromMs:Int64}, 3600000) * 3600, 'UTC')
           AND bucket <= toDateTime(intDiv({untilMs:Int64}, 1000), 'UTC')
         GROUP BY endpoint_id, d`,
        { ids: endpointIds, fromMs: Math.trunc(fromMs), untilMs: Math.trunc(untilMs), offset: offsetMinutes * 60 },
      );
      for (const r of rows) {
        const id = Number(r.endpoint_id);
        let m = out.get(id);
        if (!m) out.set(id, (m = new Map()));
        if (Number(r.n) > 0) m.set(r.d, [Number(r.n), Number(r.ok)]);
      }
      return out;
    },
  };
}
