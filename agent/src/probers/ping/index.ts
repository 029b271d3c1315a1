// Ping check: ICMP echo, or a TCP connect where ICMP is not usable; the round trip is total_ms.
import type { Prober } from '../prober';
import { probePing } from './ping-probe';

export const pingProber: Prober = {
  kind: 'CHECK_KIND_PING',
  failurePhase: 'connect',
  async probe(a, opts) {
    const p = await probePing(a.url, opts);
    return { ok: p.ok, phase: p.phase, error: p.error, dns_ms: p.dns_ms, total_ms: p.rtt_ms, ping_method: p.ping_method };
  },
};
