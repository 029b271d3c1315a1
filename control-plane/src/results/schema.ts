// ClickHouse schema for check results: one raw table and two rollups fed by materialized views.
// The same statements run on embedded chDB and on a single ClickHouse server; the cluster variant
// (ReplicatedMergeTree + Distributed) is deploy/clickhouse/cluster-schema.sql, generated from the
// same tables by cluster-schema.ts. The columns themselves are defined in columns.ts.
import { BROWSER_COLUMNS, CODE_COLUMNS, RESULT_COLUMNS, ROLLUP_COLUMNS, columnList } from './columns';

export const DEFAULT_DATABASE = 'upfleet';

/** Minute rollups serve ranges up to a few days; kept this long at most (less when the plan keeps less). */
export const MINUTE_ROLLUP_MAX_DAYS = 32;

// Re-sent batches must not double count. Plain MergeTree only remembers insert tokens when this
// window is above 0, and each rollup table needs its own window, or the materialized views
// re-aggregate a batch the raw table has already dropped as a duplicate.
export const DEDUP_WINDOW = 10_000;

/**
 * Row predicates shared by the rollup views and the raw graph queries, so a bucket read from a
 * rollup and the same bucket computed from raw rows agree.
 * - timed: the row carries a meaningful duration (an HTTP response arrived, a ping or TLS handshake succeeded).
 * - cert: the row carries certificate days (a TLS check that read a certificate).
 */
export const SQL_TIMED = "((kind = 'http' AND status_code > 0) OR (kind != 'http' AND ok = 1))";
export const SQL_CERT = "(kind = 'tls' AND (ok = 1 OR cert_not_after IS NOT NULL))";
/**
 * - http passed: a 2xx, unless an assertion failed on it (phase 'assertion'), or another status
 *   its assertions accepted (phase 'asserted', proto/outcome.ts). Before schema step 3 the rollups
 *   counted every 2xx (step 3: rollupUpgradeStatements, deploy/clickhouse/upgrades/3-assertion-uptime.sql).
 */
export const SQL_HTTP_PASSED = "(kind = 'http' AND (phase = 'asserted' OR (phase != 'assertion' AND status_code >= 200 AND status_code < 300)))";
/**
 * HTTP checks by status class, shared by the rollup views (schema step 4) and the raw graph query:
 * code0 is a check that got no response. The worst failing status of a bucket is the highest
 * status of a check that did not pass (a bucket whose failures all lack a response reads 0).
 */
export const SQL_CODE_CLASSES: ReadonlyArray<readonly [column: string, predicate: string]> = [
  ['code2_n', "kind = 'http' AND status_code >= 200 AND status_code < 300"],
  ['code3_n', "kind = 'http' AND status_code >= 300 AND status_code < 400"],
  ['code4_n', "kind = 'http' AND status_code >= 400 AND status_code < 500"],
  ['code5_n', "kind = 'http' AND status_code >= 500"],
  ['code0_n', "kind = 'http' AND status_code = 0"],
];
export const SQL_HTTP_FAILED = `(kind = 'http' AND NOT ${SQL_HTTP_PASSED})`;
/** What the views of schema step 4 carry (and older ones do not). */
const STEP4_MARK = 'fail_code_max';
/** What the views of schema step 3 carry (and older ones do not). */
const STEP3_MARK = "'asserted'";

export function assertDatabaseName(name: string): string {
  // Identifiers cannot be bound as query parameters in DDL, so the name is checked instead.
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(name)) throw new Error(`invalid ClickHouse database name '${name}'`);
  return name;
}

/** The tables a batch reaches: raw rows and the two rollups. */
export const RESULT_TABLES = ['check_results', 'check_results_1m', 'check_results_1h'] as const;

/**
 * Merge policy of the result tables, set by ResultStore.init() on every MergeTree-family table it
 * finds (new or existing: ALTER ... MODIFY SETTING changes metadata only). A higher selector base
 * merges more parts at once, so each row is rewritten fewer times: on chDB at ingest rates of a
 * few inserts per second, merges were half the engine's CPU, and base 10 cut the engine's CPU per
 * insert by ~17 % (docs/scaling.md), keeping ~10 active parts per partition instead of ~5.
 * Best effort: a server that does not know the setting keeps its default.
 */
export const MERGE_SETTINGS = 'merge_selector_base = 10';

/**
 * The rollups' 95th percentile of total_ms: a quantileTiming state (exact to the millisecond up
 * to 30 s, larger values count as 30 s). Until schema step 2 it was a quantileTDigest state
 * (total_q), which nothing read and which cost ~8,000 engine instructions per result and view,
 * a fifth of the instructions spent storing a result; quantileTiming costs ~550 (docs/scaling.md).
 */
const P95 = ROLLUP_COLUMNS.find((c) => c.name === 'total_p95')!;
const P95_COLUMN = `${P95.name} ${P95.type}`;

export type RollupGrain = '1m' | '1h';

/** The rollup views' SELECT, reading `source` (the raw table; `check_results_local` on a cluster). */
export function rollupSelect(db: string, grain: RollupGrain, source = 'check_results'): string {
  // The predicates without their outer parentheses: the text the cluster's upgrade files carry.
  const [twoXx, timed, cert] = [SQL_HTTP_PASSED, SQL_TIMED, SQL_CERT].map((p) => p.slice(1, -1));
  const bucketExpr = grain === '1m' ? 'toStartOfMinute(ts)' : 'toStartOfHour(ts)';
  return `
    SELECT
      ${bucketExpr} AS bucket,
      endpoint_id, kind, region, retention_days,
      count() AS n,
      countIf(ok = 1) AS ok_n,
      countIf(${twoXx}) AS ok2xx_n,
      countIf(${timed}) AS timed_n,
      sumIf(toFloat64(total_ms), ${timed}) AS total_sum,
      minOrNullIf(total_ms, ${timed}) AS total_min,
      maxOrNullIf(total_ms, ${timed}) AS total_max,
      quantileTimingStateIf(0.95)(total_ms, ${timed}) AS total_p95,
      minOrNullIf(cert_days_left, ${cert}) AS cert_days_min,
      argMaxStateIf(status_code, ts, kind = 'http') AS last_status,
${SQL_CODE_CLASSES.map(([name, p]) => `      countIf(${p}) AS ${name},`).join('\n')}
      maxIf(status_code, ${SQL_HTTP_FAILED.slice(1, -1)}) AS fail_code_max
    FROM ${db}.${source}
    GROUP BY endpoint_id, kind, region, retention_days, bucket`;
}

/** True when a rollup view's query predates schema step 3 (it counts every HTTP 2xx as passed). */
export function viewBeforeStep3(viewQuery: string): boolean {
  if (viewQuery === '') return false;
  // Only ok2xx_n's own expression counts: fail_code_max (step 4) names 'asserted' too.
  const end = viewQuery.indexOf('AS ok2xx_n');
  return !viewQuery.slice(viewQuery.lastIndexOf('countIf', end), end).includes(STEP3_MARK);
}
/** True when a rollup table or view predates schema step 4 (no status-class counts). */
export const beforeStep4 = (ddl: string): boolean => ddl !== '' && !ddl.includes(STEP4_MARK);

/**
 * Schema steps 2 and 3 on a single node. Step 2: rollup tables and views made before it computed
 * total_q as a quantileTDigest state; adds total_p95, points the view at it, then drops total_q
 * (the view no longer writes it, so no insert ever misses a column). Step 3: the view counts an
 * HTTP check as passed by SQL_HTTP_PASSED (a failed assertion on a 2xx is down, a status the
 * assertions accept is up); buckets written before keep their counts. Step 4: status-class
 * counts and the worst failing status (CODE_COLUMNS); buckets written before read 0 there, and the
 * graph falls back to passed / not passed for them (queries.ts). Idempotent;
 * ResultStore.init() runs it on MergeTree rollups only: a cluster's views and shard tables are
 * altered ON CLUSTER by hand (deploy/clickhouse/README.md, "Upgrading").
 */
export function rollupUpgradeStatements(database: string, grain: RollupGrain, viewQuery: string): string[] {
  const db = assertDatabaseName(database);
  const table = `${db}.check_results_${grain}`;
  return [
    `ALTER TABLE ${table} ADD COLUMN IF NOT EXISTS ${P95_COLUMN} AFTER total_max`,
    ...CODE_COLUMNS.map((c) => `ALTER TABLE ${table} ADD COLUMN IF NOT EXISTS ${c.name} ${c.type}`),
    ...(viewQuery.includes('total_q') || viewBeforeStep3(viewQuery) || beforeStep4(viewQuery) ? [`ALTER TABLE ${table}_mv MODIFY QUERY ${rollupSelect(db, grain)}`] : []),
    `ALTER TABLE ${table} DROP COLUMN IF EXISTS total_q`,
  ];
}

/**
 * Schema step 5 on a single node: the raw table gains browser checks' columns (BROWSER_COLUMNS);
 * rows written before read their defaults. Idempotent; a cluster runs
 * deploy/clickhouse/upgrades/5-browser-fields.sql instead.
 */
export function rawUpgradeStatements(database: string): string[] {
  const db = assertDatabaseName(database);
  return BROWSER_COLUMNS.map((c) => `ALTER TABLE ${db}.check_results ADD COLUMN IF NOT EXISTS ${c.name} ${c.type}`);
}
/** True when the raw table predates schema step 5 (no browser columns). */
export const rawBeforeStep5 = (ddl: string): boolean => ddl !== '' && !BROWSER_COLUMNS.every((c) => ddl.includes(c.name));

/** A result table: its columns (columns.ts), partitioning, order and TTL, the same on one node and on a cluster. */
export interface ResultTable {
  name: (typeof RESULT_TABLES)[number];
  columns: ReadonlyArray<{ name: string; type: string }>;
  engine: 'MergeTree' | 'AggregatingMergeTree';
  partitionBy: string;
  orderBy: string;
  ttl: string;
  /** Why this table is partitioned as it is (a comment in the cluster schema). */
  note: string;
}

export const RESULT_TABLE_DEFS: readonly ResultTable[] = [
  {
    name: 'check_results', columns: RESULT_COLUMNS, engine: 'MergeTree', partitionBy: 'toYYYYMMDD(ts)', orderBy: '(endpoint_id, kind, region, ts)',
    ttl: 'toDateTime(ts) + toIntervalDay(retention_days)', note: "Raw results, one row per check. TTL per row from the owner's plan retention.",
  },
  {
    name: 'check_results_1m', columns: ROLLUP_COLUMNS, engine: 'AggregatingMergeTree', partitionBy: 'toYYYYMM(bucket)', orderBy: '(endpoint_id, kind, region, bucket, retention_days)',
    ttl: `bucket + toIntervalDay(least(retention_days, ${MINUTE_ROLLUP_MAX_DAYS}))`, note: 'Minute rollups (monthly partitions: rollup rows are few).',
  },
  {
    name: 'check_results_1h', columns: ROLLUP_COLUMNS, engine: 'AggregatingMergeTree', partitionBy: 'toYYYYMM(bucket)', orderBy: '(endpoint_id, kind, region, bucket, retention_days)',
    ttl: 'bucket + toIntervalDay(retention_days)', note: 'Hour rollups.',
  },
];

/** Idempotent DDL, applied in order by ResultStore.init(). */
export function schemaStatements(database: string = DEFAULT_DATABASE): string[] {
  const db = assertDatabaseName(database);
  return [
    `CREATE DATABASE IF NOT EXISTS ${db}`,
    ...RESULT_TABLE_DEFS.map(
      (t) => `CREATE TABLE IF NOT EXISTS ${db}.${t.name} (
${columnList(t.columns, '      ')}
    )
    ENGINE = ${t.engine}
    PARTITION BY ${t.partitionBy}
    ORDER BY ${t.orderBy}
    TTL ${t.ttl}
    SETTINGS non_replicated_deduplication_window = ${DEDUP_WINDOW}`,
    ),
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.check_results_1m_mv TO ${db}.check_results_1m AS
    ${rollupSelect(db, '1m')}`,
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.check_results_1h_mv TO ${db}.check_results_1h AS
    ${rollupSelect(db, '1h')}`,
  ];
}
