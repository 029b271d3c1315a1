// What a check is: its kinds and their names, its id, its timeout, how long its results are kept,
// how its graph is bucketed and over what window its uptime is counted. Every other part of the
// control plane asks this module instead of deciding again.
import { CHECK_KIND_TABLE, kindName, type AssignedKind } from '@upfleet/proto/check-kinds';

// The kinds table is shared with the agent (its metric labels and probers): @upfleet/proto/check-kinds.
export { CHECK_KINDS, kindName, type AssignedKind, type KindName } from '@upfleet/proto/check-kinds';

// ---- check id: `<endpoint_id>:<kind>:<region>`, stable across assignment versions ----

export function buildCheckId(endpointId: number, kind: AssignedKind, region: string): string {
  const spec = CHECK_KIND_TABLE[kind];
  if (!spec) throw new Error(`unknown check kind ${String(kind)}`);
  return `${endpointId}:${spec.name}:${region}`;
}

export function parseCheckId(checkId: string): { endpointId: number; kind: AssignedKind; region: string } | null {
  const m = /^([1-9][0-9]*):([a-z]+):(.+)$/.exec(checkId);
  if (!m) return null;
  const kind = (Object.keys(CHECK_KIND_TABLE) as AssignedKind[]).find((k) => kindName(k) === m[2]);
  return kind ? { endpointId: Number(m[1]), kind, region: m[3] } : null;
}

// ---- timeout: decided here only; the agent takes the assignment's timeout_ms ----

export const CHECK_TIMEOUT_MIN_MS = 2_000;
export const CHECK_TIMEOUT_MAX_MS = 30_000;

/** One second less than the interval, so a check ends before its next run, within 2 s..30 s. */
export function checkTimeoutMs(intervalSeconds: number): number {
  return Math.min(CHECK_TIMEOUT_MAX_MS, Math.max(CHECK_TIMEOUT_MIN_MS, intervalSeconds * 1000 - 1000));
}

// ---- retention: the plan's days, clamped where a result is stored ----

/** The Free plan's retention, used when a result carries none. */
export const DEFAULT_RETENTION_DAYS = 30;
export const MAX_RETENTION_DAYS = 3650;

export function clampRetentionDays(days: number): number {
  if (!(days > 0)) return DEFAULT_RETENTION_DAYS;
  const d = Math.trunc(days);
  return Number.isFinite(d) ? Math.min(MAX_RETENTION_DAYS, Math.max(1, d)) : 1;
}

// ---- graphs: at most 500 points per series, buckets on a ladder of round steps ----

export const GRAPH_MAX_POINTS = 500;
export const GRAPH_MAX_RANGE_MS = 400 * 86_400_000;

const GRAPH_STEPS_S = [
  1, 2, 5, 10, 15, 30, 60, 120, 180, 300, 600, 900, 1200, 1800, 3600, 7200, 10800, 21600, 43200, 86400,
  172800, 604800, 1209600, 2592000,
];

/** The smallest round step that keeps a range within GRAPH_MAX_POINTS; results/graph-plan.ts
 *  rounds it up to whole minutes or hours when it reads a rollup. */
export function graphStepSeconds(fromMs: number, toMs: number): number {
  const rangeS = Math.max(1, Math.ceil((toMs - fromMs) / 1000));
  const wanted = Math.ceil(rangeS / GRAPH_MAX_POINTS);
  return GRAPH_STEPS_S.find((s) => s >= wanted) ?? Math.ceil(wanted / 86400) * 86400;
}

// ---- uptime: the share of 2xx over this window, shown on the dashboard ----

export const UPTIME_WINDOW_MS = 7 * 86_400_000;
