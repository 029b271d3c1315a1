// TCP check (a tcp endpoint): connect to the assignment's target host:port; total_ms is the connect time.
import type { Prober } from '../prober';
import { probeTcp } from './tcp-probe';

export const tcpProber: Prober = {
  kind: 'CHECK_KIND_TCP',
  failurePhase: 'connect',
  async probe(a, opts) {
    const p = await probeTcp(a.target ?? '', opts);
    // the response time a user sees for a port check is the time the connection took to open
    return { ok: p.ok, phase: p.phase, error: p.error, dns_ms: p.dns_ms, connect_ms: p.connect_ms, total_ms: p.ok ? p.connect_ms : p.total_ms };
  },
};
