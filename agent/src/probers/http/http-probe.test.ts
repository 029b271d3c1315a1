import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTargets, type Targets } from '../../../../tests/helpers/targets';
import { probeHttp, type HttpProbeOptions } from './http-probe';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createHostResolver, isPrivateAddress } from '../resolve';

let t: Targets;
let opts: HttpProbeOptions;

beforeAll(async () => {
  t = await startTargets();
  opts = { timeoutMs: 2000, resolver: createHostResolver(), allowPrivateTargets: true, extraCa: [t.caPem] };
});
afterAll(() => t.close());

describe('probeHttp', () => {
  it('returns ok with status 200 and positive timings for a healthy target', async () => {
    const r = await probeHttp(t.http.ok, opts);
    expect(r).toMatchObject({ ok: true, phase: '', error: '', status_code: 200, redirects: 0 });
    expect(r.timings.connect_ms).toBeGreaterThan(0);
    expect(r.timings.ttfb_ms).toBeGreaterThan(0);
    expect(r.timings.total_ms).toBeGreaterThanOrEqual(r.timings.connect_ms + r.timings.ttfb_ms);
  });

  it('opens a new connection for every check', async () => {
    const before = t.connections();
    for (let i = 0; i < 3; i++) {
      const r = await probeHttp(t.http.ok, opts);
      expect(r.ok && r.timings.connect_ms > 0).toBe(true);
    }
    expect(t.connections() - before).toBe(3);
  });

  it('records status 500 as a failed check in phase http', async () => {
    const r = await probeHttp(t.http.serverError, opts);
    expect(r).toMatchObject({ ok: false, phase: 'http', status_code: 500, error: 'HTTP 500' });
  });

  it('follows a 301 chain to the final 200 and counts the hops', async () => {
    const r = await probeHttp(t.http.redirectChain, opts);
    expect(r).toMatchObject({ ok: true, status_code: 200, redirects: 3 });
    expect(r.final_url).toMatch(/\/ok$/);
  });

  it('stops a redirect loop with an error instead of following it forever', async () => {
    const r = await probeHttp(t.http.redirectLoop, opts);
    expect(r.ok).toBe(false);
    expect(r.phase).toBe('http');
    expect(r.error).toMatch(/redirect loop detected/);
    expect(r.status_code).toBe(301);
  });

  it('gives up after the redirect limit', async () => {
    const r = await probeHttp(t.http.redirectLong, opts);
    expect(r).toMatchObject({ ok: false, phase: 'http', redirects: 5, error: 'too many redirects (more than 5)' });
    const more = await probeHttp(t.http.redirectLong, { ...opts, maxRedirects: 10 });
    expect(more).toMatchObject({ ok: true, redirects: 10, status_code: 200 });
  });

  it('times out a slow target with phase timeout', async () => {
    const started = Date.now();
    const r = await probeHttp(t.http.slow, { ...opts, timeoutMs: 300 });
    expect(r).toMatchObject({ ok: false, phase: 'timeout', status_code: 0 });
    expect(r.error).toBe('timed out after 300 ms during http');
    expect(Date.now() - started).toBeLessThan(1500);
  });

  it('caps the body read of a huge response and still reports the status', async () => {
    const r = await probeHttp(t.http.huge, { ...opts, maxBodyBytes: 256 * 1024 });
    expect(r).toMatchObject({ ok: true, status_code: 200, body_truncated: true });
    expect(r.body_bytes).toBeGreaterThanOrEqual(256 * 1024);
    expect(r.body_bytes).toBeLessThan(2 * 1024 * 1024);
  });

  it('reports a refused connection in phase connect', async () => {
    const r = await probeHttp(t.refused, opts);
    expect(r).toMatchObject({ ok: false, phase: 'connect', error: 'connection refused', status_code: 0 });
  });

  it('reports an unresolvable host in phase dns', async () => {
    const r = await probeHttp(t.unresolvable, opts);
    expect(r).toMatchObject({ ok: false, phase: 'dns', error: 'host not found: no-such-host.invalid' });
  });

  it('measures the TLS handshake of a trusted HTTPS target', async () => {
    const r = await probeHttp(t.https.valid, opts);
    expect(r).toMatchObject({ ok: true, status_code: 200 });
    expect(r.timings.tls_ms).toBeGreaterThan(0);
  });

  it('fails an expired certificate in phase tls', async () => {
    const r = await probeHttp(t.https.expired, opts);
    expect(r).toMatchObject({ ok: false, phase: 'tls', error: 'certificate has expired', status_code: 0 });
  });

  it('fails a self-signed certificate in phase tls', async () => {
    const r = await probeHttp(t.https.selfSigned, opts);
    expect(r).toMatchObject({ ok: false, phase: 'tls', error: 'self-signed certificate' });
  });

  it('refuses loopback targets when private targets are not allowed', async () => {
    const before = t.hits();
    const r = await probeHttp(t.http.ok, { ...opts, allowPrivateTargets: false });
    expect(r).toMatchObject({ ok: false, phase: 'connect', error: expect.stringMatching(/^target address not allowed: 127\.0\.0\.1 is a private/) });
    expect(t.hits()).toBe(before);
  });

  it('refuses a host name that resolves to loopback, checked after DNS', async () => {
    const r = await probeHttp('http://localhost:1/', { ...opts, allowPrivateTargets: false });
    expect(r.error).toBe('target address not allowed: localhost resolves to 127.0.0.1 is a private, loopback or link-local address (private targets are refused)');
  });

  it('refuses a redirect hop to a name that resolves to a private address, before connecting to it', async () => {
    // The lab: 127.0.0.1 plays a public site; internal-api.test (hosts file) resolves to 127.0.0.2,
    // which stays private. The public site redirects there; nothing may reach 127.0.0.2.
    let internalHits = 0;
    const internal = http.createServer((_q, res) => { internalHits++; res.end('secret'); });
    await new Promise<void>((r) => internal.listen(0, '127.0.0.2', () => r()));
    const internalPort = (internal.address() as AddressInfo).port;
    const site = http.createServer((_q, res) => res.writeHead(302, { location: `http://internal-api.test:${internalPort}/latest/meta-data` }).end());
    await new Promise<void>((r) => site.listen(0, '127.0.0.1', () => r()));
    const dir = mkdtempSync(path.join(tmpdir(), 'upfleet-hosts-'));
    writeFileSync(path.join(dir, 'hosts'), '127.0.0.2 internal-api.test\n');
    try {
      const lab = {
        ...opts,
        resolver: createHostResolver({ hostsFile: path.join(dir, 'hosts') }),
        allowPrivateTargets: false,
        isPrivate: (a: string) => a !== '127.0.0.1' && isPrivateAddress(a),
      };
      const r = await probeHttp(`http://127.0.0.1:${(site.address() as AddressInfo).port}/`, lab);
      expect(r).toMatchObject({
        ok: false, phase: 'connect', redirects: 1, status_code: 302,
        error: 'target address not allowed: internal-api.test resolves to 127.0.0.2 is a private, loopback or link-local address (private targets are refused)',
      });
      expect(internalHits).toBe(0);
      // the same hop is followed when private targets are allowed: the refusal is the guard's doing
      const allowed = await probeHttp(`http://127.0.0.1:${(site.address() as AddressInfo).port}/`, { ...lab, allowPrivateTargets: true });
      expect(allowed).toMatchObject({ ok: true, status_code: 200, redirects: 1 });
      expect(internalHits).toBe(1);
    } finally {
      site.close();
      internal.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('returns an invalid URL as data', async () => {
    const r = await probeHttp('not a url', opts);
    expect(r).toMatchObject({ ok: false, phase: 'http', error: 'invalid URL: not a url' });
  });
});
