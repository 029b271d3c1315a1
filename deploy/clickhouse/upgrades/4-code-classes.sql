-- Schema step 4 on a cluster: the rollups count HTTP checks by status class (code2_n .. code5_n,
-- code0_n: no response) and keep the worst failing status of a bucket (fail_code_max), so a graph
-- bucket with a failure shows it instead of the last status it ended on. Single nodes and chDB are
-- upgraded by the control plane at start; a cluster's tables and views are changed here, ON CLUSTER.
--
-- Run it once, from any node, after 3-assertion-uptime.sql and before starting a control plane of
-- this version (its start refuses a cluster whose rollups lack the columns, naming this file).
-- Buckets written before read 0 in the new columns; graphs then show their passed checks as 2xx and
-- the others as failed. Every statement is idempotent.
--   clickhouse-client --host ch1 --user admin --password … --multiquery < deploy/clickhouse/upgrades/4-code-classes.sql

-- 1. The new columns, on the shards' tables and on the Distributed tables in front of them.
ALTER TABLE upfleet.check_results_1m_local ON CLUSTER '{cluster}'
    ADD COLUMN IF NOT EXISTS code2_n SimpleAggregateFunction(sum, UInt64),
    ADD COLUMN IF NOT EXISTS code3_n SimpleAggregateFunction(sum, UInt64),
    ADD COLUMN IF NOT EXISTS code4_n SimpleAggregateFunction(sum, UInt64),
    ADD COLUMN IF NOT EXISTS code5_n SimpleAggregateFunction(sum, UInt64),
    ADD COLUMN IF NOT EXISTS code0_n SimpleAggregateFunction(sum, UInt64),
    ADD COLUMN IF NOT EXISTS fail_code_max SimpleAggregateFunction(max, UInt16);
ALTER TABLE upfleet.check_results_1h_local ON CLUSTER '{cluster}'
    ADD COLUMN IF NOT EXISTS code2_n SimpleAggregateFunction(sum, UInt64),
    ADD COLUMN IF NOT EXISTS code3_n SimpleAggregateFunction(sum, UInt64),
    ADD COLUMN IF NOT EXISTS code4_n SimpleAggregateFunction(sum, UInt64),
    ADD COLUMN IF NOT EXISTS code5_n SimpleAggregateFunction(sum, UInt64),
    ADD COLUMN IF NOT EXISTS code0_n SimpleAggregateFunction(sum, UInt64),
    ADD COLUMN IF NOT EXISTS fail_code_max SimpleAggregateFunction(max, UInt16);
ALTER TABLE upfleet.check_results_1m ON CLUSTER '{cluster}'
    ADD COLUMN IF NOT EXISTS code2_n SimpleAggregateFunction(sum, UInt64),
    ADD COLUMN IF NOT EXISTS code3_n SimpleAggregateFunction(sum, UInt64),
    ADD COLUMN IF NOT EXISTS code4_n SimpleAggregateFunction(sum, UInt64),
    ADD COLUMN IF NOT EXISTS code5_n SimpleAggregateFunction(sum, UInt64),
    ADD COLUMN IF NOT EXISTS code0_n SimpleAggregateFunction(sum, UInt64),
    ADD COLUMN IF NOT EXISTS fail_code_max SimpleAggregateFunction(max, UInt16);
ALTER TABLE upfleet.check_results_1h ON CLUSTER '{cluster}'
    ADD COLUMN IF NOT EXISTS code2_n SimpleAggregateFunction(sum, UInt64),
    ADD COLUMN IF NOT EXISTS code3_n SimpleAggregateFunction(sum, UInt64),
    ADD COLUMN IF NOT EXISTS code4_n SimpleAggregateFunction(sum, UInt64),
    ADD COLUMN IF NOT EXISTS code5_n SimpleAggregateFunction(sum, UInt64),
    ADD COLUMN IF NOT EXISTS code0_n SimpleAggregateFunction(sum, UInt64),
    ADD COLUMN IF NOT EXISTS fail_code_max SimpleAggregateFunction(max, UInt16);

-- 2. The views fill them (as in cluster-schema.sql).
ALTER TABLE upfleet.check_results_1m_mv ON CLUSTER '{cluster}' MODIFY QUERY
SELECT
    toStartOfMinute(ts) AS bucket,
    endpoint_id, kind, region, retention_days,
    count() AS n,
    countIf(ok = 1) AS ok_n,
    countIf(kind = 'http' AND (phase = 'asserted' OR (phase != 'assertion' AND status_code >= 200 AND status_code < 300))) AS ok2xx_n,
    countIf((kind = 'http' AND status_code > 0) OR (kind != 'http' AND ok = 1)) AS timed_n,
    sumIf(toFloat64(total_ms), (kind = 'http' AND status_code > 0) OR (kind != 'http' AND ok = 1)) AS total_sum,
    minOrNullIf(total_ms, (kind = 'http' AND status_code > 0) OR (kind != 'http' AND ok = 1)) AS total_min,
    maxOrNullIf(total_ms, (kind = 'http' AND status_code > 0) OR (kind != 'http' AND ok = 1)) AS total_max,
    quantileTimingStateIf(0.95)(total_ms, (kind = 'http' AND status_code > 0) OR (kind != 'http' AND ok = 1)) AS total_p95,
    minOrNullIf(cert_days_left, kind = 'tls' AND (ok = 1 OR cert_not_after IS NOT NULL)) AS cert_days_min,
    argMaxStateIf(status_code, ts, kind = 'http') AS last_status,
    countIf(kind = 'http' AND status_code >= 200 AND status_code < 300) AS code2_n,
    countIf(kind = 'http' AND status_code >= 300 AND status_code < 400) AS code3_n,
    countIf(kind = 'http' AND status_code >= 400 AND status_code < 500) AS code4_n,
    countIf(kind = 'http' AND status_code >= 500) AS code5_n,
    countIf(kind = 'http' AND status_code = 0) AS code0_n,
    maxIf(status_code, kind = 'http' AND NOT (kind = 'http' AND (phase = 'asserted' OR (phase != 'assertion' AND status_code >= 200 AND status_code < 300)))) AS fail_code_max
FROM upfleet.check_results_local
GROUP BY endpoint_id, kind, region, retention_days, bucket;

ALTER TABLE upfleet.check_results_1h_mv ON CLUSTER '{cluster}' MODIFY QUERY
SELECT
    toStartOfHour(ts) AS bucket,
    endpoint_id, kind, region, retention_days,
    count() AS n,
    countIf(ok = 1) AS ok_n,
    countIf(kind = 'http' AND (phase = 'asserted' OR (phase != 'assertion' AND status_code >= 200 AND status_code < 300))) AS ok2xx_n,
    countIf((kind = 'http' AND status_code > 0) OR (kind != 'http' AND ok = 1)) AS timed_n,
    sumIf(toFloat64(total_ms), (kind = 'http' AND status_code > 0) OR (kind != 'http' AND ok = 1)) AS total_sum,
    minOrNullIf(total_ms, (kind = 'http' AND status_code > 0) OR (kind != 'http' AND ok = 1)) AS total_min,
    maxOrNullIf(total_ms, (kind = 'http' AND status_code > 0) OR (kind != 'http' AND ok = 1)) AS total_max,
    quantileTimingStateIf(0.95)(total_ms, (kind = 'http' AND status_code > 0) OR (kind != 'http' AND ok = 1)) AS total_p95,
    minOrNullIf(cert_days_left, kind = 'tls' AND (ok = 1 OR cert_not_after IS NOT NULL)) AS cert_days_min,
    argMaxStateIf(status_code, ts, kind = 'http') AS last_status,
    countIf(kind = 'http' AND status_code >= 200 AND status_code < 300) AS code2_n,
    countIf(kind = 'http' AND status_code >= 300 AND status_code < 400) AS code3_n,
    countIf(kind = 'http' AND status_code >= 400 AND status_code < 500) AS code4_n,
    countIf(kind = 'http' AND status_code >= 500) AS code5_n,
    countIf(kind = 'http' AND status_code = 0) AS code0_n,
    maxIf(status_code, kind = 'http' AND NOT (kind = 'http' AND (phase = 'asserted' OR (phase != 'assertion' AND status_code >= 200 AND status_code < 300)))) AS fail_code_max
FROM upfleet.check_results_local
GROUP BY endpoint_id, kind, region, retention_days, bucket;
