// DNS check (a dns endpoint): look up the target's records; assertions (source answer) judge the
// records; total_ms is the lookup time.
import { firstFailedAssertion } from '../assertions';
import type { Prober } from '../prober';
import { probeDns } from './dns-probe';

export const dnsProber: Prober = {
  kind: 'CHECK_KIND_DNS',
  failurePhase: 'dns',
  async probe(a, opts) {
    const p = await probeDns(a.target ?? '', a.record_type || 'A', a.resolver ?? '', opts, a.default_resolvers ?? []);
    const fields = { ok: p.ok, phase: p.phase, error: p.error, dns_ms: p.total_ms, total_ms: p.total_ms };
    if (!p.ok) return fields;
    const reason = firstFailedAssertion(a.assertions, { answer: p.answer });
    return reason ? { ...fields, ok: false, phase: 'assertion', error: reason } : fields;
  },
};
