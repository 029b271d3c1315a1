// DNS check: ask for a name's records of one type (A, AAAA, CNAME, MX, TXT, NS) from the one the
// check names (ip or ip:port, through node's dns.Resolver.setServers), else the control plane's
// default resolvers (DNS_RESOLVERS, sent when private targets are denied), else the system's.
// Up when the lookup answers (and the assertions on the answer pass); the response time is the
// lookup time. A private resolver is refused at query time like any private target.
import { promises as dnsp } from 'node:dns';
import { performance } from 'node:perf_hooks';
import { parseResolver } from '@upfleet/proto/target-syntax';
import { refusedTarget } from '../resolve';
import { round, type ProbeOptions, type ProbePhase } from '../types';

export interface DnsProbeResult {
  ok: boolean;
  phase: ProbePhase;
  error: string;
  /** the records, one per line in the order the server gave them (MX: "10 mail.example.com") */
  answer: string;
  total_ms: number;
}

const DNS_TEXT: Record<string, string> = {
  ENOTFOUND: 'name not found (NXDOMAIN)',
  ENODATA: 'no records of this type',
  ESERVFAIL: 'server failure (SERVFAIL)',
  EREFUSED: 'query refused',
  ETIMEOUT: 'no answer from the resolver',
  ECONNREFUSED: 'resolver refused the connection',
  EBADRESP: 'malformed answer',
};

async function lookup(r: dnsp.Resolver, name: string, type: string): Promise<string[]> {
  switch (type) {
    case 'AAAA': return r.resolve6(name);
    case 'CNAME': return r.resolveCname(name);
    case 'MX': return (await r.resolveMx(name)).map((m) => `${m.priority} ${m.exchange}`);
    case 'TXT': return (await r.resolveTxt(name)).map((parts) => parts.join(''));
    case 'NS': return r.resolveNs(name);
    default: return r.resolve4(name);
  }
}

const serverText = (s: { address: string; port: number }) => (s.address.includes(':') ? `[${s.address}]:${s.port}` : `${s.address}:${s.port}`);

export async function probeDns(name: string, recordType: string, resolverText: string, opts: ProbeOptions, defaultResolvers: string[] = []): Promise<DnsProbeResult> {
  const started = performance.now();
  const out: DnsProbeResult = { ok: false, phase: '', error: '', answer: '', total_ms: 0 };
  const finish = (phase: ProbePhase, error: string): DnsProbeResult => {
    out.ok = phase === '';
    out.phase = phase;
    out.error = error;
    out.total_ms = round(performance.now() - started);
    return out;
  };
  const resolver = new dnsp.Resolver({ timeout: Math.max(1, Math.min(opts.timeoutMs, 5000)), tries: 1 });
  if (resolverText) {
    const server = parseResolver(resolverText);
    if (!server) return finish('dns', `invalid resolver: ${resolverText}`);
    const refused = refusedTarget(opts, server.address, server.address);
    if (refused) return finish('connect', refused);
    resolver.setServers([serverText(server)]);
  } else if (defaultResolvers.length) {
    const servers = defaultResolvers.map(parseResolver).filter((x) => x !== null);
    if (servers.length === 0) return finish('dns', `invalid resolvers: ${defaultResolvers.join(', ')}`);
    resolver.setServers(servers.map(serverText));
  }
  let timer: NodeJS.Timeout | undefined;
  try {
    const records = await Promise.race([
      lookup(resolver, name, recordType),
      new Promise<never>((_, reject) => (timer = setTimeout(() => reject(Object.assign(new Error('timeout'), { code: 'UPFLEET_TIMEOUT' })), opts.timeoutMs))),
    ]);
    out.answer = records.join('\n');
    return finish('', '');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? '';
    if (code === 'UPFLEET_TIMEOUT') return finish('timeout', `timed out after ${opts.timeoutMs} ms during dns`);
    return finish('dns', `${recordType} ${name}: ${DNS_TEXT[code] ?? (err as Error).message}`);
  } finally {
    clearTimeout(timer);
    resolver.cancel();
  }
}
