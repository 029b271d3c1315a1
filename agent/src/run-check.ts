// Turns an assignment into a CheckResult by running its kind's prober (probers/index.ts): the
// fields every result has are set here, the kind's own fields by its prober.
import { randomUUID } from 'node:crypto';
import type { Assignment, CheckResult } from '@upfleet/proto';
import { Counter, type Registry } from 'prom-client';
import { kindName } from '@upfleet/proto/check-kinds';
import { proberFor, type BrowserRuntime, type HostResolver, type Prober } from './probers/index';

export interface CheckRunnerOptions {
  resolver: HostResolver;
  allowPrivateTargets: boolean;
  extraCa?: string[];
  maxBodyBytes?: number;
  /** Browser checks' Chromium and concurrency cap (absent: they fail saying this runner has none). */
  browser?: BrowserRuntime;
  /** The probers to pick from (default: PROBERS, one per kind of the kinds table). */
  probers?: readonly Prober[];
}

export type CheckRunner = (a: Assignment) => Promise<CheckResult>;

function base(a: Assignment, tsMs: number): CheckResult {
  return {
    check_id: a.check_id, endpoint_id: a.endpoint_id, kind: a.kind, region: a.region, ts_ms: tsMs,
    ok: false, phase: '', error: '', status_code: 0, dns_ms: 0, connect_ms: 0, tls_ms: 0, ttfb_ms: 0,
    total_ms: 0, cert_days_left: 0, cert_not_after_ms: 0, cert_issuer: '', cert_subject: '', ping_method: '',
    redirects: 0, retention_days: a.retention_days, result_id: randomUUID(),
  };
}

/** The failed result of a check that could not run to its end (its probe thread died). */
export function failedCheck(a: Assignment, error: string, tsMs = Date.now()): CheckResult {
  return { ...base(a, tsMs), phase: proberFor(a.kind)?.failurePhase ?? 'http', error };
}

export function createCheckRunner(opts: CheckRunnerOptions): CheckRunner {
  return async (a) => {
    const r = base(a, Date.now());
    const prober = opts.probers ? opts.probers.find((p) => p.kind === a.kind) : proberFor(a.kind);
    if (!prober) return { ...r, phase: 'http', error: `unsupported check kind ${String(a.kind)}` };
    const fields = await prober.probe(a, {
      // always positive: assignments without one are refused where they are received
      timeoutMs: a.timeout_ms,
      resolver: opts.resolver,
      // the stricter of the agent's own flag and the control plane's policy for this check
      allowPrivateTargets: opts.allowPrivateTargets && !a.private_targets_denied,
      extraCa: opts.extraCa,
      maxBodyBytes: opts.maxBodyBytes,
      browser: opts.browser,
    });
    return { ...r, ...fields };
  };
}

/** Counts finished checks by kind and outcome, and failures by phase (also on the registry given). */
export class CheckCounters {
  total = 0;
  failed = 0;
  private readonly byResult?: Counter<'kind' | 'result'>;
  private readonly byPhase?: Counter<'kind' | 'phase'>;

  constructor(registry?: Registry) {
    if (!registry) return;
    this.byResult = new Counter({
      name: 'upfleet_agent_checks_total', help: 'Checks finished, by kind and result.',
      labelNames: ['kind', 'result'], registers: [registry],
    });
    this.byPhase = new Counter({
      name: 'upfleet_agent_checks_failed_total', help: 'Failed checks, by kind and phase.',
      labelNames: ['kind', 'phase'], registers: [registry],
    });
  }

  record(r: CheckResult): void {
    const kind = kindName(r.kind) ?? 'unknown';
    this.total++;
    this.byResult?.inc({ kind, result: r.ok ? 'ok' : 'failed' });
    if (!r.ok) {
      this.failed++;
      this.byPhase?.inc({ kind, phase: r.phase || 'http' });
    }
  }
}
