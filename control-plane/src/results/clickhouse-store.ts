// Check results in ClickHouse through @clickhouse/client: embedded chDB by default, a server by URL.
// One code path for both; only the connection differs. This file composes the parts:
// connection.ts (clients and insert lanes), row-encoding.ts, graph-plan.ts and queries.ts.
import type { CheckResult } from '@upfleet/proto';
import type { BrowserGraphs, GraphFailure, GraphSeries } from '@upfleet/proto/rest';
import type { Logger } from '../logger';
import { AppError } from '../errors';
import { openConnection, type Connection } from './connection';
import { planGraphQuery, type GraphPlan, type GraphSource } from './graph-plan';
import { GraphCache } from './graph-cache';
import { queryCount, queryFailures, queryGraphs, queryUptime, queryUptimeCounts, type GraphRange, type UptimeCount, type UptimeGrouping, type UptimeWindow } from './queries';
import { PAYLOAD_FORMAT, encodeRows, payloadShape, type Payload } from './row-encoding';
import { IngestLedger, MergedInserter, type InsertGroup } from './merged-inserts';
import { dailyUptimeFrom, type DailyUptimeSource } from './status-queries';
import { pagedExport, streamExport, type ExportRange } from './export-queries';
import { queryLastChecks, type LastCheck } from './metrics-queries';
import { queryBrowserGraphs, type BrowserRange } from './browser-queries';
import type { ExportFormat } from '@upfleet/proto/schemas';
import { DEFAULT_DATABASE, MERGE_SETTINGS, RESULT_TABLES, assertDatabaseName, rawBeforeStep5, rawUpgradeStatements, rollupUpgradeStatements, schemaStatements, viewBeforeStep3, beforeStep4 } from './schema';

/** The deduplication key of an agent's batch (agent ids are server-made UUIDs: no '/' in them). */
export const batchKey = (agentId: string, batchId: string): string => `${agentId}/${batchId}`;

export type { GraphSource } from './graph-plan';
export type { UptimeWindow } from './queries';
export type { DailyUptimeSource } from './status-queries';
export type { ExportRange } from './export-queries';
export type { LastCheck } from './metrics-queries';

/** Daily partitions one insert may touch (see insertBatch). */
export const MAX_PARTITIONS_PER_INSERT = 10;

export interface GraphQuery extends GraphRange {
  /** Forces a source (the step is planned for it). */
  source?: GraphSource;
  /** The graph service's plan, whose step it answers as bucketSeconds: read as planned, not planned again. */
  plan?: GraphPlan;
}

export interface ResultStore {
  readonly mode: 'embedded' | 'server';
  /** Applies the schema (idempotent). */
  init(): Promise<void>;
  close(): Promise<void>;
  /** Stores a batch once however often its agent sends it under `batchId` (see mergeInserts). Resolves once stored. */
  insertBatch(batchId: string, agentId: string, results: CheckResult[]): Promise<void>;
  /** One series per (function, location), at most ~500 points each, sorted by time. */
  graphs(endpointId: number, opts: GraphQuery): Promise<GraphSeries[]>;
  /** Share of 2xx among HTTP checks within the window (and after each endpoint's creation), in percent with two decimals; null without checks. */
  uptime(endpointIds: number[], window: UptimeWindow): Promise<Map<number, number | null>>;
  /** The counts uptime is made of, per endpoint (and region / period): reports and SLOs (queries.ts). */
  uptimeCounts(endpointIds: number[], window: UptimeWindow, by?: UptimeGrouping): Promise<UptimeCount[]>;
  /** Exact number of stored check results (raw rows, or the rollups' counts). */
  countResults(opts?: { endpointId?: number; table?: GraphSource }): Promise<number>;
  /** Status pages' daily bars (status-queries.ts). */
  dailyUptime: DailyUptimeSource['dailyUptime'];
  /** Resolves when the engine answers a trivial query (readiness); rejects when it is closed or unreachable. */
  ping(): Promise<void>;
  /** An endpoint's raw results in a range as CSV lines (no header) or NDJSON, per check and region in time order, a block at a time (export-queries.ts). */
  exportResults(endpointId: number, range: ExportRange, format: ExportFormat): AsyncGenerator<Uint8Array>;
  /** The last result of each endpoint, kind and region since `sinceMs` (one query; metrics-queries.ts). */
  lastChecks(endpointIds: number[], sinceMs: number): Promise<LastCheck[]>;
}

export interface ResultStoreOptions {
  clickhouseUrl: string | null;
  /** Embedded mode keeps its data under `${dataDir}/clickhouse`. */
  dataDir: string;
  logger: Logger;
  /** Defaults to 'upfleet'; tests give each suite its own on a shared server. */
  database?: string;
  /**
   * Embedded mode: parallel insert connections. Default 1 with merged inserts (one insert at a
   * time gathers the most batches: measured cheaper per result than 2 on 2 cores), else 2.
   */
  insertLanes?: number;
  /**
   * Store batches that arrive while an insert runs together in the next insert, each batch exactly
   * once through a ledger in `${dataDir}/ingest-ledger-${database}.sqlite` (merged-inserts.ts). Default: on in
   * embedded mode; in server mode each batch is one insert deduplicated by its batch id.
   */
  mergeInserts?: boolean;
  /** Rows per merged insert at most (default 50,000). */
  maxInsertRows?: number;
  /** Tests: wraps the insert of a merged group (to make it fail after or before it ran). */
  wrapGroupInsert?: (insert: InsertGroup) => InsertGroup;
  now?: () => number;
  /** Graph answers kept for repeated reads (graph-cache.ts; default 1,000); 0: none. */
  graphCacheEntries?: number;
}

const INSERT_SETTINGS = (token: string) => ({
  insert_deduplicate: 1,
  insert_deduplication_token: token,
  deduplicate_blocks_in_dependent_materialized_views: 1,
  // Admission keeps rows within -2 days..+5 min of now: at most 3-4 daily partitions per batch,
  // and per merged insert. The bound stays on (0 would let a bad batch create thousands of partitions).
  max_partitions_per_insert_block: MAX_PARTITIONS_PER_INSERT,
  // Cluster: a Distributed table acks only once every shard has its rows (each shard dedups its
  // part by the same token), never from its local send queue. A no-op elsewhere.
  // (The old name of distributed_foreground_insert, known to every server version.)
  insert_distributed_sync: 1,
  // The rollup views' expressions run once per insert on ~1,000 rows: compiling them to machine
  // code cost more than it saved (a quarter of an insert's CPU on chDB).
  compile_expressions: 0,
  compile_aggregate_expressions: 0,
  // The rollup views already aggregate each insert; merging equal keys again while writing the
  // part was wasted work (~4 % of an insert's engine CPU). Rows are merged later, and read with sums.
  optimize_on_insert: 0,
});

export function createResultStore(opts: ResultStoreOptions): ClickHouseResultStore {
  return new ClickHouseResultStore(opts);
}

export class ClickHouseResultStore implements ResultStore {
  readonly mode: 'embedded' | 'server';
  private readonly db: string;
  private readonly log: Logger;
  private readonly now: () => number;
  private conn: Connection | null = null;
  private ledger: IngestLedger | null = null;
  private merger: MergedInserter | null = null;
  /** This process is the results' one writer (docs/scaling.md), so its ingest sees every change. */
  readonly graphCache: GraphCache | null;

  constructor(private readonly opts: ResultStoreOptions) {
    this.mode = opts.clickhouseUrl ? 'server' : 'embedded';
    this.db = assertDatabaseName(opts.database ?? DEFAULT_DATABASE);
    this.log = opts.logger.child({ component: 'results', mode: this.mode });
    this.now = opts.now ?? Date.now;
    this.graphCache = opts.graphCacheEntries === 0 ? null : new GraphCache({ maxEntries: opts.graphCacheEntries, now: this.now });
  }

  private get client() {
    if (!this.conn) throw new AppError('unavailable', 'result store is closed');
    return this.conn.query;
  }

  async init(): Promise<void> {
    // an upgrade may rewrite what a graph reads
    this.graphCache?.clear();
    const merge = this.opts.mergeInserts ?? this.mode === 'embedded';
    const lanes = Math.max(1, this.opts.insertLanes ?? (merge ? 1 : 2));
    this.conn ??= await openConnection({ ...this.opts, insertLanes: lanes });
    // Upgrades first: CREATE MATERIALIZED VIEW IF NOT EXISTS checks its query against the target
    // table even when the view exists, and the new query needs the upgraded table.
    await this.upgradeRollups();
    await this.upgradeRaw();
    for (const stmt of schemaStatements(this.db)) await this.conn.query.command({ query: stmt });
    await this.tuneMerges();
    if (!this.merger && merge) {
      this.ledger = new IngestLedger(this.opts.dataDir, this.db, this.now);
      const insert: InsertGroup = (token, payload) => this.insertRows(token, payload);
      this.merger = new MergedInserter(this.ledger, this.opts.wrapGroupInsert?.(insert) ?? insert, {
        lanes,
        maxRows: this.opts.maxInsertRows ?? 50_000,
      });
      await this.merger.recover();
    }
    this.log.info({ database: this.db }, 'results schema ready');
  }

  /** Schema steps 2 to 4 (schema.ts, rollupUpgradeStatements) on existing rollups that are MergeTree tables here. */
  private async upgradeRollups(): Promise<void> {
    const rs = await this.client.query({
      query: 'SELECT name, engine, create_table_query AS ddl FROM system.tables WHERE database = {db:String} AND name IN {names:Array(String)}',
      query_params: { db: this.db, names: ['check_results_1m', 'check_results_1m_mv', 'check_results_1h', 'check_results_1h_mv'] },
      format: 'JSONEachRow',
    });
    const tables = new Map((await rs.json<{ name: string; engine: string; ddl: string }>()).map((t) => [t.name, t]));
    for (const grain of ['1m', '1h'] as const) {
      const table = tables.get(`check_results_${grain}`);
      const view = tables.get(`check_results_${grain}_mv`);
      if (!table) continue; // none yet: schemaStatements creates it as it should be
      if (!table.engine.endsWith('MergeTree')) {
        // A cluster's Distributed table: its shards and views are altered ON CLUSTER, by hand.
        if (/\btotal_q\b/.test(table.ddl)) {
          throw new Error(`ClickHouse: ${this.db}.${table.name} still has total_q (before schema step 2); run deploy/clickhouse/upgrades/2-rollup-p95.sql once on the cluster, then start again (deploy/clickhouse/README.md, "Upgrading")`);
        }
        // Graphs read the status-class columns of step 4: without them they would fail, so refuse.
        if (beforeStep4(table.ddl)) {
          throw new Error(`ClickHouse: ${this.db}.${table.name} has no status-class columns (before schema step 4); run deploy/clickhouse/upgrades/4-code-classes.sql once on the cluster, then start again (deploy/clickhouse/README.md, "Upgrading")`);
        }
        if (beforeStep4(view?.ddl ?? '')) {
          this.log.warn({ view: `${this.db}.check_results_${grain}_mv` }, 'rollup view predates schema step 4 (new buckets get no status-class counts); run deploy/clickhouse/upgrades/4-code-classes.sql once on the cluster');
        }
        // Before step 3 the views only miscount HTTP checks judged by assertions: said, not refused.
        if (viewBeforeStep3(view?.ddl ?? '')) {
          this.log.warn({ view: `${this.db}.check_results_${grain}_mv` }, 'rollup view predates schema step 3 (uptime counts a failed assertion on a 2xx as up); run deploy/clickhouse/upgrades/3-assertion-uptime.sql once on the cluster');
        }
        continue;
      }
      if (!/\btotal_q\b/.test(table.ddl) && table.ddl.includes('total_p95') && !viewBeforeStep3(view?.ddl ?? '') && !beforeStep4(table.ddl) && !beforeStep4(view?.ddl ?? '')) continue; // done already: no ALTER at every start
      for (const stmt of rollupUpgradeStatements(this.db, grain, view?.ddl ?? '')) await this.client.command({ query: stmt });
    }
  }

  /** Schema step 5 (schema.ts, rawUpgradeStatements) on an existing raw table that is a MergeTree table here. */
  private async upgradeRaw(): Promise<void> {
    const rs = await this.client.query({
      query: "SELECT engine, create_table_query AS ddl FROM system.tables WHERE database = {db:String} AND name = 'check_results'",
      query_params: { db: this.db },
      format: 'JSONEachRow',
    });
    const [table] = await rs.json<{ engine: string; ddl: string }>();
    if (!table || !rawBeforeStep5(table.ddl)) return;
    if (!table.engine.endsWith('MergeTree')) {
      // Inserts name the new columns: without them every batch would fail, so refuse.
      throw new Error(`ClickHouse: ${this.db}.check_results has no browser-check columns (before schema step 5); run deploy/clickhouse/upgrades/5-browser-fields.sql once on the cluster, then start again (deploy/clickhouse/README.md, "Upgrading")`);
    }
    for (const stmt of rawUpgradeStatements(this.db)) await this.client.command({ query: stmt });
  }

  /** Applies MERGE_SETTINGS to the result tables that merge here (not to a cluster's Distributed tables). */
  private async tuneMerges(): Promise<void> {
    const rs = await this.client.query({
      query: 'SELECT name FROM system.tables WHERE database = {db:String} AND name IN {names:Array(String)} AND engine LIKE \'%MergeTree\'',
      query_params: { db: this.db, names: [...RESULT_TABLES] },
      format: 'JSONEachRow',
    });
    for (const { name } of await rs.json<{ name: string }>()) {
      try {
        await this.client.command({ query: `ALTER TABLE ${this.db}.${name} MODIFY SETTING ${MERGE_SETTINGS}` });
      } catch (err) {
        this.log.warn({ table: name, err: (err as Error).message }, 'merge settings not applied; the server keeps its defaults');
      }
    }
  }

  async close(): Promise<void> {
    await this.merger?.drain();
    this.merger = null;
    this.ledger?.close();
    this.ledger = null;
    const conn = this.conn;
    this.conn = null;
    await conn?.close();
  }

  async insertBatch(batchId: string, agentId: string, results: CheckResult[]): Promise<void> {
    if (!this.conn) throw new AppError('unavailable', 'result store is closed');
    if (!batchId) throw new AppError('bad_request', 'batch id is required');
    if (results.length === 0) return;
    const body = encodeRows(results, agentId);
    // Scoped by agent: one agent's batch id can never make another's batch look stored.
    const key = batchKey(agentId, batchId);
    try {
      // A batch an older version recorded under its bare id (no '/', so never another agent's scoped key) is still known.
      if (this.merger) await this.merger.submit(key, body, results.length, batchId.includes('/') ? undefined : batchId);
      else await this.insertRows(key, { body, format: PAYLOAD_FORMAT });
    } finally {
      // after the rows are readable (or the insert failed, maybe half done): the graphs they fall in are read again
      this.graphCache?.invalidateResults(results);
    }
  }

  /** One INSERT; `token` deduplicates it (in the raw table and both rollups). */
  private async insertRows(token: string, payload: Payload): Promise<void> {
    if (!this.conn) throw new AppError('unavailable', 'result store is closed');
    const shape = payloadShape(payload.format);
    await this.conn.insertRows({ table: `${this.db}.check_results`, columns: shape.columns, payload: { body: payload.body, format: shape.format }, settings: INSERT_SETTINGS(token) });
  }

  /** The latest failed checks in a range, newest first (graph tooltips and the graphs' failure list). */
  async failures(endpointId: number, q: { fromMs: number; toMs: number; notBeforeMs?: number; limit?: number }): Promise<GraphFailure[]> {
    return queryFailures(this.client, this.db, endpointId, q);
  }

  /** A browser endpoint's page timings per bucket and its latest failing run (browser-queries.ts). */
  async browserGraphs(endpointId: number, q: BrowserRange): Promise<BrowserGraphs> {
    return queryBrowserGraphs(this.client, this.db, endpointId, q);
  }

  async graphs(endpointId: number, q: GraphQuery): Promise<GraphSeries[]> {
    const plan = q.plan ?? planGraphQuery(q.fromMs, q.toMs, this.now(), q.source);
    const client = this.client;
    const load = () => queryGraphs(client, this.db, endpointId, q, plan);
    return this.graphCache ? this.graphCache.read(endpointId, q, plan, load) : load();
  }

  async uptime(endpointIds: number[], window: UptimeWindow): Promise<Map<number, number | null>> {
    return queryUptime(this.client, this.db, endpointIds, window);
  }

  async uptimeCounts(endpointIds: number[], window: UptimeWindow, by?: UptimeGrouping): Promise<UptimeCount[]> {
    return queryUptimeCounts(this.client, this.db, endpointIds, window, by);
  }

  async countResults(opts: { endpointId?: number; table?: GraphSource } = {}): Promise<number> {
    return queryCount(this.client, this.db, opts);
  }

  dailyUptime(...args: Parameters<DailyUptimeSource['dailyUptime']>): ReturnType<DailyUptimeSource['dailyUptime']> {
    return dailyUptimeFrom(this).dailyUptime(...args);
  }

  async ping(): Promise<void> {
    const rs = await this.client.query({ query: 'SELECT 1 AS ok', format: 'JSONEachRow' });
    await rs.json();
  }

  exportResults(endpointId: number, range: ExportRange, format: ExportFormat): AsyncGenerator<Uint8Array> {
    // A server streams one answer; chDB materializes each answer, so it is read in pages.
    return this.mode === 'server' ? streamExport(this.client, this.db, endpointId, range, format) : pagedExport(this.client, this.db, endpointId, range, format);
  }

  async lastChecks(endpointIds: number[], sinceMs: number): Promise<LastCheck[]> {
    return queryLastChecks(this.client, this.db, endpointIds, sinceMs);
  }

  /** Runs a statement on the query connection (benchmarks seed data with INSERT ... SELECT). */
  async command(sql: string, params: Record<string, unknown> = {}): Promise<void> {
    try {
      await this.client.command({ query: sql, query_params: params });
    } finally {
      this.graphCache?.clear();
    }
  }

  /** Merged inserts run so far and the batches and rows they carried; null without merging. */
  get mergeStats(): { inserts: number; batches: number; rows: number } | null {
    return this.merger ? { ...this.merger.stats } : null;
  }

  /** Rows of a SELECT on the query connection (tests and benchmarks read raw rows with it). */
  async select<T>(sql: string, params: Record<string, unknown> = {}): Promise<T[]> {
    const rs = await this.client.query({ query: sql, query_params: params, format: 'JSONEachRow' });
    return rs.json<T>();
  }

  get database(): string {
    return this.db;
  }
}
