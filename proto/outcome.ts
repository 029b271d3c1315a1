// The one "down" rule, shared by the control plane (incidents, live state) and the agent (fast
// confirmation): a check that failed (DNS, connect, TLS, timeout, refused, an assertion) or, for
// HTTP, a final status outside 2xx that no assertion accepted. Uptime counts the same way in
// ClickHouse (results/schema.ts SQL_HTTP_PASSED).

/**
 * The phase of an HTTP result whose status is outside 2xx but whose assertions all passed (a
 * check that expects a 404 or a 503): it is up, by the user's own rule. A failing assertion is
 * phase 'assertion' with ok false, whatever its status.
 */
export const PHASE_ASSERTED = 'asserted';

/**
 * Consecutive results that confirm a change: a region is down after this many failures in a row
 * and up after as many passes (control-plane alerting/state-machine.ts); the agent re-runs a failed
 * check soon until it passes or has failed this many times (agent scheduler, fast confirmation).
 */
export const CONFIRM_FAILURES = 2;

export interface ResultOutcomeFields {
  ok: boolean;
  status_code: number;
  phase?: string;
}

export function isDownResult(r: ResultOutcomeFields): boolean {
  if (!r.ok) return true;
  if (r.phase === PHASE_ASSERTED) return false;
  return r.status_code > 0 && (r.status_code < 200 || r.status_code > 299);
}

/** Why a down result is down, in words an alert or the dashboard shows ("HTTP 503 from EU - Germany"). */
export function downCause(r: ResultOutcomeFields & { error?: string | null; failed_action?: string }, regionLabel: string): string {
  // A browser check's error names the failing step and its reason ("step 2 (click #buy): …"),
  // a timeout too: kept whole, never shortened to "timeout".
  if (r.failed_action && r.error) return `${r.error} from ${regionLabel}`;
  // A failed assertion says why itself ("status_code 503, expected equals 200").
  if (r.phase === 'assertion' && r.error) return `${r.error} from ${regionLabel}`;
  if (r.status_code > 0 && (r.status_code < 200 || r.status_code > 299)) return `HTTP ${r.status_code} from ${regionLabel}`;
  if (r.phase === 'timeout') {
    const ms = /after (\d+) ms/.exec(r.error ?? '');
    return ms ? `timeout after ${Math.round(Number(ms[1]) / 1000)} s from ${regionLabel}` : `timeout from ${regionLabel}`;
  }
  return `${r.error || `${r.phase || 'check'} failed`} from ${regionLabel}`;
}
