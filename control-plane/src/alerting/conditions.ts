// What a check result says about each alert condition of its endpoint: failing or passing, and why.
// Pure: no SQLite, no clock.
import type { CheckResult } from '@upfleet/proto';
import { downCause, isDownResult } from '@upfleet/proto/outcome';
import { FEATURES, type Feature, type ThresholdOperator } from '@upfleet/proto/rest';
import { featureKind, kindNamesWhere } from '@upfleet/proto/check-kinds';
import { kindName, type KindName } from '../checks';

export const DOWN = 'down';

export interface ThresholdRule {
  condition: string;
  type: Feature;
  operator: ThresholdOperator;
  value: number;
  /** Region key ('EU-Germany'), or null for every region the check runs in. */
  region: string | null;
}

export interface Observation {
  condition: string;
  failing: boolean;
  /** Why it fails, for the incident's cause text. */
  cause: string;
}

export const thresholdCondition = (type: string, region: string | null) => `threshold:${type}:${region ?? 'any'}`;

/** The check kind each feature's threshold is judged on, from the kinds table (response_time → http, …). */
const THRESHOLD_KIND = Object.fromEntries(FEATURES.map((f) => [f, featureKind(f)])) as Record<Feature, KindName>;

/** The kinds whose results say whether an endpoint is down (an endpoint runs one of them). */
export const DOWN_KINDS: readonly KindName[] = kindNamesWhere((s) => s.down);

export const kindOfCondition = (condition: string): KindName =>
  condition === DOWN ? 'http' : THRESHOLD_KIND[condition.split(':')[1] as Feature];

export function compare(actual: number, op: ThresholdOperator, limit: number): boolean {
  switch (op) {
    case '>': return actual > limit;
    case '<': return actual < limit;
    case '>=': return actual >= limit;
    case '<=': return actual <= limit;
    case '=': return actual === limit;
    case '!=': return actual !== limit;
  }
}

const num = (n: number) => Math.round(n).toLocaleString('en-US');

/** The same rule as uptime: failed, or for HTTP a final status outside 2xx. */
export const isDown = isDownResult;

/** The measured value a threshold compares, or null when the result carries none. */
function measured(type: Feature, r: CheckResult): number | null {
  switch (type) {
    case 'response_time': return r.status_code > 0 ? r.total_ms : null;
    case 'response_code': return r.status_code > 0 ? r.status_code : null;
    case 'ping_host': return r.ok ? r.total_ms : null;
    // Days begun count: a certificate valid 4.3 more days "expires in 5 days"; an expired one counts down.
    case 'cert_expiry': return r.cert_not_after_ms ? (r.cert_days_left > 0 ? Math.ceil(r.cert_days_left) : Math.floor(r.cert_days_left)) : null;
  }
}

function thresholdCause(t: ThresholdRule, actual: number): string {
  switch (t.type) {
    case 'response_time': return `response time ${num(actual)} ms ${t.operator} ${num(t.value)} ms`;
    case 'response_code': return `response code ${actual} ${t.operator} ${t.value}`;
    case 'ping_host': return `ping ${num(actual)} ms ${t.operator} ${num(t.value)} ms`;
    case 'cert_expiry': return actual < 0 ? `certificate expired ${-actual} day${actual === -1 ? '' : 's'} ago` : `certificate expires in ${actual} day${actual === 1 ? '' : 's'}`;
  }
}

/** Every condition this result informs, in a fixed order. */
export function observe(r: CheckResult, thresholds: readonly ThresholdRule[], regionLabel: string): Observation[] {
  const kind = kindName(r.kind);
  const out: Observation[] = [];
  if (kind && DOWN_KINDS.includes(kind)) out.push({ condition: DOWN, failing: isDown(r), cause: isDown(r) ? downCause(r, regionLabel) : '' });
  for (const t of thresholds) {
    if (THRESHOLD_KIND[t.type] !== kind || (t.region !== null && t.region !== r.region)) continue;
    const actual = measured(t.type, r);
    if (actual === null) continue; // no figure (e.g. a refused connection): the threshold cannot say
    const failing = compare(actual, t.operator, t.value);
    out.push({ condition: t.condition, failing, cause: failing ? thresholdCause(t, actual) : '' });
  }
  return out;
}
