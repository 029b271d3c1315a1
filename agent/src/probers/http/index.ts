// HTTP check (response code and response time): one request with a timing breakdown, made as the
// assignment's request says (method, headers, body, redirects), then judged by its assertions.
// Without assertions the rule is the old one (a final status below 400); with them, they decide
// and the first that fails is the reason ("status_code 503, expected equals 200"). A status
// outside 2xx that the assertions accept is marked PHASE_ASSERTED, so the control plane and
// ClickHouse count it up (proto/outcome.ts).
import { LIMITS_CHECK } from '@upfleet/proto/assertions';
import { PHASE_ASSERTED } from '@upfleet/proto/outcome';
import { firstFailedAssertion } from '../assertions';
import type { Prober } from '../prober';
import { probeHttp } from './http-probe';

export const httpProber: Prober = {
  kind: 'CHECK_KIND_HTTP',
  failurePhase: 'http',
  async probe(a, opts) {
    const req = a.request ?? null;
    const assertions = a.assertions ?? [];
    // The region in the user agent lets a site owner (and the alerting e2e) tell regions apart.
    const p = await probeHttp(a.url, {
      ...opts,
      userAgent: `Upfleet-Agent/0.1 (region ${a.region})`,
      ...(req ? { method: req.method || 'GET', headers: req.headers, body: req.body, followRedirects: req.follow_redirects } : {}),
      ...(assertions.length ? { keepBodyBytes: LIMITS_CHECK.assertedBodyBytes } : {}),
    });
    const fields = { ok: p.ok, phase: p.phase, error: p.error, status_code: p.status_code, redirects: p.redirects, ...p.timings };
    // A check that got an answer is judged by its assertions (an HTTP 500 may be what is expected).
    if (assertions.length && p.status_code > 0 && (p.phase === '' || p.phase === 'http') && !/redirect/.test(p.error)) {
      const reason = firstFailedAssertion(assertions, {
        status_code: p.status_code, response_time: p.timings.total_ms, body: p.body ?? '', headers: p.headers ?? {},
        ...(p.cert_days_left !== undefined ? { cert_days_left: p.cert_days_left } : {}),
      });
      if (reason) return { ...fields, ok: false, phase: 'assertion', error: reason };
      const twoXx = p.status_code >= 200 && p.status_code < 300;
      return { ...fields, ok: true, phase: twoXx ? '' : PHASE_ASSERTED, error: '' };
    }
    return fields;
  },
};
