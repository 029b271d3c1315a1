// Control plane: endpoint mutations limited per user, security headers, and a stop that
// lets requests in flight finish (bounded). Real server on port 0, real HTTP.
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../testing/harness';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const endpointBody = { name: 'Site', url: 'https://example.com/', regions: ['EU-Germany'] };

describe('endpoint mutation rate limit', () => {
  it('answers 429 in the error shape after the per-user allowance, counting every kind of change, and leaves other users alone', async () => {
    h = await startHarness({ RATE_LIMIT_ENDPOINT_MUTATIONS_PER_MINUTE: '5' });
    const a = await h.signup();
    const created = await h.call('POST', '/api/users/endpoints', endpointBody, a.token);
    expect(created.status).toBe(201);
    const id = created.body.data.url_id;
    expect((await h.call('PUT', `/api/users/endpoints/${id}`, { ...endpointBody, name: 'Renamed' }, a.token)).status).toBe(200);
    expect((await h.call('PATCH', `/api/users/endpoints/${id}/toggle`, { monitoring_enabled: false }, a.token)).status).toBe(200);
    const types = (await h.call('GET', `/api/users/endpoints/${id}/alert-thresholds`, undefined, a.token)).body.data;
    const thresholds = { alert_thresholds: [{ monitor_type_id: types[0].monitor_type_id, threshold_value: 500, threshold_operator: '>', is_enabled: true, region_id: null }] };
    expect((await h.call('PUT', `/api/users/endpoints/${id}/alert-thresholds`, thresholds, a.token)).status).toBe(200);
    expect((await h.call('DELETE', `/api/users/endpoints/${id}`, undefined, a.token)).status).toBe(200);

    const limited = await h.call('POST', '/api/users/endpoints', endpointBody, a.token);
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ success: false, error: 'Too many changes to endpoints. Please wait a minute and try again.' });
    // Status pages share the allowance; their 429 names what was limited
    const page = await h.call('POST', '/api/users/status-pages', { title: 'Acme', slug: `acme-${process.pid}` }, a.token);
    expect(page.status).toBe(429);
    expect(page.body).toEqual({ success: false, error: 'Too many changes to status pages and maintenance windows. Please wait a minute and try again.' });
    expect(page.headers.get('retry-after')).toMatch(/^\d+$/);
    // Nothing was created, reads still work, and another user has an allowance of their own.
    const list = await h.call('GET', '/api/users/endpoints-with-uptime', undefined, a.token);
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual([]);
    const b = await h.signup();
    expect((await h.call('POST', '/api/users/endpoints', endpointBody, b.token)).status).toBe(201);
  });
});

describe('security headers', () => {
  const expectHeaders = (res: Response) => {
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/script-src[^;]*'unsafe-inline'/);
    expect(csp).toContain("object-src 'none'");
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('referrer-policy')).toBe('same-origin');
    expect(res.headers.get('x-frame-options')).toBe('DENY');
  };

  it('sends CSP without inline scripts, frame-ancestors none, nosniff and a referrer policy on the web app and the API', async () => {
    // A stand-in for web/dist with Vite's shape: the page loads its script by URL, never inline.
    const dist = fs.mkdtempSync(path.join(os.tmpdir(), 'upfleet-web-'));
    fs.mkdirSync(path.join(dist, 'assets'));
    fs.writeFileSync(path.join(dist, 'index.html'), '<!doctype html><div id="root"></div><script type="module" src="/assets/app.js"></script>');
    fs.writeFileSync(path.join(dist, 'assets/app.js'), 'console.log(1)');
    h = await startHarness({ WEB_DIST_DIR: dist });
    for (const p of ['/', '/dashboard', '/assets/app.js', '/api/health', '/api/nothing-here']) expectHeaders(await fetch(`${h.cp.url}${p}`));
    const login = await fetch(`${h.cp.url}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(login.status).toBe(400);
    expectHeaders(login);
    fs.rmSync(dist, { recursive: true, force: true });
  });
});

/** A POST whose body is sent in two parts, so the request is in flight until `finish()`. */
function slowRequest(url: string, body: string) {
  const req = http.request(url, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } });
  const response = new Promise<{ status: number; text: string }>((resolve, reject) => {
    req.on('response', (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
  req.write(body.slice(0, 5));
  return { response, finish: () => req.end(body.slice(5)) };
}

describe('graceful stop', () => {
  it('lets a request in flight finish while refusing new connections, then closes', async () => {
    h = await startHarness();
    const { user } = await h.signup();
    const harness = h;
    h = undefined; // closed by the test itself
    const arrived = new Promise((resolve) => harness.cp.httpServer.once('request', resolve));
    const slow = slowRequest(`${harness.cp.url}/api/auth/login`, JSON.stringify({ email: user.email, password: 'correct horse' }));
    await arrived;
    const closing = harness.cp.close();
    await expect(fetch(`${harness.cp.url}/api/health`)).rejects.toThrow();
    slow.finish();
    const res = await slow.response;
    expect(res.status).toBe(200);
    expect(JSON.parse(res.text).data.user.email).toBe(user.email);
    await closing;
    fs.rmSync(harness.dataDir, { recursive: true, force: true });
  });

  it('gives up on a request that does not finish within SHUTDOWN_TIMEOUT_SECONDS and closes its connection', async () => {
    const harness = await startHarness({ SHUTDOWN_TIMEOUT_SECONDS: '1' });
    const arrived = new Promise((resolve) => harness.cp.httpServer.once('request', resolve));
    const stuck = slowRequest(`${harness.cp.url}/api/auth/login`, JSON.stringify({ email: 'a@example.com', password: 'never sent' }));
    const outcome = stuck.response.then(() => 'answered', () => 'connection closed');
    await arrived;
    const t0 = performance.now();
    await harness.cp.close();
    const waitedMs = performance.now() - t0;
    console.log(`stop waited ${Math.round(waitedMs)} ms for a stuck request (bound 1000 ms)`);
    expect(waitedMs).toBeGreaterThanOrEqual(900);
    expect(await outcome).toBe('connection closed');
    fs.rmSync(harness.dataDir, { recursive: true, force: true });
  });
});
