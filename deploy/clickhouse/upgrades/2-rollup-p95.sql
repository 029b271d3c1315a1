-- Schema step 2 on a cluster: the rollups' 95th percentile of total_ms becomes a quantileTiming
-- state (total_p95) instead of a quantileTDigest state (total_q), which nothing read and which was
-- a fifth of the instructions spent storing a result (docs/scaling.md). Single nodes and chDB are
-- upgraded by the control plane at start; a cluster's tables are altered here, ON CLUSTER.
--
-- Run it once, from any node, before starting a control plane of this version (its start refuses a
-- cluster whose rollups still have total_q, naming this file). Control planes of the old version
-- may keep running meanwhile: they write raw rows only and never read total_q. Every statement is
-- idempotent, so a run cut short can be run again.
--   clickhouse-client --host ch1 --user admin --password … --multiquery < deploy/clickhouse/upgrades/2-rollup-p95.sql

-- 1. The new column, on the shards' tables and on the Distributed tables in front of them.
ALTER TABLE upfleet.check_results_1m_local ON CLUSTER '{cluster}' ADD COLUMN IF NOT EXISTS total_p95 AggregateFunction(quantileTiming(0.95), Float32) AFTER total_max;
ALTER TABLE upfleet.check_results_1h_local ON CLUSTER '{cluster}' ADD COLUMN IF NOT EXISTS total_p95 AggregateFunction(quantileTiming(0.95), Float32) AFTER total_max;
ALTER TABLE upfleet.check_results_1m ON CLUSTER '{cluster}' ADD COLUMN IF NOT EXISTS total_p95 AggregateFunction(quantileTiming(0.95), Float32) AFTER total_max;
ALTER TABLE upfleet.check_results_1h ON CLUSTER '{cluster}' ADD COLUMN IF NOT EXISTS total_p95 AggregateFunction(quantileTiming(0.95), Float32) AFTER total_max;

-- 2. The views fill it instead of total_q (as in cluster-schema.sql).
ALTER TABLE upfleet.check_results_1m_mv ON CLUSTER '{cluster}' MODIFY QUERY
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

ALTER TABLE upfleet.check_results_1h_mv ON CLUSTER '{cluster}' MODIFY QUERY
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

-- 3. The old column, once no view writes it.
ALTER TABLE upfleet.check_results_1m ON CLUSTER '{cluster}' DROP COLUMN IF EXISTS total_q;
ALTER TABLE upfleet.check_results_1h ON CLUSTER '{cluster}' DROP COLUMN IF EXISTS total_q;
ALTER TABLE upfleet.check_results_1m_local ON CLUSTER '{cluster}' DROP COLUMN IF EXISTS total_q;
ALTER TABLE upfleet.check_results_1h_local ON CLUSTER '{cluster}' DROP COLUMN IF EXISTS total_q;
