// Check results in ClickHouse through @clickhouse/client: embedded chDB by default, a server by URL.
// One code path for both; only the connection differs.
import path from 'node:path';
import { mkdirSync } from 'node:fs';
import { createClient, type ClickHouseClient } from '@clickhouse/client';
import type { CheckResult, CheckKind } from '@upfleet/proto';
import type { GraphFunction, GraphSeries } from '@upfleet/proto/rest';
import type { Logger } from '../logger';
import { AppError } from '../errors';
import { DEFAULT_DATABASE, MINUTE_ROLLUP_MAX_DAYS, SQL_2XX, SQL_CERT, SQL_TIMED, assertDatabaseName, schemaStatements } from './schema';

export type ResultKind = 'http' | 'tls' | 'ping';
/** Where a graph reads from: raw rows, minute rollup or hour rollup. */
export type GraphSource = 'raw' | '1m' | '1h';

export interface GraphQuery {
  fromMs: number;
  toMs: number;
  functions: GraphFunction[];
  /** Locations ('REGION-City') to include; all when absent. */
  regions?: string[];
  /** Forces a source; for tests and benchmarks that compare a rollup with raw rows. */
  source?: GraphSource;
}

export interface ResultStore {
  readonly mode: 'embedded' | 'server';
  /** Applies the schema (idempotent). */
  init(): Promise<void>;
  close(): Promise<void>;
  /** One INSERT; `batchId` is the deduplication token, so a re-sent batch is stored once. Resolves once stored. */
  insertBatch(batchId: string, agentId: string, results: CheckResult[]): Promise<void>;
  /** One series per (function, location), at most ~500 points each, sorted by time. */
  graphs(endpointId: number, opts: GraphQuery): Promise<GraphSeries[]>;
  /** Share of 2xx among HTTP checks since `sinceMs`, in percent with two decimals; null without checks. */
  uptime(endpointIds: number[], sinceMs: number): Promise<Map<number, number | null>>;
  /** Exact number of stored check results (raw rows, or the rollups' counts). */
  countResults(opts?: { endpointId?: number; table?: GraphSource }): Promise<number>;
}

export interface ResultStoreOptions {
  clickhouseUrl: string | null;
  /** Embedded mode keeps its data under `${dataDir}/clickhouse`. */
  dataDir: string;
  logger: Logger;
  /** Defaults to 'upfleet'; tests give each suite its own on a shared server. */
  database?: string;
  /** Embedded mode: parallel insert connections (each one's SET state is its own). */
  insertLanes?: number;
  now?: () => number;
}

export const MAX_POINTS = 500;
export const DEFAULT_RETENTION_DAYS = 30;
const MAX_RETENTION_DAYS = 3650;

const KINDS: Record<CheckKind, ResultKind | null> = {
  CHECK_KIND_UNSPECIFIED: null,
  CHECK_KIND_HTTP: 'http',
  CHECK_KIND_TLS: 'tls',
  CHECK_KIND_PING: 'ping',
};

export function resultKind(kind: CheckKind | string): ResultKind | null {
  return (KINDS as Record<string, ResultKind | null>)[kind] ?? null;
}

const FUNCTION_KIND: Record<GraphFunction, ResultKind> = {
  response_time: 'http',
  response_code: 'http',
  ping: 'ping',
  cert_expiry: 'tls',
};

const NICE_STEPS_S = [
  1, 2, 5, 10, 15, 30, 60, 120, 180, 300, 600, 900, 1200, 1800, 3600, 7200, 10800, 21600, 43200, 86400,
  172800, 604800, 1209600, 2592000,
];

export interface GraphPlan {
  source: GraphSource;
  /** Bucket width; points closer than this are merged. */
  stepMs: number;
}

/**
 * Bucket = ceil(range / 500) rounded up to a nice step. Below a minute the raw table is read
 * (sparse buckets come back as the raw points themselves); up to the minute rollup's keep time
 * the minute rollup; beyond, and whenever the step is whole hours, the hour rollup.
 */
export function planGraphQuery(fromMs: number, toMs: number, nowMs: number, force?: GraphSource): GraphPlan {
  const rangeS = Math.max(1, Math.ceil((toMs - fromMs) / 1000));
  const wanted = Math.ceil(rangeS / MAX_POINTS);
  let stepS = NICE_STEPS_S.find((s) => s >= wanted) ?? Math.ceil(wanted / 86400) * 86400;
  let source: GraphSource;
  if (force) source = force;
  else if (stepS < 60) source = 'raw';
  else if (stepS % 3600 !== 0 && fromMs >= nowMs - (MINUTE_ROLLUP_MAX_DAYS - 1) * 86_400_000) source = '1m';
  else source = '1h';
  if (source === '1m') stepS = Math.ceil(stepS / 60) * 60;
  if (source === '1h') stepS = Math.ceil(stepS / 3600) * 3600;
  return { source, stepMs: stepS * 1000 };
}

// libchdb binds one data directory per process: every embedded store in this process must share it.
let embeddedPath: string | null = null;
let embeddedStores = 0;

export function createResultStore(opts: ResultStoreOptions): ClickHouseResultStore {
  return new ClickHouseResultStore(opts);
}

type Row = Array<string | number | null>;

const INSERT_COLUMNS = [
  'ts', 'endpoint_id', 'kind', 'region', 'ok', 'phase', 'status_code', 'dns_ms', 'connect_ms', 'tls_ms',
  'ttfb_ms', 'total_ms', 'cert_days_left', 'cert_not_after', 'cert_issuer', 'cert_subject', 'ping_method',
  'error', 'redirects', 'retention_days', 'result_id', 'agent_id',
];

const clamp = (n: number, lo: number, hi: number) => (Number.isFinite(n) ? Math.min(hi, Math.max(lo, n)) : lo);
const num = (n: number) => (Number.isFinite(n) ? n : 0);
// DateTime64(3) reads seconds with a fraction exactly; a bare integer would be taken as seconds.
const seconds = (ms: number) => (Math.trunc(ms) / 1000).toFixed(3);

function toRow(r: CheckResult, agentId: string): Row {
  const kind = resultKind(r.kind);
  if (!kind) throw new AppError('bad_request', `unknown check kind '${r.kind}'`);
  const retention = r.retention_days > 0 ? clamp(Math.trunc(r.retention_days), 1, MAX_RETENTION_DAYS) : DEFAULT_RETENTION_DAYS;
  return [
    seconds(r.ts_ms),
    r.endpoint_id,
    kind,
    r.region,
    r.ok ? 1 : 0,
    r.phase ?? '',
    clamp(Math.trunc(r.status_code), 0, 65535),
    num(r.dns_ms),
    num(r.connect_ms),
    num(r.tls_ms),
    num(r.ttfb_ms),
    num(r.total_ms),
    num(r.cert_days_left),
    r.cert_not_after_ms > 0 ? seconds(r.cert_not_after_ms) : null,
    r.cert_issuer ?? '',
    r.cert_subject ?? '',
    r.ping_method ?? '',
    r.error ?? '',
    clamp(Math.trunc(r.redirects), 0, 255),
    retention,
    r.result_id ?? '',
    agentId,
  ];
}

interface Lane { client: ClickHouseClient; tail: Promise<unknown>; pending: number }

export class ClickHouseResultStore implements ResultStore {
  readonly mode: 'embedded' | 'server';
  private readonly db: string;
  private readonly log: Logger;
  private readonly now: () => number;
  private query!: ClickHouseClient;
  private lanes: Lane[] = [];
  private opened = false;

  constructor(private readonly opts: ResultStoreOptions) {
    this.mode = opts.clickhouseUrl ? 'server' : 'embedded';
    this.db = assertDatabaseName(opts.database ?? DEFAULT_DATABASE);
    this.log = opts.logger.child({ component: 'results', mode: this.mode });
    this.now = opts.now ?? Date.now;
  }

  async init(): Promise<void> {
    if (!this.opened) await this.open();
    for (const stmt of schemaStatements(this.db)) await this.query.command({ query: stmt });
    this.log.info({ database: this.db }, 'results schema ready');
  }

  private async open(): Promise<void> {
    if (this.opts.clickhouseUrl) {
      this.query = createClient({
        url: this.opts.clickhouseUrl,
        max_open_connections: 16,
        request_timeout: 60_000,
        clickhouse_settings: { output_format_json_quote_64bit_integers: 0 },
      });
      // Settings travel with each HTTP request, so one client can insert concurrently.
      this.lanes = [{ client: this.query, tail: Promise.resolve(), pending: 0 }];
    } else {
      const dir = path.resolve(this.opts.dataDir, 'clickhouse');
      if (embeddedPath && embeddedPath !== dir) {
        throw new Error(
          `chDB is already open at ${embeddedPath} in this process; it binds one data directory per process (asked for ${dir})`,
        );
      }
      mkdirSync(dir, { recursive: true });
      // Imported here so server mode never loads the native engine.
      const { createChdbConnection } = await import('chdb/connection');
      const make = () =>
        createClient({
          connection: createChdbConnection({ path: dir }),
          // Embedded shares the machine with everything else: cap each query.
          clickhouse_settings: { max_memory_usage: '2000000000', output_format_json_quote_64bit_integers: 0 },
        } as Parameters<typeof createClient>[0]);
      embeddedPath = dir;
      embeddedStores++;
      this.query = make();
      // chDB applies settings as session-wide SETs, so an insert's dedup token would leak into
      // the next statement on the same connection: inserts get their own connections, each serial.
      const n = Math.max(1, this.opts.insertLanes ?? 2);
      this.lanes = Array.from({ length: n }, () => ({ client: make(), tail: Promise.resolve(), pending: 0 }));
    }
    this.opened = true;
  }

  async close(): Promise<void> {
    if (!this.opened) return;
    this.opened = false;
    await Promise.allSettled(this.lanes.map((l) => l.tail));
    const clients = new Set([this.query, ...this.lanes.map((l) => l.client)]);
    for (const c of clients) await c.close();
    this.lanes = [];
    if (this.mode === 'embedded') {
      embeddedStores--;
      if (embeddedStores === 0) {
        embeddedPath = null;
        // Lets a later store open another directory: the engine releases its old one only when idle.
        const { drainPending } = await import('chdb');
        await drainPending();
      }
    }
  }

  async insertBatch(batchId: string, agentId: string, results: CheckResult[]): Promise<void> {
    if (!this.opened) throw new AppError('unavailable', 'result store is closed');
    if (!batchId) throw new AppError('bad_request', 'batch id is required');
    if (results.length === 0) return;
    const values = results.map((r) => toRow(r, agentId));
    const run = (client: ClickHouseClient) =>
      client.insert({
        table: `${this.db}.check_results`,
        columns: INSERT_COLUMNS as [string, ...string[]],
        values,
        format: 'JSONCompactEachRow',
        clickhouse_settings: {
          insert_deduplicate: 1,
          insert_deduplication_token: batchId,
          deduplicate_blocks_in_dependent_materialized_views: 1,
          // A batch spanning many days (an agent back after a long outage) stays one insert.
          max_partitions_per_insert_block: '0',
          // Cluster: a Distributed table acks only once every shard has its rows (each shard
          // dedups its part by the same token), never from its local send queue. A no-op elsewhere.
          // (The old name of distributed_foreground_insert, known to every server version.)
          insert_distributed_sync: 1,
        },
      });
    if (this.mode === 'server') {
      await run(this.query);
      return;
    }
    const lane = this.lanes.reduce((a, b) => (b.pending < a.pending ? b : a));
    lane.pending++;
    const p = lane.tail.then(() => run(lane.client));
    lane.tail = p.catch(() => undefined).finally(() => lane.pending--);
    await p;
  }

  async graphs(endpointId: number, q: GraphQuery): Promise<GraphSeries[]> {
    const functions = [...new Set(q.functions)];
    const kinds = [...new Set(functions.map((f) => FUNCTION_KIND[f]))];
    if (kinds.length === 0 || !(q.toMs >= q.fromMs)) return [];
    const plan = planGraphQuery(q.fromMs, q.toMs, this.now(), q.source);
    const params = {
      endpointId,
      kinds,
      regions: q.regions ?? [],
      fromMs: Math.trunc(q.fromMs),
      toMs: Math.trunc(q.toMs),
      step: plan.stepMs,
    };
    // The query's shape changes with the filter; values are always bound parameters.
    const regionFilter = q.regions ? 'region IN {regions:Array(String)}' : '1';
    let sql: string;
    if (plan.source === 'raw') {
      // Sparse buckets (one row) keep the row's own time, so short ranges show the raw points.
      sql = `
        SELECT kind, region,
          intDiv(ms, {step:UInt64}) * {step:UInt64} AS b,
          if(count() = 1, min(ms), b) AS t,
          countIf(timed) AS timed_n,
          sumIf(total, timed) AS total_sum,
          argMax(status_code, ms) AS code,
          minOrNullIf(cert_days_left, cert) AS cert
        FROM (
          SELECT kind, region, toUnixTimestamp64Milli(ts) AS ms, toFloat64(total_ms) AS total, status_code, cert_days_left,
            ${SQL_TIMED} AS timed, ${SQL_CERT} AS cert
          FROM ${this.db}.check_results
          WHERE endpoint_id = {endpointId:UInt64} AND kind IN {kinds:Array(String)} AND ${regionFilter}
            AND ts >= fromUnixTimestamp64Milli({fromMs:Int64}) AND ts <= fromUnixTimestamp64Milli({toMs:Int64})
        )
        GROUP BY kind, region, b
        ORDER BY kind, region, t`;
    } else {
      const table = plan.source === '1m' ? 'check_results_1m' : 'check_results_1h';
      const unit = plan.source === '1m' ? 60 : 3600;
      // Whole rollup buckets that overlap the range.
      sql = `
        SELECT kind, region,
          intDiv(toUInt64(toUnixTimestamp(bucket)) * 1000, {step:UInt64}) * {step:UInt64} AS b,
          b AS t,
          sum(timed_n) AS timed_n,
          sum(total_sum) AS total_sum,
          argMaxMerge(last_status) AS code,
          min(cert_days_min) AS cert
        FROM ${this.db}.${table}
        WHERE endpoint_id = {endpointId:UInt64} AND kind IN {kinds:Array(String)} AND ${regionFilter}
          AND bucket >= toDateTime(intDiv({fromMs:Int64}, ${unit * 1000}) * ${unit}, 'UTC')
          AND bucket <= toDateTime(intDiv({toMs:Int64}, 1000), 'UTC')
        GROUP BY kind, region, b
        ORDER BY kind, region, t`;
    }
    const rs = await this.query.query({ query: sql, query_params: params, format: 'JSONCompactEachRow' });
    const rows = (await rs.json()) as Array<[string, string, number | string, number | string, number | string, number, number, number | null]>;

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
    for (const [kind, region, , tRaw, timedRaw, totalSum, code, cert] of rows) {
      const t = Number(tRaw);
      const timed = Number(timedRaw);
      const avg = timed > 0 ? round2(totalSum / timed) : null;
      if (kind === 'http') {
        if (want.has('response_time') && avg !== null) push('response_time', region, t, avg);
        if (want.has('response_code')) push('response_code', region, t, Number(code));
      } else if (kind === 'ping') {
        if (want.has('ping') && avg !== null) push('ping', region, t, avg);
      } else if (kind === 'tls') {
        if (want.has('cert_expiry') && cert !== null) push('cert_expiry', region, t, round2(Number(cert)));
      }
    }
    const order = (s: GraphSeries) => functions.indexOf(s.function);
    return [...series.values()].sort((a, b) => order(a) - order(b) || a.location.localeCompare(b.location));
  }

  async uptime(endpointIds: number[], sinceMs: number): Promise<Map<number, number | null>> {
    const out = new Map<number, number | null>(endpointIds.map((id) => [id, null]));
    if (endpointIds.length === 0) return out;
    // Whole hours from the hour rollup; the part of the first hour before it from raw rows.
    const hourS = Math.ceil(sinceMs / 3_600_000) * 3600;
    const sql = `
      SELECT endpoint_id, sum(n) AS n, sum(ok) AS ok FROM (
        SELECT endpoint_id, count() AS n, countIf(${SQL_2XX}) AS ok
        FROM ${this.db}.check_results
        WHERE endpoint_id IN {ids:Array(UInt64)} AND kind = 'http'
          AND ts >= fromUnixTimestamp64Milli({sinceMs:Int64}) AND ts < toDateTime({hourS:UInt32}, 'UTC')
        GROUP BY endpoint_id
        UNION ALL
        SELECT endpoint_id, sum(n) AS n, sum(ok2xx_n) AS ok
        FROM ${this.db}.check_results_1h
        WHERE endpoint_id IN {ids:Array(UInt64)} AND kind = 'http' AND bucket >= toDateTime({hourS:UInt32}, 'UTC')
        GROUP BY endpoint_id
      ) GROUP BY endpoint_id`;
    const rs = await this.query.query({
      query: sql,
      query_params: { ids: endpointIds, sinceMs: Math.trunc(sinceMs), hourS },
      format: 'JSONCompactEachRow',
    });
    for (const [id, n, ok] of (await rs.json()) as Array<[number | string, number | string, number | string]>) {
      const total = Number(n);
      out.set(Number(id), total > 0 ? round2((Number(ok) * 100) / total) : null);
    }
    return out;
  }

  async countResults(opts: { endpointId?: number; table?: GraphSource } = {}): Promise<number> {
    const table = { raw: 'check_results', '1m': 'check_results_1m', '1h': 'check_results_1h' }[opts.table ?? 'raw'];
    const agg = (opts.table ?? 'raw') === 'raw' ? 'count()' : 'sum(n)';
    const rs = await this.query.query({
      query: `SELECT ${agg} AS c FROM ${this.db}.${table}
              WHERE {all:UInt8} = 1 OR endpoint_id = {endpointId:UInt64}`,
      query_params: { all: opts.endpointId === undefined ? 1 : 0, endpointId: opts.endpointId ?? 0 },
      format: 'JSONCompactEachRow',
    });
    const rows = (await rs.json()) as Array<[number | string]>;
    return Number(rows[0]?.[0] ?? 0);
  }

  /** Runs a statement on the query connection (benchmarks seed data with INSERT ... SELECT). */
  async command(sql: string, params: Record<string, unknown> = {}): Promise<void> {
    await this.query.command({ query: sql, query_params: params });
  }

  get database(): string {
    return this.db;
  }
}

function round2(n: number): number {
  return Math.round(n * 100) / 100;
}
