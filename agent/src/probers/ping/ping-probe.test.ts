import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { closedPort } from '../../../../tests/helpers/targets';
import { probePing } from './ping-probe';
import { createHostResolver } from '../resolve';
import type { ProbeOptions } from '../types';

const opts: ProbeOptions = { timeoutMs: 1000, resolver: createHostResolver(), allowPrivateTargets: true };
const hasPing = existsSync('/usr/bin/ping') || existsSync('/bin/ping');

describe('probePing', () => {
  it.skipIf(!hasPing)('measures an ICMP round trip to loopback with the system ping (skips where iputils ping is missing or may not send ICMP)', async (ctx) => {
    const r = await probePing('http://127.0.0.1/', { ...opts, method: 'icmp' });
    if (r.error === 'system ping is not available') ctx.skip(); // ping without CAP_NET_RAW here
    expect(r).toMatchObject({ ok: true, phase: '', error: '', ping_method: 'icmp' });
    expect(r.rtt_ms).toBeGreaterThan(0);
  });

  it('falls back to a TCP connect when the ping binary is missing', async () => {
    const port = await closedPort();
    const r = await probePing(`http://127.0.0.1:${port}/`, { ...opts, method: 'icmp', pingBinary: '/nonexistent/ping' });
    expect(r).toMatchObject({ ok: false, error: 'system ping is not available' });
    const auto = await probePing(`http://127.0.0.1:${port}/`, { ...opts, method: 'tcp' });
    // A refused port still proves the host answered.
    expect(auto).toMatchObject({ ok: true, ping_method: 'tcp' });
    expect(auto.rtt_ms).toBeGreaterThan(0);
  });

  it('reports an unresolvable host in phase dns', async () => {
    const r = await probePing('no-such-host.invalid', opts);
    expect(r).toMatchObject({ ok: false, phase: 'dns', error: 'host not found: no-such-host.invalid' });
  });

  it('refuses private addresses when they are not allowed', async () => {
    const r = await probePing('http://localhost/', { ...opts, allowPrivateTargets: false });
    expect(r).toMatchObject({ ok: false, phase: 'connect', error: 'target address not allowed: localhost resolves to 127.0.0.1 is a private, loopback or link-local address (private targets are refused)' });
  });
});
