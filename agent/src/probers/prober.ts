// The prober interface: one per check kind, each in its own folder (agent/src/probers/<kind>/),
// registered in one table (index.ts). A prober turns an assignment into the result fields its kind
// reports; run-check.ts adds the fields every result has. Probers never throw: a failing target is data.
import type { Assignment, CheckResult } from '@upfleet/proto';
import type { AssignedKind } from '@upfleet/proto/check-kinds';
import type { HostResolver } from './resolve';
import type { ProbePhase } from './types';
import type { Limiter } from './browser/limiter';
import type { BrowserSupport } from './browser/support';

/** What browser checks need: the agent's Chromium, whether it runs, and the cap on browsers at once. */
export interface BrowserRuntime {
  chromiumPath: string;
  support: BrowserSupport;
  limiter: Limiter;
  userAgent?: string;
}

/** What every prober gets besides its assignment. */
export interface ProberOptions {
  /** the assignment's timeout_ms (always positive: assignments without one are refused where received) */
  timeoutMs: number;
  resolver: HostResolver;
  /** the stricter of the agent's own flag and the control plane's policy for this check */
  allowPrivateTargets: boolean;
  extraCa?: string[];
  maxBodyBytes?: number;
  /** absent: this runner has no browser (probe threads never run browser checks) */
  browser?: BrowserRuntime;
}

/** The result fields a prober fills; the rest (ids, kind, region, time, retention) are run-check.ts's. */
export type ProbedFields = Partial<Omit<CheckResult, 'check_id' | 'endpoint_id' | 'kind' | 'region' | 'ts_ms' | 'retention_days' | 'result_id'>>;

export interface Prober {
  kind: AssignedKind;
  /** The phase of a failed result when the check could not run to its end (its probe thread died). */
  failurePhase: Exclude<ProbePhase, ''>;
  probe(a: Assignment, opts: ProberOptions): Promise<ProbedFields>;
}
