-- Schema step 5 on a cluster: the raw table keeps browser checks' details (the failing step and its
-- action, DOMContentLoaded, load and LCP, each step's time, console errors, failed requests and the
-- ids of the screenshots the control plane stored). Single nodes and chDB are upgraded by the
-- control plane at start; a cluster's tables are changed here, ON CLUSTER.
--
-- Run it once, from any node, after 4-code-classes.sql and before starting a control plane of this
-- version (its start refuses a cluster whose raw table lacks the columns, naming this file). Rows
-- written before read 0, '' and []. Every statement is idempotent.
--   clickhouse-client --host ch1 --user admin --password … --multiquery < deploy/clickhouse/upgrades/5-browser-fields.sql

ALTER TABLE upfleet.check_results_local ON CLUSTER '{cluster}'
    ADD COLUMN IF NOT EXISTS failed_step UInt16,
    ADD COLUMN IF NOT EXISTS failed_action LowCardinality(String),
    ADD COLUMN IF NOT EXISTS dom_content_loaded_ms Float32,
    ADD COLUMN IF NOT EXISTS load_ms Float32,
    ADD COLUMN IF NOT EXISTS lcp_ms Float32,
    ADD COLUMN IF NOT EXISTS step_ms Array(Float64),
    ADD COLUMN IF NOT EXISTS console_errors Array(String),
    ADD COLUMN IF NOT EXISTS failed_requests Array(String),
    ADD COLUMN IF NOT EXISTS screenshot_ids Array(String);
ALTER TABLE upfleet.check_results ON CLUSTER '{cluster}'
    ADD COLUMN IF NOT EXISTS failed_step UInt16,
    ADD COLUMN IF NOT EXISTS failed_action LowCardinality(String),
    ADD COLUMN IF NOT EXISTS dom_content_loaded_ms Float32,
    ADD COLUMN IF NOT EXISTS load_ms Float32,
    ADD COLUMN IF NOT EXISTS lcp_ms Float32,
    ADD COLUMN IF NOT EXISTS step_ms Array(Float64),
    ADD COLUMN IF NOT EXISTS console_errors Array(String),
    ADD COLUMN IF NOT EXISTS failed_requests Array(String),
    ADD COLUMN IF NOT EXISTS screenshot_ids Array(String);
