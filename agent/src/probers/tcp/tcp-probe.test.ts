// TCP check against real loopback ports: open (connect time as response time), closed, a silent
// host that times out, a bad target, and private targets refused at connect time.
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Assignment } from '@upfleet/proto';
import { createHostResolver } from '../resolve';
import type { ProberOptions } from '../prober';
import { tcpProber } from './index';

let server: net.Server;
let openPort: number;
let closedPort: number;
let accepted = 0;
beforeAll(async () => {
  server = net.createServer((s) => {
    accepted++;
    s.end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  openPort = (server.address() as AddressInfo).port;
  const tmp = net.createServer();
  await new Promise<void>((r) => tmp.listen(0, '127.0.0.1', r));
  closedPort = (tmp.address() as AddressInfo).port;
  await new Promise<void>((r) => tmp.close(() => r()));
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const opts: ProberOptions = { timeoutMs: 1000, resolver: createHostResolver(), allowPrivateTargets: true };
const tcp = (target: string): Assignment => ({
  check_id: '3:tcp:EU-Germany', endpoint_id: 3, kind: 'CHECK_KIND_TCP', url: `tcp://${target}`, target, interval_seconds: 60,
  timeout_ms: 1000, region: 'EU-Germany', retention_days: 30,
});

describe('tcp check', () => {
  it('is up when the port opens; the response time is the connect time', async () => {
    const before = accepted;
    const r = await tcpProber.probe(tcp(`127.0.0.1:${openPort}`), opts);
    expect(r).toMatchObject({ ok: true, phase: '', error: '' });
    expect(r.total_ms).toBeGreaterThan(0);
    expect(r.total_ms).toBe(r.connect_ms);
    await new Promise((res) => setTimeout(res, 20));
    expect(accepted).toBe(before + 1);
  });

  it('resolves a name (localhost) and connects', async () => {
    expect(await tcpProber.probe(tcp(`localhost:${openPort}`), opts)).toMatchObject({ ok: true });
  });

  it('is down with "connection refused" on a closed port', async () => {
    expect(await tcpProber.probe(tcp(`127.0.0.1:${closedPort}`), opts)).toMatchObject({ ok: false, phase: 'connect', error: 'connection refused' });
  });

  it('times out on a host that does not answer', async () => {
    // 192.0.2.0/24 (TEST-NET-1) is never routed: the SYN goes unanswered or the network says unreachable
    const r = await tcpProber.probe(tcp('192.0.2.1:81'), { ...opts, timeoutMs: 300 });
    expect(r.ok).toBe(false);
    expect(['timeout', 'connect']).toContain(r.phase);
    if (r.phase === 'timeout') expect(r.error).toBe('timed out after 300 ms during connect');
  });

  it('refuses private addresses at connect time when private targets are denied (every notation resolves to one)', async () => {
    for (const target of [`127.0.0.1:${openPort}`, `localhost:${openPort}`, `[::ffff:127.0.0.1]:${openPort}`]) {
      const r = await tcpProber.probe(tcp(target), { ...opts, allowPrivateTargets: false });
      expect(r).toMatchObject({ ok: false, phase: 'connect' });
      expect(r.error).toMatch(/not allowed|private/);
    }
  });

  it('a target that is not host:port fails without connecting', async () => {
    expect(await tcpProber.probe(tcp('nonsense'), opts)).toMatchObject({ ok: false, phase: 'connect', error: 'invalid target: nonsense' });
  });
});
