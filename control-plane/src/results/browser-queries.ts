// Browser checks' details in a graph range, from raw rows (a browser check runs at most every
// 5 minutes, so a month is ~9,000 rows a location): each page timing averaged per bucket, and the
// latest failing run with its step, reason, console errors, failed requests and screenshot ids.
import type { ClickHouseClient } from '@clickhouse/client';
import { BROWSER_TIMINGS, type BrowserFailure, type BrowserGraphs, type BrowserTiming, type BrowserTimingSeries } from '@upfleet/proto/rest';

export interface BrowserRange {
  fromMs: number;
  toMs: number;
  notBeforeMs?: number;
  /** bucket width (the graph plan's step) */
  stepMs: number;
}

// A timing of 0 was not measured (the page never got there): left out of the average.
const TIMING_SQL: Record<BrowserTiming, string> = {
  ttfb: 'ttfb_ms', dom_content_loaded: 'dom_content_loaded_ms', load: 'load_ms', lcp: 'lcp_ms', total: 'total_ms',
};

export async function queryBrowserGraphs(client: ClickHouseClient, db: string, endpointId: number, q: BrowserRange): Promise<BrowserGraphs> {
  const params = {
    endpointId, fromMs: Math.trunc(q.fromMs), toMs: Math.trunc(q.toMs), notBeforeMs: Math.max(0, Math.trunc(q.notBeforeMs ?? 0)), step: Math.max(1000, Math.trunc(q.stepMs)),
  };
  const where = `endpoint_id = {endpointId:UInt64} AND kind = 'browser'
        AND ts >= fromUnixTimestamp64Milli({fromMs:Int64}) AND ts <= fromUnixTimestamp64Milli({toMs:Int64})
        AND ts >= fromUnixTimestamp64Milli({notBeforeMs:Int64})`;
  const [timingRows, failureRows] = await Promise.all([
    client.query({
      query: `
        SELECT region, intDiv(toUInt64(toUnixTimestamp64Milli(ts)), {step:UInt64}) * {step:UInt64} AS b,
          ${BROWSER_TIMINGS.map((t) => `avgOrNullIf(toFloat64(${TIMING_SQL[t]}), ${TIMING_SQL[t]} > 0) AS ${t}`).join(', ')}
        FROM ${db}.check_results
        WHERE ${where}
        GROUP BY region, b
        ORDER BY region, b`,
      query_params: params,
      format: 'JSONCompactEachRow',
    }).then((rs) => rs.json<[string, number | string, ...Array<number | null>]>()),
    client.query({
      query: `
        SELECT toUnixTimestamp64Milli(ts) AS t, region, failed_step, failed_action,
          if(error != '', error, if(phase != '', concat(phase, ' failed'), 'failed')) AS reason, console_errors, failed_requests, screenshot_ids
        FROM ${db}.check_results
        WHERE ${where} AND ok = 0
        ORDER BY ts DESC LIMIT 1`,
      query_params: params,
      format: 'JSONCompactEachRow',
    }).then((rs) => rs.json<[number | string, string, number, string, string, string[], string[], string[]]>()),
  ]);
  const series = new Map<string, BrowserTimingSeries>();
  for (const [location, b, ...values] of timingRows) {
    BROWSER_TIMINGS.forEach((timing, i) => {
      const v = values[i];
      if (v === null || v === undefined) return;
      const key = `${timing}\0${location}`;
      let s = series.get(key);
      if (!s) series.set(key, (s = { timing, location, data: [] }));
      s.data.push([Number(b), Math.round(Number(v) * 100) / 100]);
    });
  }
  const f = failureRows[0];
  const lastFailure: BrowserFailure | null = f
    ? { t: Number(f[0]), location: f[1], step: Number(f[2]), action: f[3], reason: f[4], console_errors: f[5], failed_requests: f[6], screenshot_ids: f[7] }
    : null;
  const order = (s: BrowserTimingSeries) => BROWSER_TIMINGS.indexOf(s.timing);
  return { timings: [...series.values()].sort((a, b) => order(a) - order(b) || a.location.localeCompare(b.location)), lastFailure };
}
