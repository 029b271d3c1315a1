// HTTP check (response code and response time): one request with a timing breakdown.
import type { Prober } from '../prober';
import { probeHttp } from './http-probe';

export const httpProber: Prober = {
  kind: 'CHECK_KIND_HTTP',
  failurePhase: 'http',
  async probe(a, opts) {
    // The region in the user agent lets a site owner (and the alerting e2e) tell regions apart.
    const p = await probeHttp(a.url, { ...opts, userAgent: `Upfleet-Agent/0.1 (region ${a.region})` });
    return { ok: p.ok, phase: p.phase, error: p.error, status_code: p.status_code, redirects: p.redirects, ...p.timings };
  },
};
