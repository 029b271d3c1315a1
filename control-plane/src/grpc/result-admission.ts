// Which results of a batch the control plane stores: only for checks it assigned to the sending
// agent (now, or when the agent made the result), dated within a sane window of now. Everything the row
// could lie about is taken from the server's side instead: the endpoint, kind and retention from
// the assignment (the owner's plan), the region from the agent's registration.
import type { Assignment, CheckResult } from '@upfleet/proto';
import type { AuthenticatedAgent } from '../services/ingest';

/** An agent catching up after a long outage still fits; older rows are refused. */
export const RESULT_MAX_AGE_MS = 2 * 86_400_000;
/** Clock skew allowed for rows dated in the future. */
export const RESULT_MAX_AHEAD_MS = 5 * 60_000;

export type RejectReason = 'not_assigned' | 'mismatch' | 'too_old' | 'in_future';

export interface Admission {
  rows: CheckResult[];
  rejected: Partial<Record<RejectReason, number>>;
  rejectedCount: number;
}

/** Admitted rows are the given objects, corrected in place (endpoint, kind, region, retention). */
export type ResultAdmission = (agent: AuthenticatedAgent, results: CheckResult[]) => Admission;

export function createResultAdmission(deps: {
  /** the assignment behind `checkId` when the agent holds it, or held it when it made the result (dated `tsMs`), else null */
  assignedTo(agentId: string, region: string, checkId: string, registeredAt: number | undefined, tsMs: number): Assignment | null;
  /** Told a batch's check ids before assignedTo is asked about each: what it will read, it reads at once. */
  prepareBatch?(agentId: string, registeredAt: number | undefined, checkIds: Iterable<string>): void;
  now?: () => number;
}): ResultAdmission {
  const now = deps.now ?? Date.now;
  return (agent, results) => {
    const t = now();
    deps.prepareBatch?.(agent.agentId, agent.registeredAt, results.map((r) => String(r.check_id ?? '')));
    const rows: CheckResult[] = [];
    const rejected: Partial<Record<RejectReason, number>> = {};
    const reject = (why: RejectReason) => {
      rejected[why] = (rejected[why] ?? 0) + 1;
    };
    for (const r of results) {
      const a = deps.assignedTo(agent.agentId, agent.region, String(r.check_id ?? ''), agent.registeredAt, Number(r.ts_ms));
      if (!a) reject('not_assigned');
      // the row must describe the check it names (an unknown kind or another endpoint is not it)
      else if (r.kind !== a.kind || Number(r.endpoint_id) !== a.endpoint_id) reject('mismatch');
      else if (!(r.ts_ms >= t - RESULT_MAX_AGE_MS)) reject('too_old');
      else if (r.ts_ms > t + RESULT_MAX_AHEAD_MS) reject('in_future');
      else {
        // Corrected in place: the objects are this batch's own, fresh from the decoder, and a copy
        // per result was ~0.5 µs plus its garbage at 100k results/s.
        r.endpoint_id = a.endpoint_id;
        r.kind = a.kind;
        r.region = agent.region;
        r.retention_days = a.retention_days;
        rows.push(r);
      }
    }
    return { rows, rejected, rejectedCount: results.length - rows.length };
  };
}
