// CheckResults (proto, as the agent sent them) → one JSONCompactEachRow payload, columns in
// INSERT_COLUMNS order. Each row is written as text straight from the message: no row array and
// no JSON.stringify of it (that pair cost more than the insert's parsing, see docs/scaling.md).
// Numbers the agent could get wrong are made storable here (clamped, NaN → 0), never rejected.
import type { CheckResult } from '@upfleet/proto';
import { AppError } from '../errors';
import { clampRetentionDays, kindName } from '../checks';

export const INSERT_COLUMNS: [string, ...string[]] = [
  'ts', 'endpoint_id', 'kind', 'region', 'ok', 'phase', 'status_code', 'dns_ms', 'connect_ms', 'tls_ms',
  'ttfb_ms', 'total_ms', 'cert_days_left', 'cert_not_after', 'cert_issuer', 'cert_subject', 'ping_method',
  'error', 'redirects', 'retention_days', 'result_id', 'agent_id',
];

const clamp = (n: number, lo: number, hi: number) => (Number.isFinite(n) ? Math.min(hi, Math.max(lo, n)) : lo);
const num = (n: number) => (Number.isFinite(n) ? n : 0);
const FRACTION = Array.from({ length: 1000 }, (_, i) => String(i).padStart(3, '0'));
// DateTime64(3) reads seconds with a fraction exactly; a bare integer would be taken as seconds.
const seconds = (ms: number) => {
  const t = Math.trunc(ms);
  const s = Math.floor(t / 1000);
  return `"${s}.${FRACTION[t - s * 1000]}"`;
};
// Strings the agent sends are mostly empty or plain ASCII; JSON.stringify escapes the rest.
const PLAIN = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;
const str = (s: string | undefined) => (!s ? '""' : s.length < 64 && PLAIN.test(s) ? `"${s}"` : JSON.stringify(s));

/** One row as a JSON array line (no newline). */
export function encodeRow(r: CheckResult, agentJson: string): string {
  const kind = kindName(r.kind);
  if (!kind) throw new AppError('bad_request', `unknown check kind '${r.kind}'`);
  return '[' + seconds(r.ts_ms) + ',' + Math.trunc(num(r.endpoint_id)) + ',"' + kind + '",' + str(r.region) + ',' + (r.ok ? 1 : 0) + ',' +
    str(r.phase) + ',' + clamp(Math.trunc(r.status_code), 0, 65535) + ',' + num(r.dns_ms) + ',' + num(r.connect_ms) + ',' +
    num(r.tls_ms) + ',' + num(r.ttfb_ms) + ',' + num(r.total_ms) + ',' + num(r.cert_days_left) + ',' +
    (r.cert_not_after_ms > 0 ? seconds(r.cert_not_after_ms) : 'null') + ',' + str(r.cert_issuer) + ',' + str(r.cert_subject) + ',' +
    str(r.ping_method) + ',' + str(r.error) + ',' + clamp(Math.trunc(r.redirects), 0, 255) + ',' +
    clampRetentionDays(r.retention_days) + ',' + str(r.result_id) + ',' + agentJson + ']';
}

/** The insert body for a batch: one JSONCompactEachRow line per result. */
export function encodeRows(results: readonly CheckResult[], agentId: string): Buffer {
  const agentJson = JSON.stringify(agentId);
  let text = '';
  for (let i = 0; i < results.length; i++) text += (i ? '\n' : '') + encodeRow(results[i]!, agentJson);
  return Buffer.from(text, 'utf8');
}
