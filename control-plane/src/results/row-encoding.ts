// One CheckResult (proto, as the agent sent it) → one ClickHouse row, in INSERT_COLUMNS order.
// Numbers the agent could get wrong are made storable here (clamped, NaN → 0), never rejected.
import type { CheckResult } from '@upfleet/proto';
import { AppError } from '../errors';
import { clampRetentionDays, kindName } from '../checks';

export type Row = Array<string | number | null>;

export const INSERT_COLUMNS: [string, ...string[]] = [
  'ts', 'endpoint_id', 'kind', 'region', 'ok', 'phase', 'status_code', 'dns_ms', 'connect_ms', 'tls_ms',
  'ttfb_ms', 'total_ms', 'cert_days_left', 'cert_not_after', 'cert_issuer', 'cert_subject', 'ping_method',
  'error', 'redirects', 'retention_days', 'result_id', 'agent_id',
];

const clamp = (n: number, lo: number, hi: number) => (Number.isFinite(n) ? Math.min(hi, Math.max(lo, n)) : lo);
const num = (n: number) => (Number.isFinite(n) ? n : 0);
// DateTime64(3) reads seconds with a fraction exactly; a bare integer would be taken as seconds.
const seconds = (ms: number) => (Math.trunc(ms) / 1000).toFixed(3);

export function encodeRow(r: CheckResult, agentId: string): Row {
  const kind = kindName(r.kind);
  if (!kind) throw new AppError('bad_request', `unknown check kind '${r.kind}'`);
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
    clampRetentionDays(r.retention_days),
    r.result_id ?? '',
    agentId,
  ];
}
