import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTargets, type Targets } from '../../../../tests/helpers/targets';
import { createHostResolver } from '../resolve';
import { probeTls } from './tls-probe';
import type { ProbeOptions } from '../types';

let t: Targets;
let opts: ProbeOptions;

beforeAll(async () => {
  t = await startTargets();
  opts = { timeoutMs: 2000, resolver: createHostResolver(), allowPrivateTargets: true, extraCa: [t.caPem] };
});
afterAll(() => t.close());

describe('probeTls', () => {
  it('reads days left, issuer and subject of a valid certificate', async () => {
    const r = await probeTls(t.https.valid, opts);
    expect(r).toMatchObject({ ok: true, phase: '', error: '', authorized: true });
    expect(r.cert_days_left).toBeGreaterThan(89);
    expect(r.cert_days_left).toBeLessThan(90.01);
    expect(r.cert_issuer).toContain('CN=Upfleet Test CA');
    expect(r.cert_subject).toBe('CN=localhost');
    expect(r.cert_not_after_ms).toBeGreaterThan(Date.now());
    expect(r.timings.tls_ms).toBeGreaterThan(0);
  });

  it('reports about 5 days left for a certificate expiring soon, still ok', async () => {
    const r = await probeTls(t.https.expiring, opts);
    expect(r.ok).toBe(true);
    expect(r.cert_days_left).toBeGreaterThan(4.99);
    expect(r.cert_days_left).toBeLessThanOrEqual(5);
  });

  it('returns ok=false with phase tls when the certificate is expired, with negative days', async () => {
    const r = await probeTls(t.https.expired, opts);
    expect(r).toMatchObject({ ok: false, phase: 'tls', error: 'certificate has expired' });
    expect(r.cert_days_left).toBeLessThan(-1.9);
  });

  it('returns ok=false for a self-signed certificate but still reads it', async () => {
    const r = await probeTls(t.https.selfSigned, opts);
    expect(r).toMatchObject({ ok: false, phase: 'tls', error: 'self-signed certificate', authorized: false });
    expect(r.cert_days_left).toBeGreaterThan(89);
  });

  it('returns ok=false when the certificate does not name the host', async () => {
    const r = await probeTls(t.https.wrongHost, opts);
    expect(r).toMatchObject({ ok: false, phase: 'tls', error: 'hostname mismatch: certificate is not valid for localhost' });
  });

  it('returns ok=false for a certificate from an unknown CA', async () => {
    const r = await probeTls(t.https.valid, { ...opts, extraCa: undefined });
    expect(r).toMatchObject({ ok: false, phase: 'tls' });
    expect(r.error).toMatch(/certificate not trusted/);
  });

  it('reports refused connections and unresolvable hosts as data', async () => {
    const port = new URL(t.refused).port;
    expect(await probeTls(`https://127.0.0.1:${port}/`, opts)).toMatchObject({ ok: false, phase: 'connect', error: 'connection refused' });
    expect(await probeTls('https://no-such-host.invalid/', opts)).toMatchObject({ ok: false, phase: 'dns' });
  });

  it('fails in phase tls when the port speaks plain HTTP', async () => {
    const port = new URL(t.http.ok).port;
    const r = await probeTls(`https://127.0.0.1:${port}/`, opts);
    expect(r).toMatchObject({ ok: false, phase: 'tls' });
    expect(r.error).not.toBe('');
  });
});
