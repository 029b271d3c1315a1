// The one "down" rule, shared by the control plane (incidents) and the agent (fast confirmation):
// a check that failed (DNS, connect, TLS, timeout, refused) or, for HTTP, a final status outside
// 2xx. Uptime counts the same way in ClickHouse (results/schema.ts SQL_2XX).

/**
 * Consecutive results that confirm a change: a region is down after this many failures in a row
 * and up after as many passes (control-plane alerting/state-machine.ts); the agent re-runs a failed
 * check soon until it passes or has failed this many times (agent scheduler, fast confirmation).
 */
export const CONFIRM_FAILURES = 2;

export interface ResultOutcomeFields {
  ok: boolean;
  status_code: number;
}

export function isDownResult(r: ResultOutcomeFields): boolean {
  return !r.ok || (r.status_code > 0 && (r.status_code < 200 || r.status_code > 299));
}
