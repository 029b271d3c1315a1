// The read side of the result store: graph series, uptime and exact counts. Values are always
// bound parameters; only the database name (checked) and the table of the plan are spliced in.
import type { ClickHouseClient } from '@clickhouse/client';
import type { CodeBucket, GraphFailure, GraphFunction, GraphSeries } from '@upfleet/proto/rest';
import { checkKindByName, type GraphValue } from '@upfleet/proto/check-kinds';
import { kindsForGraphs, sqlRollupPassed, sqlRowPassed, sqlUptimeKinds } from './kind-sql';
import type { GraphPlan, GraphSource } from './graph-plan';
import type { MaintenanceSpan } from '../maintenance';
import { hourTouched, minutesOutsideWindows, windowParams } from './maintenance-sql';
import { SQL_CODE_CLASSES, SQL_HTTP_FAILED, SQL_HTTP_PASSED, SQL_CERT, SQL_TIMED } from './schema';

/** A result that passed: ok, and for HTTP a 2xx or a status its assertions accepted (proto/outcome.ts isDownResult, in SQL). */
export const SQL_OK = "(ok = 1 AND (status_code = 0 OR phase = 'asserted' OR (status_code >= 200 AND status_code < 300)))";

const TABLE: Record<GraphSource, string> = { raw: 'check_results', '1m': 'check_results_1m', '1h': 'check_results_1h' };

export interface GraphRange {
  fromMs: number;
  toMs: number;
  functions: GraphFunction[];
  /** Locations ('REGION-City') to include; all when absent. */
  regions?: string[];
  /** The endpoint's creation time: nothing older is shown, even if an id was once someone else's.
   *  Rollups start at the first whole bucket after it; the partial bucket before is read from raw rows. */
  notBeforeMs?: number;
}

type Count = number | string;
type GraphRow = [
  kind: string, region: string, bucket: unknown, t: number | string, timedN: Count, totalSum: number, code: number, cert: number | null,
  ...counts: [checks: Count, passed: Count, c2: Count, c3: Count, c4: Count, c5: Count, c0: Count, failCode: Count],
];

// The status columns every graph query adds: checks, passed, per class (aliases apart from the
// rollup's column names, which an aggregate must not shadow) and the worst failing status.
const alias = (column: string) => column.replace(/_n$/, '');
const rawCodes = `count() AS checks, countIf(${SQL_HTTP_PASSED}) AS passed,
        ${SQL_CODE_CLASSES.map(([name, p]) => `countIf(${p}) AS ${alias(name)}`).join(', ')},
        maxIf(status_code, ${SQL_HTTP_FAILED}) AS fail_code`;
const rollupCodes = `sum(n) AS checks, sum(ok2xx_n) AS passed,
      ${SQL_CODE_CLASSES.map(([name]) => `sum(${name}) AS ${alias(name)}`).join(', ')},
      max(fail_code_max) AS fail_code`;
const mergedCodes = `sum(checks) AS checks, sum(passed) AS passed, ${SQL_CODE_CLASSES.map(([name]) => `sum(${alias(name)}) AS ${alias(name)}`).join(', ')}, max(fail_code) AS fail_code`;
const codeNames = `checks, passed, ${SQL_CODE_CLASSES.map(([name]) => alias(name)).join(', ')}, fail_code`;

function graphSql(db: string, plan: GraphPlan, filterRegions: boolean, partialBucket: boolean): string {
  // The query's shape changes with the filter; values are always bound parameters.
  const regionFilter = filterRegions ? 'region IN {regions:Array(String)}' : '1';
  if (plan.source === 'raw') {
    // Sparse buckets (one row) keep the row's own time, so short ranges show the raw points.
    return `
      SELECT kind, region,
        intDiv(ms, {step:UInt64}) * {step:UInt64} AS b,
        if(count() = 1, min(ms), b) AS t,
        countIf(timed) AS timed_n,
        sumIf(total, timed) AS total_sum,
        argMax(status_code, ms) AS code,
        minOrNullIf(cert_days_left, cert) AS cert,
        ${rawCodes}
      FROM (
        SELECT kind, region, phase, toUnixTimestamp64Milli(ts) AS ms, toFloat64(total_ms) AS total, status_code, cert_days_left,
          ${SQL_TIMED} AS timed, ${SQL_CERT} AS cert
        FROM ${db}.check_results
        WHERE endpoint_id = {endpointId:UInt64} AND kind IN {kinds:Array(String)} AND ${regionFilter}
          AND ts >= fromUnixTimestamp64Milli({fromMs:Int64}) AND ts <= fromUnixTimestamp64Milli({toMs:Int64})
          AND ts >= fromUnixTimestamp64Milli({notBeforeMs:Int64})
      )
      GROUP BY kind, region, b
      ORDER BY kind, region, t`;
  }
  const unit = plan.source === '1m' ? 60 : 3600;
  // Whole rollup buckets that overlap the range, from the first whole bucket after the endpoint's
  // creation (an older row in the same bucket is never shown).
  const rollup = `
    SELECT kind, region,
      intDiv(toUInt64(toUnixTimestamp(bucket)) * 1000, {step:UInt64}) * {step:UInt64} AS b,
      sum(timed_n) AS timed_n,
      sum(total_sum) AS total_sum,
      argMaxMerge(last_status) AS code,
      max(toUInt64(toUnixTimestamp(bucket)) * 1000) AS last_ms,
      min(cert_days_min) AS cert,
      ${rollupCodes}
    FROM ${db}.${TABLE[plan.source]}
    WHERE endpoint_id = {endpointId:UInt64} AND kind IN {kinds:Array(String)} AND ${regionFilter}
      AND bucket >= toDateTime(intDiv({fromMs:Int64}, ${unit * 1000}) * ${unit}, 'UTC')
      AND bucket <= toDateTime(intDiv({toMs:Int64}, 1000), 'UTC')
      AND bucket >= toDateTime(intDiv({notBeforeMs:Int64} + ${unit * 1000 - 1}, ${unit * 1000}) * ${unit}, 'UTC')
    GROUP BY kind, region, b`;
  if (!partialBucket) return `SELECT kind, region, b, b AS t, timed_n, total_sum, code, cert, ${codeNames} FROM (${rollup}) ORDER BY kind, region, t`;
  // The bucket the endpoint was created in is partial: read from raw rows from the creation time
  // on, so a new endpoint's long-range graphs show its first minutes before the next whole bucket.
  const partial = `
    SELECT kind, region,
      intDiv(toUInt64(toUnixTimestamp64Milli(ts)), {step:UInt64}) * {step:UInt64} AS b,
      countIf(${SQL_TIMED}) AS timed_n,
      sumIf(toFloat64(total_ms), ${SQL_TIMED}) AS total_sum,
      argMax(status_code, ts) AS code,
      max(toUInt64(toUnixTimestamp64Milli(ts))) AS last_ms,
      minOrNullIf(cert_days_left, ${SQL_CERT}) AS cert,
      ${rawCodes}
    FROM ${db}.check_results
    WHERE endpoint_id = {endpointId:UInt64} AND kind IN {kinds:Array(String)} AND ${regionFilter}
      AND ts >= fromUnixTimestamp64Milli({notBeforeMs:Int64})
      AND ts < toDateTime(intDiv({notBeforeMs:Int64} + ${unit * 1000 - 1}, ${unit * 1000}) * ${unit}, 'UTC')
      AND ts >= toDateTime(intDiv({fromMs:Int64}, ${unit * 1000}) * ${unit}, 'UTC')
      AND ts <= fromUnixTimestamp64Milli({toMs:Int64})
    GROUP BY kind, region, b`;
  return `
    SELECT kind, region, b, b AS t, sum(timed_n) AS timed_n, sum(total_sum) AS total_sum, argMax(code, last_ms) AS code, min(cert) AS cert,
      ${mergedCodes}
    FROM (${rollup} UNION ALL ${partial})
    GROUP BY kind, region, b
    ORDER BY kind, region, t`;
}

/** Whether a rollup graph needs raw rows for the bucket the endpoint was created in (not a whole bucket, within the range). */
function partialBucketInRange(source: GraphSource, notBeforeMs: number, fromMs: number, toMs: number): boolean {
  if (source === 'raw') return false;
  const unitMs = source === '1m' ? 60_000 : 3_600_000;
  const wholeFrom = Math.ceil(notBeforeMs / unitMs) * unitMs;
  return wholeFrom !== notBeforeMs && wholeFrom > Math.floor(fromMs / unitMs) * unitMs && notBeforeMs <= toMs;
}

/** One series per (function, location), sorted by time, in the order the functions were asked. */
export async function queryGraphs(client: ClickHouseClient, db: string, endpointId: number, q: GraphRange, plan: GraphPlan): Promise<GraphSeries[]> {
  const functions = [...new Set(q.functions)];
  // Every kind whose results feed an asked function (tcp and dns plot their connect / lookup time as response time).
  const kinds = kindsForGraphs(functions);
  if (kinds.length === 0 || !(q.toMs >= q.fromMs)) return [];
  const notBeforeMs = Math.max(0, Math.trunc(q.notBeforeMs ?? 0));
  const rs = await client.query({
    query: graphSql(db, plan, q.regions !== undefined, partialBucketInRange(plan.source, notBeforeMs, q.fromMs, q.toMs)),
    query_params: {
      endpointId, kinds, regions: q.regions ?? [], fromMs: Math.trunc(q.fromMs), toMs: Math.trunc(q.toMs), step: plan.stepMs,
      notBeforeMs,
    },
    format: 'JSONCompactEachRow',
  });
  const rows = await rs.json<GraphRow>();

  const series = new Map<string, GraphSeries>();
  const push = (fn: GraphFunction, location: string, t: number, v: number) => {
    const key = `${fn}\u0000${location}`;
    let s = series.get(key);
    if (!s) {
      s = { itemId: `${endpointId}:${fn}:${location}`, function: fn, location, data: [] };
      series.set(key, s);
    }
    s.data.push([t, v]);
  };
  const want = new Set(functions);
  for (const [kind, region, , tRaw, timedRaw, totalSum, code, cert, ...counts] of rows) {
    const failCode = Number(counts[7]);
    const t = Number(tRaw);
    const timed = Number(timedRaw);
    const avg = timed > 0 ? round2(totalSum / timed) : null;
    const graphs = checkKindByName(kind)?.graphs ?? {};
    for (const [fn, value] of Object.entries(graphs) as Array<[GraphFunction, GraphValue]>) {
      if (!want.has(fn)) continue;
      if (value === 'avg') {
        if (avg !== null) push(fn, region, t, avg);
      } else if (value === 'code') {
        const bucket = codeBucket(t, counts);
        // A bucket with a failure shows the failure, not the last status it happened to end on:
        // a 5xx first, then no response (0), then the highest other failing status.
        const worst = bucket.classes.failed > 0 && failCode < 500 ? 0 : failCode;
        push(fn, region, t, bucket.passed < bucket.checks ? worst : Number(code));
        const s = series.get(`${fn}\u0000${region}`)!;
        (s.codes ??= []).push(bucket);
        s.lastCode = Number(code);
      } else if (cert !== null) push(fn, region, t, round2(Number(cert)));
    }
  }
  for (const s of series.values()) {
    if (!s.codes) continue;
    const [checks, passed] = s.codes.reduce(([c, p], b) => [c + b.checks, p + b.passed], [0, 0]);
    s.uptime = checks > 0 ? round2((passed * 100) / checks) : null;
  }
  const order = (s: GraphSeries) => functions.indexOf(s.function);
  return [...series.values()].sort((a, b) => order(a) - order(b) || a.location.localeCompare(b.location));
}

/**
 * A bucket's checks by status class. Rollup buckets written before schema step 4 have no class
 * counts: their passed checks read as 2xx and the others as failed, so a failure still shows.
 */
function codeBucket(t: number, counts: Count[]): CodeBucket {
  const [checks, passed, c2, c3, c4, c5, c0] = counts.slice(0, 7).map(Number) as [number, number, number, number, number, number, number];
  // (counts[7], the worst failing status, is the bucket's value in the series)
  const classes = c2 + c3 + c4 + c5 + c0 > 0 || checks === 0
    ? { '2xx': c2, '3xx': c3, '4xx': c4, '5xx': c5, failed: c0 }
    : { '2xx': passed, '3xx': 0, '4xx': 0, '5xx': 0, failed: checks - passed };
  return { t, checks, passed, classes };
}

export interface UptimeWindow {
  sinceMs: number;
  /** The window's end (now): rows dated later are not counted. */
  untilMs: number;
  /** Each endpoint's creation time: its older rows are never counted (ids could once be reused). */
  createdAtMs?: Map<number, number>;
  /** The endpoints' maintenance windows: results taken inside count neither for nor against. */
  maintenance?: readonly MaintenanceSpan[];
}


/** How uptime counts are split besides per endpoint (the SLA report's rows). */
export interface UptimeGrouping {
  /** One row per region ('EU-Germany') as well. */
  region?: boolean;
  /**
   * Period starts (UTC ms, ascending, whole minutes: months or days cut in a zone): a row per
   * period a result falls in, by its minute (an hour bucket by its start hour).
   */
  periodStarts?: readonly number[];
}

/** Checks counted and passed, per endpoint (and region / period index when grouped). */
export interface UptimeCount { endpointId: number; region: string; period: number; n: number; ok: number }

/**
 * The one uptime count: checks of the uptime kinds, each passed by its kind's rule, from the
 * endpoint's creation on, maintenance left out; the dashboard badge, the graphs' uptime, the SLOs,
 * the SLA report and the status pages' days all read it. Rows without counted checks are absent.
 */
export async function queryUptimeCounts(client: ClickHouseClient, db: string, endpointIds: number[], w: UptimeWindow, by: UptimeGrouping = {}): Promise<UptimeCount[]> {
  if (endpointIds.length === 0) return [];
  const UPTIME_KINDS = sqlUptimeKinds();
  // Per endpoint: whole hours from the hour rollup; the part before the first whole hour from raw rows.
  const starts = endpointIds.map((id) => Math.trunc(Math.max(w.sinceMs, w.createdAtMs?.get(id) ?? 0)));
  const hours = starts.map((ms) => Math.ceil(ms / 3_600_000) * 3600);
  // Maintenance (the status pages' rule, maintenance-sql.ts): raw rows and hour buckets of the hours
  // a window touches are left out, and those hours come back per minute without the window's
  // minutes. Only endpoints with a window in the range read the minute rollup; without any window
  // the query is the plain one.
  const ids = new Set(endpointIds);
  const spans = (w.maintenance ?? []).filter((m) => ids.has(m.endpointId) && m.endsAt > w.sinceMs && m.startsAt <= w.untilMs);
  const has = spans.length > 0;
  // The grouping keys: `names` in GROUP BY and the outer select, `keys(seconds)` where a source's
  // time (UTC seconds of its minute or hour) decides the period.
  const periods = by.periodStarts !== undefined;
  const names = `${by.region ? ', region' : ''}${periods ? ', period' : ''}`;
  const keys = (seconds: string) => `${by.region ? ', region' : ''}${periods ? `, arrayCount(b -> b <= ${seconds}, {periods:Array(UInt32)}) AS period` : ''}`;
  const firstHour = `toDateTime(transform(endpoint_id, {ids:Array(UInt64)}, {hours:Array(UInt32)}, toUInt32(4294967295)), 'UTC')`;
  const rawWhere = `endpoint_id IN {ids:Array(UInt64)} AND kind IN ${UPTIME_KINDS}
        AND ts >= fromUnixTimestamp64Milli(transform(endpoint_id, {ids:Array(UInt64)}, {starts:Array(Int64)}, toInt64(0)))
        AND ts < toDateTime(transform(endpoint_id, {ids:Array(UInt64)}, {hours:Array(UInt32)}, toUInt32(0)), 'UTC')
        AND ts <= fromUnixTimestamp64Milli({untilMs:Int64})
        -- the same bounds as constants, so the primary key (endpoint_id, ts) skips the rest
        AND ts >= fromUnixTimestamp64Milli({minStart:Int64}) AND ts < toDateTime({maxHour:UInt32}, 'UTC')`;
  const rawOk = `countIf(${sqlRowPassed()})`;
  const hourWhere = `endpoint_id IN {ids:Array(UInt64)} AND kind IN ${UPTIME_KINDS}
        AND bucket >= ${firstHour}
        AND bucket <= toDateTime(intDiv({untilMs:Int64}, 1000), 'UTC')`;
  const rollupOk = `sum(${sqlRollupPassed()})`;
  const regionKey = by.region ? ', region' : '';
  // The hours a window touches, per minute (raw rows before the first whole hour, else the minute rollup).
  const touched = `
      UNION ALL
      SELECT endpoint_id${keys('s')}, sum(n) AS n, sum(ok) AS ok FROM (${minutesOutsideWindows(
        `SELECT endpoint_id, toUInt32(toStartOfMinute(ts)) AS s${regionKey}, count() AS n, ${rawOk} AS ok FROM ${db}.check_results
         WHERE ${rawWhere} AND ${hourTouched('toStartOfHour(ts)')} GROUP BY endpoint_id, s${regionKey}`, regionKey,
      )}) GROUP BY endpoint_id${names}
      UNION ALL
      SELECT endpoint_id${keys('s')}, sum(n) AS n, sum(ok) AS ok FROM (${minutesOutsideWindows(
        `SELECT endpoint_id, toUInt32(bucket) AS s${regionKey}, sum(n) AS n, ${rollupOk} AS ok FROM ${db}.check_results_1m
         WHERE ${hourWhere.replace('endpoint_id IN {ids:Array(UInt64)}', 'endpoint_id IN {exIds:Array(UInt64)}')} AND ${hourTouched('toStartOfHour(bucket)')}
         GROUP BY endpoint_id, s${regionKey}`, regionKey,
      )}) GROUP BY endpoint_id${names}`;
  const sql = `
    SELECT endpoint_id${names}, sum(n) AS n, sum(ok) AS ok FROM (
      SELECT endpoint_id${keys('toUInt32(toStartOfMinute(ts))')}, count() AS n, ${rawOk} AS ok
      FROM ${db}.check_results
      WHERE ${rawWhere}${has ? ` AND NOT ${hourTouched('toStartOfHour(ts)')}` : ''}
      GROUP BY endpoint_id${names}
      UNION ALL
      SELECT endpoint_id${keys('toUInt32(bucket)')}, sum(n) AS n, ${rollupOk} AS ok
      FROM ${db}.check_results_1h
      WHERE ${hourWhere}${has ? ` AND NOT ${hourTouched('bucket')}` : ''}
      GROUP BY endpoint_id${names}${has ? touched : ''}
    ) GROUP BY endpoint_id${names}`;
  const rs = await client.query({
    query: sql,
    query_params: {
      ids: endpointIds, starts, hours, untilMs: Math.trunc(w.untilMs), minStart: Math.min(...starts), maxHour: Math.max(...hours),
      ...(periods ? { periods: by.periodStarts!.map((ms) => Math.floor(ms / 1000)) } : {}),
      ...(has ? windowParams(spans) : {}),
    },
    format: 'JSONEachRow',
  });
  const out: UptimeCount[] = [];
  for (const r of await rs.json<{ endpoint_id: number | string; region?: string; period?: number | string; n: number | string; ok: number | string }>()) {
    const n = Number(r.n);
    // period index 0: before the first period start (outside every period asked)
    if (n === 0 || (periods && Number(r.period) === 0)) continue;
    out.push({ endpointId: Number(r.endpoint_id), region: r.region ?? '', period: periods ? Number(r.period) - 1 : 0, n, ok: Number(r.ok) });
  }
  return out;
}

/** Share of passed HTTP checks (2xx, or accepted by their assertions; of passed tcp / dns checks) within the window, in percent with two decimals; null without checks. */
export async function queryUptime(client: ClickHouseClient, db: string, endpointIds: number[], w: UptimeWindow): Promise<Map<number, number | null>> {
  const out = new Map<number, number | null>(endpointIds.map((id) => [id, null]));
  for (const c of await queryUptimeCounts(client, db, endpointIds, w)) out.set(c.endpointId, uptimePercent(c.n, c.ok));
  return out;
}

/** Passed checks in percent with two decimals; null without checks ("no data", never 100 %). */
export const uptimePercent = (n: number, ok: number): number | null => (n > 0 ? round2((ok * 100) / n) : null);

/** The latest failed checks of an endpoint in a range (raw rows), newest first, with their reasons. */
export async function queryFailures(
  client: ClickHouseClient, db: string, endpointId: number, q: { fromMs: number; toMs: number; notBeforeMs?: number; limit?: number },
): Promise<GraphFailure[]> {
  const rs = await client.query({
    query: `
      SELECT toUnixTimestamp64Milli(ts) AS t, region, if(error != '', error, if(phase != '', concat(phase, ' failed'), concat('HTTP ', toString(status_code)))) AS reason
      FROM ${db}.check_results
      WHERE endpoint_id = {endpointId:UInt64} AND NOT (${SQL_OK})
        AND ts >= fromUnixTimestamp64Milli({fromMs:Int64}) AND ts <= fromUnixTimestamp64Milli({toMs:Int64})
        AND ts >= fromUnixTimestamp64Milli({notBeforeMs:Int64})
      ORDER BY ts DESC LIMIT {limit:UInt32}`,
    query_params: { endpointId, fromMs: Math.trunc(q.fromMs), toMs: Math.trunc(q.toMs), notBeforeMs: Math.max(0, Math.trunc(q.notBeforeMs ?? 0)), limit: q.limit ?? 20 },
    format: 'JSONCompactEachRow',
  });
  return (await rs.json<[number | string, string, string]>()).map(([t, location, reason]) => ({ t: Number(t), location, reason }));
}

/** Exact number of stored check results (raw rows, or the rollups' counts). */
export async function queryCount(client: ClickHouseClient, db: string, opts: { endpointId?: number; table?: GraphSource }): Promise<number> {
  const source = opts.table ?? 'raw';
  const agg = source === 'raw' ? 'count()' : 'sum(n)';
  const rs = await client.query({
    query: `SELECT ${agg} AS c FROM ${db}.${TABLE[source]}
            WHERE {all:UInt8} = 1 OR endpoint_id = {endpointId:UInt64}`,
    query_params: { all: opts.endpointId === undefined ? 1 : 0, endpointId: opts.endpointId ?? 0 },
    format: 'JSONCompactEachRow',
  });
  const rows = await rs.json<[number | string]>();
  return Number(rows[0]?.[0] ?? 0);
}

function round2(n: number): number {
  return Math.round(n * 100) / 100;
}
