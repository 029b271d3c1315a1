// Turns an assignment into a CheckResult by running the matching probe. The only place where
// probe results meet the wire shape.
import { randomUUID } from 'node:crypto';
import type { Assignment, CheckResult } from '@upfleet/proto';
import { Counter, type Registry } from 'prom-client';
import { probeHttp, probePing, probeTls, type HostResolver } from './probes/index';

export interface CheckRunnerOptions {
  resolver: HostResolver;
  allowPrivateTargets: boolean;
  extraCa?: string[];
  maxBodyBytes?: number;
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
  const phase = a.kind === 'CHECK_KIND_TLS' ? 'tls' : a.kind === 'CHECK_KIND_PING' ? 'connect' : 'http';
  return { ...base(a, tsMs), phase, error };
}

export function createCheckRunner(opts: CheckRunnerOptions): CheckRunner {
  return async (a) => {
    const ts = Date.now();
    const r = base(a, ts);
    const probeOpts = {
      // always positive: assignments without one are refused where they are received
      timeoutMs: a.timeout_ms,
      resolver: opts.resolver,
      // the stricter of the agent's own flag and the control plane's policy for this check
      allowPrivateTargets: opts.allowPrivateTargets && !a.private_targets_denied,
      extraCa: opts.extraCa,
    };
    switch (a.kind) {
      case 'CHECK_KIND_HTTP': {
        // The region in the user agent lets a site owner (and the alerting e2e) tell regions apart.
        const p = await probeHttp(a.url, { ...probeOpts, maxBodyBytes: opts.maxBodyBytes, userAgent: `Upfleet-Agent/0.1 (region ${a.region})` });
        return {
          ...r, ok: p.ok, phase: p.phase, error: p.error, status_code: p.status_code, redirects: p.redirects,
          ...p.timings,
        };
      }
      case 'CHECK_KIND_TLS': {
        const p = await probeTls(a.url, probeOpts);
        return {
          ...r, ok: p.ok, phase: p.phase, error: p.error, dns_ms: p.timings.dns_ms, connect_ms: p.timings.connect_ms,
          tls_ms: p.timings.tls_ms, total_ms: p.timings.tls_ms, cert_days_left: p.cert_days_left,
          cert_not_after_ms: p.cert_not_after_ms, cert_issuer: p.cert_issuer, cert_subject: p.cert_subject,
        };
      }
      case 'CHECK_KIND_PING': {
        const p = await probePing(a.url, probeOpts);
        return {
          ...r, ok: p.ok, phase: p.phase, error: p.error, dns_ms: p.dns_ms, total_ms: p.rtt_ms, ping_method: p.ping_method,
        };
      }
      default:
        return { ...r, phase: 'http', error: `unsupported check kind ${String(a.kind)}` };
    }
  };
}

const KIND_LABEL: Record<string, string> = {
  CHECK_KIND_HTTP: 'http', CHECK_KIND_TLS: 'tls', CHECK_KIND_PING: 'ping',
};

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
    const kind = KIND_LABEL[r.kind] ?? 'unknown';
    this.total++;
    this.byResult?.inc({ kind, result: r.ok ? 'ok' : 'failed' });
    if (!r.ok) {
      this.failed++;
      this.byPhase?.inc({ kind, phase: r.phase || 'http' });
    }
  }
}
