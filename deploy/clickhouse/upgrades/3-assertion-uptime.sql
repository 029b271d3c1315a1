-- Schema step 3 on a cluster: the rollups count an HTTP check as passed when it answered a 2xx
-- and no assertion failed on it, or another status its assertions accepted (phase 'asserted'); a
-- failed assertion on a 2xx no longer counts as up (issue 22's assertions). Single nodes and chDB
-- are upgraded by the control plane at start; a cluster's views are changed here, ON CLUSTER.
--
-- Run it once, from any node, after 2-rollup-p95.sql. Until then the control plane starts and
-- logs a warning: uptime and status-page bars count a 2xx whose assertion failed as up (incidents
-- and alerts are right either way). Buckets written before keep their counts. Idempotent.
--   clickhouse-client --host ch1 --user admin --password … --multiquery < deploy/clickhouse/upgrades/3-assertion-uptime.sql

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
    argMaxStateIf(status_code, ts, kind = 'http') AS last_status
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
    argMaxStateIf(status_code, ts, kind = 'http') AS last_status
FROM upfleet.check_results_local
GROUP BY endpoint_id, kind, region, retention_days, bucket;
