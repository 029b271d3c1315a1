// Ping check: ICMP echo through the system `ping` (iputils) where it works; otherwise a TCP
// connect to the URL's port, reported with ping_method 'tcp' so graphs do not mix the two.
import { execFile } from 'node:child_process';
import net from 'node:net';
import { performance } from 'node:perf_hooks';
import { bareHost, refusedTarget } from '../resolve';
import { describeNetError, round, type ProbeOptions, type ProbePhase } from '../types';

export type PingMethod = 'icmp' | 'tcp';

export interface PingProbeOptions extends ProbeOptions {
  /** 'auto' (default): icmp while the system ping works, tcp otherwise */
  method?: PingMethod | 'auto';
  pingBinary?: string;
}

export interface PingProbeResult {
  ok: boolean;
  phase: ProbePhase;
  error: string;
  /** round trip (icmp) or connect time (tcp), ms; 0 when no reply */
  rtt_ms: number;
  dns_ms: number;
  ping_method: PingMethod;
}

/** host and TCP port of a ping target from a URL or a bare host. */
export function pingTarget(input: string): { host: string; port: number } | undefined {
  try {
    const u = new URL(input.includes('://') ? input : `http://${input}`);
    const port = Number(u.port) || (u.protocol === 'https:' ? 443 : 80);
    return { host: bareHost(u.hostname), port };
  } catch {
    return undefined;
  }
}

// Learned once per process: a container without CAP_NET_RAW or without iputils falls back to tcp.
let icmpUsable: boolean | undefined;

export async function probePing(input: string, opts: PingProbeOptions): Promise<PingProbeResult> {
  const method = opts.method ?? 'auto';
  const result: PingProbeResult = { ok: false, phase: '', error: '', rtt_ms: 0, dns_ms: 0, ping_method: method === 'tcp' ? 'tcp' : 'icmp' };
  const target = pingTarget(input);
  if (!target || !target.host) return { ...result, phase: 'dns', error: `invalid host: ${input}` };

  const t0 = performance.now();
  const r = await opts.resolver.resolve(target.host);
  result.dns_ms = round(performance.now() - t0);
  if (!r.ok) return { ...result, phase: 'dns', error: r.error };
  const refused = refusedTarget(opts, bareHost(target.host), r.address);
  if (refused) return { ...result, phase: 'connect', error: refused };

  if (method === 'icmp' || (method === 'auto' && icmpUsable !== false)) {
    const icmp = await pingIcmp(r.address, r.family, opts);
    if (icmp !== 'unusable') {
      if (method === 'auto') icmpUsable = true;
      return { ...result, ...icmp, ping_method: 'icmp' };
    }
    if (method === 'icmp') return { ...result, phase: 'connect', error: 'system ping is not available' };
    icmpUsable = false;
  }
  return { ...result, ...(await pingTcp(r.address, target.port, opts.timeoutMs)), ping_method: 'tcp' };
}

type PingOutcome = Pick<PingProbeResult, 'ok' | 'phase' | 'error' | 'rtt_ms'>;

function pingIcmp(address: string, family: 4 | 6, opts: PingProbeOptions): Promise<PingOutcome | 'unusable'> {
  const waitS = Math.max(0.2, opts.timeoutMs / 1000).toFixed(1);
  const args = ['-n', '-c', '1', '-W', waitS, family === 6 ? '-6' : '-4', address];
  return new Promise((resolve) => {
    execFile(
      opts.pingBinary ?? 'ping', args,
      { timeout: opts.timeoutMs + 1000, env: { LC_ALL: 'C', PATH: '/usr/bin:/bin:/usr/sbin:/sbin' } },
      (err, stdout, stderr) => {
        const rtt = /time[=<]([\d.]+)\s*ms/.exec(stdout);
        if (!err && rtt) return resolve({ ok: true, phase: '', error: '', rtt_ms: Number(rtt[1]) });
        const e = err as { code?: number | string; killed?: boolean } | null;
        if (e && (e.code === 'ENOENT' || e.code === 'EACCES')) return resolve('unusable');
        if (/not permitted|permission denied|socket:|capabilit/i.test(stderr)) return resolve('unusable');
        if (e?.killed || e?.code === 1) {
          return resolve({ ok: false, phase: 'timeout', error: `no echo reply within ${opts.timeoutMs} ms`, rtt_ms: 0 });
        }
        const line = stderr.trim().split('\n').pop() || stdout.trim().split('\n').pop() || 'ping failed';
        resolve({ ok: false, phase: 'connect', error: line.replace(/^ping: /, ''), rtt_ms: 0 });
      },
    );
  });
}

/** A refused connection still proves the host answered, so it counts as a reply. */
function pingTcp(address: string, port: number, timeoutMs: number): Promise<PingOutcome> {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const sock = net.connect({ host: address, port });
    const done = (r: PingOutcome): void => {
      clearTimeout(timer);
      sock.destroy();
      resolve(r);
    };
    const timer = setTimeout(
      () => done({ ok: false, phase: 'timeout', error: `no TCP answer within ${timeoutMs} ms`, rtt_ms: 0 }),
      timeoutMs,
    );
    sock.once('connect', () => done({ ok: true, phase: '', error: '', rtt_ms: round(performance.now() - t0) }));
    sock.once('error', (e) => {
      if ((e as NodeJS.ErrnoException).code === 'ECONNREFUSED') {
        return done({ ok: true, phase: '', error: '', rtt_ms: round(performance.now() - t0) });
      }
      done({ ok: false, phase: 'connect', error: describeNetError(e), rtt_ms: 0 });
    });
  });
}
