-- Upfleet results schema for a ClickHouse cluster: ReplicatedMergeTree per shard + Distributed on top.
-- Same columns, rollups and TTLs as control-plane/src/results/schema.ts (keep them in step).
-- The Distributed tables carry the names the control plane queries (upfleet.check_results,
-- upfleet.check_results_1m, upfleet.check_results_1h) and the views carry the names its init()
-- creates, so init()'s CREATE ... IF NOT EXISTS statements find everything and change nothing.
-- Needs the {cluster}, {shard} and {replica} macros on every node. Apply once:
--   clickhouse-client --multiquery < deploy/clickhouse/cluster-schema.sql

CREATE DATABASE IF NOT EXISTS upfleet ON CLUSTER '{cluster}';

-- Raw results, one row per check. TTL per row from the owner's plan retention.
CREATE TABLE IF NOT EXISTS upfleet.check_results_local ON CLUSTER '{cluster}'
(
    ts DateTime64(3, 'UTC'),
    endpoint_id UInt64,
    kind LowCardinality(String),
    region LowCardinality(String),
    ok UInt8,
    phase LowCardinality(String),
    status_code UInt16,
    dns_ms Float32,
    connect_ms Float32,
    tls_ms Float32,
    ttfb_ms Float32,
    total_ms Float32,
    cert_days_left Float32,
    cert_not_after Nullable(DateTime64(3, 'UTC')),
    cert_issuer String,
    cert_subject String,
    ping_method LowCardinality(String),
    error String,
    redirects UInt8,
    retention_days UInt16,
    result_id String,
    agent_id String
)
ENGINE = ReplicatedMergeTree('/clickhouse/tables/{shard}/upfleet/check_results_local', '{replica}')
PARTITION BY toYYYYMMDD(ts)
ORDER BY (endpoint_id, kind, region, ts)
TTL toDateTime(ts) + toIntervalDay(retention_days)
SETTINGS replicated_deduplication_window = 10000, replicated_deduplication_window_seconds = 604800;

-- Rollups: the same columns at minute and hour grain.
CREATE TABLE IF NOT EXISTS upfleet.check_results_1m_local ON CLUSTER '{cluster}'
(
    bucket DateTime('UTC'),
    endpoint_id UInt64,
    kind LowCardinality(String),
    region LowCardinality(String),
    retention_days UInt16,
    n SimpleAggregateFunction(sum, UInt64),
    ok_n SimpleAggregateFunction(sum, UInt64),
    ok2xx_n SimpleAggregateFunction(sum, UInt64),
    timed_n SimpleAggregateFunction(sum, UInt64),
    total_sum SimpleAggregateFunction(sum, Float64),
    total_min SimpleAggregateFunction(min, Nullable(Float32)),
    total_max SimpleAggregateFunction(max, Nullable(Float32)),
    total_p95 AggregateFunction(quantileTiming(0.95), Float32),
    cert_days_min SimpleAggregateFunction(min, Nullable(Float32)),
    last_status AggregateFunction(argMax, UInt16, DateTime64(3, 'UTC'))
)
ENGINE = ReplicatedAggregatingMergeTree('/clickhouse/tables/{shard}/upfleet/check_results_1m_local', '{replica}')
PARTITION BY toYYYYMM(bucket)
ORDER BY (endpoint_id, kind, region, bucket, retention_days)
TTL bucket + toIntervalDay(least(retention_days, 32))
SETTINGS replicated_deduplication_window = 10000, replicated_deduplication_window_seconds = 604800;

CREATE TABLE IF NOT EXISTS upfleet.check_results_1h_local ON CLUSTER '{cluster}'
AS upfleet.check_results_1m_local
ENGINE = ReplicatedAggregatingMergeTree('/clickhouse/tables/{shard}/upfleet/check_results_1h_local', '{replica}')
PARTITION BY toYYYYMM(bucket)
ORDER BY (endpoint_id, kind, region, bucket, retention_days)
TTL bucket + toIntervalDay(retention_days)
SETTINGS replicated_deduplication_window = 10000, replicated_deduplication_window_seconds = 604800;

-- Views run on each shard, on the rows that shard receives.
CREATE MATERIALIZED VIEW IF NOT EXISTS upfleet.check_results_1m_mv ON CLUSTER '{cluster}'
TO upfleet.check_results_1m_local AS
SELECT
    toStartOfMinute(ts) AS bucket,
    endpoint_id, kind, region, retention_days,
    count() AS n,
    countIf(ok = 1) AS ok_n,
    countIf(kind = 'http' AND status_code >= 200 AND status_code < 300) AS ok2xx_n,
    countIf((kind = 'http' AND status_code > 0) OR (kind != 'http' AND ok = 1)) AS timed_n,
    sumIf(toFloat64(total_ms), (kind = 'http' AND status_code > 0) OR (kind != 'http' AND ok = 1)) AS total_sum,
    minOrNullIf(total_ms, (kind = 'http' AND status_code > 0) OR (kind != 'http' AND ok = 1)) AS total_min,
    maxOrNullIf(total_ms, (kind = 'http' AND status_code > 0) OR (kind != 'http' AND ok = 1)) AS total_max,
    quantileTimingStateIf(0.95)(total_ms, (kind = 'http' AND status_code > 0) OR (kind != 'http' AND ok = 1)) AS total_p95,
    minOrNullIf(cert_days_left, kind = 'tls' AND (ok = 1 OR cert_not_after IS NOT NULL)) AS cert_days_min,
    argMaxStateIf(status_code, ts, kind = 'http') AS last_status
FROM upfleet.check_results_local
GROUP BY endpoint_id, kind, region, retention_days, bucket;

CREATE MATERIALIZED VIEW IF NOT EXISTS upfleet.check_results_1h_mv ON CLUSTER '{cluster}'
TO upfleet.check_results_1h_local AS
SELECT
    toStartOfHour(ts) AS bucket,
    endpoint_id, kind, region, retention_days,
    count() AS n,
    countIf(ok = 1) AS ok_n,
    countIf(kind = 'http' AND status_code >= 200 AND status_code < 300) AS ok2xx_n,
    countIf((kind = 'http' AND status_code > 0) OR (kind != 'http' AND ok = 1)) AS timed_n,
    sumIf(toFloat64(total_ms), (kind = 'http' AND status_code > 0) OR (kind != 'http' AND ok = 1)) AS total_sum,
    minOrNullIf(total_ms, (kind = 'http' AND status_code > 0) OR (kind != 'http' AND ok = 1)) AS total_min,
    maxOrNullIf(total_ms, (kind = 'http' AND status_code > 0) OR (kind != 'http' AND ok = 1)) AS total_max,
    quantileTimingStateIf(0.95)(total_ms, (kind = 'http' AND status_code > 0) OR (kind != 'http' AND ok = 1)) AS total_p95,
    minOrNullIf(cert_days_left, kind = 'tls' AND (ok = 1 OR cert_not_after IS NOT NULL)) AS cert_days_min,
    argMaxStateIf(status_code, ts, kind = 'http') AS last_status
FROM upfleet.check_results_local
GROUP BY endpoint_id, kind, region, retention_days, bucket;

-- What the control plane reads and writes. Sharding by endpoint keeps one endpoint's graph on one shard.
CREATE TABLE IF NOT EXISTS upfleet.check_results ON CLUSTER '{cluster}' AS upfleet.check_results_local
ENGINE = Distributed('{cluster}', upfleet, check_results_local, cityHash64(endpoint_id));

CREATE TABLE IF NOT EXISTS upfleet.check_results_1m ON CLUSTER '{cluster}' AS upfleet.check_results_1m_local
ENGINE = Distributed('{cluster}', upfleet, check_results_1m_local, cityHash64(endpoint_id));

CREATE TABLE IF NOT EXISTS upfleet.check_results_1h ON CLUSTER '{cluster}' AS upfleet.check_results_1h_local
ENGINE = Distributed('{cluster}', upfleet, check_results_1h_local, cityHash64(endpoint_id));
