// TCP check: up when a connection to host:port opens within the timeout; the response time is the
// connect time. The host is resolved by the agent's resolver and refused at connect time when it
// is private (every address the name gives, the same rule as HTTP).
import net from 'node:net';
import { performance } from 'node:perf_hooks';
import { parseHostPort } from '@upfleet/proto/target-syntax';
import { bareHost, refusedTarget } from '../resolve';
import { describeNetError, round, type ProbeOptions, type ProbePhase } from '../types';

export interface TcpProbeResult {
  ok: boolean;
  phase: ProbePhase;
  error: string;
  dns_ms: number;
  connect_ms: number;
  /** dns + connect */
  total_ms: number;
}

export async function probeTcp(target: string, opts: ProbeOptions): Promise<TcpProbeResult> {
  const started = performance.now();
  const out: TcpProbeResult = { ok: false, phase: '', error: '', dns_ms: 0, connect_ms: 0, total_ms: 0 };
  const finish = (phase: ProbePhase, error: string): TcpProbeResult => {
    out.ok = phase === '';
    out.phase = phase;
    out.error = error;
    out.total_ms = round(performance.now() - started);
    return out;
  };
  const hp = parseHostPort(target);
  if (!hp) return finish('connect', `invalid target: ${target}`);
  const host = bareHost(hp.host);
  const deadline = started + opts.timeoutMs;
  const t0 = performance.now();
  const r = await withTimeout(opts.resolver.resolve(host), opts.timeoutMs);
  out.dns_ms = round(performance.now() - t0);
  if (r === 'timeout') return finish('timeout', `timed out after ${opts.timeoutMs} ms during dns`);
  if (!r.ok) return finish('dns', r.error);
  const refused = refusedTarget(opts, host, r.address);
  if (refused) return finish('connect', refused);
  const t1 = performance.now();
  const outcome = await new Promise<{ error?: string; timeout?: boolean }>((resolve) => {
    const sock = net.connect({ host: r.address, port: hp.port, family: r.family, noDelay: true });
    const timer = setTimeout(() => {
      sock.destroy();
      resolve({ timeout: true });
    }, Math.max(1, deadline - performance.now()));
    sock.once('connect', () => {
      clearTimeout(timer);
      sock.destroy();
      resolve({});
    });
    sock.once('error', (e) => {
      clearTimeout(timer);
      sock.destroy();
      resolve({ error: describeNetError(e) });
    });
  });
  out.connect_ms = round(performance.now() - t1);
  if (outcome.timeout) return finish('timeout', `timed out after ${opts.timeoutMs} ms during connect`);
  if (outcome.error) return finish('connect', outcome.error);
  return finish('', '');
}

async function withTimeout<T>(p: Promise<T>, ms: number): Promise<T | 'timeout'> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([p, new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}
