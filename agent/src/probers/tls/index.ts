// Certificate-expiry check: the TLS handshake's timings and the peer certificate's facts.
import type { Prober } from '../prober';
import { probeTls } from './tls-probe';

export const tlsProber: Prober = {
  kind: 'CHECK_KIND_TLS',
  failurePhase: 'tls',
  async probe(a, opts) {
    const p = await probeTls(a.url, opts);
    return {
      ok: p.ok, phase: p.phase, error: p.error, dns_ms: p.timings.dns_ms, connect_ms: p.timings.connect_ms,
      tls_ms: p.timings.tls_ms, total_ms: p.timings.tls_ms, cert_days_left: p.cert_days_left,
      cert_not_after_ms: p.cert_not_after_ms, cert_issuer: p.cert_issuer, cert_subject: p.cert_subject,
    };
  },
};
