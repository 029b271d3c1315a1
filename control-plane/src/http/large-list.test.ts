// A large account's endpoints-with-uptime list is rendered once and served from memory: every
// change shows on the next read, the ETag revalidates, and nobody else's list is touched.
import path from 'node:path';
import Database from 'better-sqlite3';
import { gunzipSync } from 'node:zlib';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIST_CACHE_MIN_ENDPOINTS, LIST_PAGE_FROM_RENDERING_MAX } from '../services/endpoints';
import { startHarness, type Harness } from '../testing/harness';

const N = LIST_CACHE_MIN_ENDPOINTS + 20;
let h: Harness;
let token: string;

beforeAll(async () => {
  h = await startHarness();
  const s = await h.signup();
  token = s.token;
  const db = new Database(path.join(h.dataDir, 'upfleet.db'));
  db.prepare("UPDATE users SET package_id = (SELECT package_id FROM packages WHERE package_name = 'Business') WHERE id = ?").run(s.user.id);
  db.close();
  for (let i = 0; i < N; i++) {
    const r = await h.call('POST', '/api/users/endpoints', { name: `E${i}`, url: `https://e${i}.example.com/`, regions: ['EU-Germany'], response_code: true }, token);
    expect(r.status).toBe(201);
  }
}, 120_000);
afterAll(async () => {
  await h?.close();
});

const list = async () => (await h.call('GET', '/api/users/endpoints-with-uptime', undefined, token)).body;

describe(`endpoints-with-uptime with ${N} endpoints`, () => {
  it('shows every change on the next read: toggle, rename, delete, create', async () => {
    const first = await list();
    expect(first.success).toBe(true);
    expect(first.data).toHaveLength(N);
    expect(Object.keys(first.data[0]).sort()).toEqual([
      'cert_expiry', 'created_at', 'depends_on', 'description', 'escalation_policy_id', 'guid', 'kind', 'last_checked_at', 'last_error', 'last_response_ms', 'last_status_code',
      'monitoring_enabled', 'name', 'ping_host', 'recent', 'regions', 'response_code', 'response_time', 'slo_window_days', 'status', 'uptime_percentage', 'url', 'url_id',
    ]); // the live fields came later (status … recent), every endpoint says its kind, then its escalation policy, dependency and SLO window; every earlier field is still there
    expect(first.data[0]).toMatchObject({ status: 'pending', last_checked_at: null, recent: [] });
    const target = first.data[7];
    await h.call('PATCH', `/api/users/endpoints/${target.url_id}/toggle`, { monitoring_enabled: false }, token);
    expect((await list()).data[7].monitoring_enabled).toBe(false);
    await h.call('PUT', `/api/users/endpoints/${target.url_id}`, { name: 'Renamed', url: target.url, regions: ['EU-Germany'], response_code: true }, token);
    expect((await list()).data[7].name).toBe('Renamed');
    await h.call('DELETE', `/api/users/endpoints/${target.url_id}`, undefined, token);
    const afterDelete = await list();
    expect(afterDelete.data).toHaveLength(N - 1);
    expect(afterDelete.data.some((e: { url_id: number }) => e.url_id === target.url_id)).toBe(false);
    await h.call('POST', '/api/users/endpoints', { name: 'New one', url: 'https://new.example.com/', regions: ['EU-Germany'], response_code: true }, token);
    expect((await list()).data.at(-1).name).toBe('New one');
  });

  it('answers 304 to If-None-Match until the list changes (the ETag is computed once per rendering)', async () => {
    // undici's request, not fetch: fetch adds Cache-Control: no-cache to conditional requests.
    const get = (etag?: string) => request(`${h.cp.url}/api/users/endpoints-with-uptime`, {
      headers: { authorization: `Bearer ${token}`, ...(etag ? { 'if-none-match': etag } : {}) },
    });
    const a = await get();
    const etag = String(a.headers.etag);
    expect(a.headers['content-type']).toMatch(/^application\/json/);
    const id = ((await a.body.json()) as { data: Array<{ url_id: number }> }).data[0].url_id;
    const again = await get(etag);
    await again.body.dump();
    expect(again.statusCode).toBe(304);
    await h.call('PATCH', `/api/users/endpoints/${id}/toggle`, {}, token);
    const b = await get(etag);
    expect(b.statusCode).toBe(200);
    expect(((await b.body.json()) as { data: Array<{ monitoring_enabled: boolean }> }).data[0].monitoring_enabled).toBe(false);
  });

  it('sends the same list gzipped to a client that accepts gzip', async () => {
    const get = (enc: string) => request(`${h.cp.url}/api/users/endpoints-with-uptime`, { headers: { authorization: `Bearer ${token}`, 'accept-encoding': enc } });
    const plain = await get('identity');
    const zipped = await get('gzip, deflate, br');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(zipped.headers.vary).toMatch(/Accept-Encoding/i);
    const raw = Buffer.from(await zipped.body.arrayBuffer());
    expect(JSON.parse(gunzipSync(raw).toString())).toEqual(await plain.body.json());
  });

  it('pages with limit and offset, oldest first, with the total in X-Total-Count; bad paging is a 400', async () => {
    const whole = (await list()).data as Array<{ url_id: number; name: string }>;
    const page = (q: string) => h.call('GET', `/api/users/endpoints-with-uptime?${q}`, undefined, token);
    const second = await page('limit=25&offset=25');
    expect(second.status).toBe(200);
    expect(second.headers.get('x-total-count')).toBe(String(whole.length));
    expect(second.body.data.map((e: { url_id: number }) => e.url_id)).toEqual(whole.slice(25, 50).map((e) => e.url_id));
    expect(second.body.data[0]).toHaveProperty('uptime_percentage');
    const last = await page(`limit=25&offset=${whole.length - 5}`);
    expect(last.body.data.map((e: { name: string }) => e.name)).toEqual(whole.slice(-5).map((e) => e.name));
    expect((await page(`offset=${whole.length}`)).body.data).toEqual([]);
    for (const [q, error] of [
      ['limit=0', 'limit must be a whole number from 1 to 1000'],
      ['limit=1001', 'limit must be a whole number from 1 to 1000'],
      ['limit=ten', 'limit must be a whole number from 1 to 1000'],
      ['offset=-1', 'offset must be a whole number from 0 to 100000000'],
    ]) {
      const r = await page(q);
      expect(r.status, q).toBe(400);
      expect(r.body, q).toEqual({ success: false, error });
    }
    // a small account (not cached): the page is read from SQLite, and only its own endpoints
    const other = await h.signup();
    const none = await h.call('GET', '/api/users/endpoints-with-uptime?limit=10', undefined, other.token);
    expect(none.body.data).toEqual([]);
    expect(none.headers.get('x-total-count')).toBe('0');
    for (const n of ['a', 'b', 'c']) await h.call('POST', '/api/users/endpoints', { name: n, url: `https://${n}.example.org/`, response_code: true }, other.token);
    const theirs = await h.call('GET', '/api/users/endpoints-with-uptime?limit=2&offset=1', undefined, other.token);
    expect(theirs.body.data.map((e: { name: string }) => e.name)).toEqual(['b', 'c']);
    expect(theirs.headers.get('x-total-count')).toBe('3');
  });

  it("keeps each account's list its own", async () => {
    const other = await h.signup();
    expect((await h.call('GET', '/api/users/endpoints-with-uptime', undefined, other.token)).body.data).toEqual([]);
    expect((await list()).data.length).toBe(N);
  });
});

describe(`a page of endpoints-with-uptime in an account of more than ${LIST_PAGE_FROM_RENDERING_MAX} endpoints`, () => {
  it('is read on its own, oldest first, with its uptime and live fields and the total, and shows a change on the next read', async () => {
    const big = await h.signup();
    const M = LIST_PAGE_FROM_RENDERING_MAX + 10;
    const db = new Database(path.join(h.dataDir, 'upfleet.db'));
    db.pragma('busy_timeout = 5000');
    db.prepare("UPDATE users SET package_id = (SELECT package_id FROM packages WHERE package_name = 'Business') WHERE id = ?").run(big.user.id);
    const ins = db.prepare(`INSERT INTO endpoints (guid, user_id, name, url, description, regions, ping_host, cert_expiry, response_code, response_time, check_frequency_seconds)
      VALUES (?, ?, ?, ?, '', '["EU-Germany"]', 0, 0, 1, 0, 60)`);
    db.transaction(() => {
      for (let i = 0; i < M; i++) ins.run(`big-${i}`, big.user.id, `B${i}`, `https://b${i}.example.com/`);
    })();
    db.close();
    const page = (q: string) => h.call('GET', `/api/users/endpoints-with-uptime?${q}`, undefined, big.token);
    const last = await page(`limit=100&offset=${M - 30}`);
    expect(last.status).toBe(200);
    expect(last.headers.get('x-total-count')).toBe(String(M));
    expect(last.body.data.map((e: { name: string }) => e.name)).toEqual(Array.from({ length: 30 }, (_, i) => `B${M - 30 + i}`));
    expect(last.body.data[0]).toMatchObject({ uptime_percentage: null, status: 'pending', monitoring_enabled: true });
    const first = (await page('limit=2&offset=0')).body.data;
    expect(first.map((e: { name: string }) => e.name)).toEqual(['B0', 'B1']);
    expect((await h.call('PATCH', `/api/users/endpoints/${first[0].url_id}/toggle`, { monitoring_enabled: false }, big.token)).status).toBe(200);
    expect((await page('limit=1&offset=0')).body.data[0]).toMatchObject({ name: 'B0', monitoring_enabled: false, status: 'paused' });
  }, 120_000);
});
