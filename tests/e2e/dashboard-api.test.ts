// The dashboard's API end to end: a real control plane with its embedded agent checking loopback
// targets. The list's live fields (pending → up with recent checks growing, a failing target down
// with a readable reason), search/filter/sort/paging, bad values, and the per-user event stream.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiFor, waitFor } from '../helpers/api';
import { startCountingTarget, type CountingTarget } from '../helpers/http-target';
import { openSse, type SseStream } from '../helpers/sse';
import { startStack, type Stack } from '../helpers/start-stack';

const LIST = '/api/users/endpoints-with-uptime';

describe('dashboard API: live fields, search, filters and events', () => {
  let stack: Stack;
  let target: CountingTarget;
  const api = apiFor(() => stack);
  let alice: string;
  let bob: string;
  const streams: SseStream[] = [];
  const get = async (path: string, token: string) => {
    const res = await fetch(`${stack.baseUrl}${path}`, { headers: { authorization: `Bearer ${token}` } });
    return { status: res.status, total: res.headers.get('x-total-count'), body: (await res.json()) as any };
  };
  const stream = async (token: string, lastEventId?: string) => {
    const s = await openSse(`${stack.baseUrl}/api/users/events`, { authorization: `Bearer ${token}`, ...(lastEventId ? { 'last-event-id': lastEventId } : {}) });
    streams.push(s);
    return s;
  };
  const add = async (token: string, name: string, path: string) => {
    const r = await api.call('POST', '/api/users/endpoints', { name, url: target.url(path), response_code: true, response_time: true }, token);
    expect(r.status).toBe(201);
    return r.body.data.url_id as number;
  };
  const row = async (token: string, id: number) => ((await get(LIST, token)).body.data as any[]).find((e) => e.url_id === id);

  beforeAll(async () => {
    target = await startCountingTarget();
    stack = await startStack({ embeddedAgent: true });
    alice = await api.signup('dashalice', 'Business');
    bob = await api.signup('dashbob', 'Business');
  }, 120_000);
  afterAll(async () => {
    streams.forEach((s) => s.close());
    await stack?.stop();
    await target?.close();
  });

  it('a fresh endpoint is pending, then up with its last check and recent checks growing; a failing one is down with a readable reason', async () => {
    const aliceEvents = await stream(alice);
    const bobEvents = await stream(bob);
    expect(aliceEvents.status).toBe(200);
    const shop = await add(alice, 'Alpha shop', '/shop');
    const fresh = await row(alice, shop);
    expect(fresh).toMatchObject({ status: 'pending', last_checked_at: null, last_response_ms: null, last_status_code: null, last_error: null, recent: [] });
    expect(fresh.name).toBe('Alpha shop'); // old fields unchanged

    const up = await waitFor('shop up', async () => {
      const r = await row(alice, shop);
      return r.status === 'up' ? r : null;
    }, 30_000);
    expect(up.last_status_code).toBe(200);
    expect(up.last_response_ms).toBeGreaterThanOrEqual(0);
    expect(up.last_error).toBeNull();
    expect(Date.now() - Date.parse(up.last_checked_at)).toBeLessThan(30_000);
    expect(up.recent.length).toBeGreaterThanOrEqual(1);
    expect(up.recent.at(-1)).toMatchObject({ ok: true, code: 200 });
    const grown = await waitFor('a second check', async () => {
      const r = await row(alice, shop);
      return r.recent.length > up.recent.length ? r : null;
    }, 30_000);
    const ats = grown.recent.map((c: any) => c.at);
    expect([...ats].sort((a, b) => a - b)).toEqual(ats); // oldest first

    const broken = await add(alice, 'Beta blog', '/down-blog');
    const down = await waitFor('blog down', async () => {
      const r = await row(alice, broken);
      return r.status === 'down' ? r : null;
    }, 30_000);
    expect(down.last_status_code).toBe(503);
    expect(down.last_error).toBe('HTTP 503 from EU - Germany');
    expect(down.recent.at(-1)).toMatchObject({ ok: false, code: 503 });

    // Alice's stream carried her results and her endpoint changes; Bob's carried none of hers.
    const result = await aliceEvents.next((e) => e.event === 'result' && e.data.url_id === broken && e.data.status === 'down');
    expect(result.data).toMatchObject({ last_status_code: 503, last_error: 'HTTP 503 from EU - Germany', recent: { ok: false, code: 503 } });
    await aliceEvents.next((e) => e.event === 'endpoint.changed' && e.data.url_id === shop);
    await aliceEvents.next((e) => e.event === 'incident.opened' && e.data.url_id === broken, 40_000);
    const bobsOwn = await add(bob, 'Bob site', '/bob');
    await bobEvents.next((e) => e.event === 'result' && e.data.url_id === bobsOwn, 30_000);
    expect(bobEvents.events.filter((e) => [shop, broken].includes(e.data.url_id))).toEqual([]);
    expect(aliceEvents.events.filter((e) => e.data.url_id === bobsOwn)).toEqual([]);
    expect(bobEvents.events.every((e) => e.data.url_id === bobsOwn)).toBe(true);
  }, 120_000);

  it('searches, filters by status, sorts and pages, counting matches in X-Total-Count; the dashboard counts each status', async () => {
    const paused = await add(alice, 'Gamma api', '/gamma');
    expect((await api.call('PATCH', `/api/users/endpoints/${paused}/toggle`, { monitoring_enabled: false }, alice)).status).toBe(200);

    const shop = await get(`${LIST}?q=SHOP`, alice);
    expect(shop.body.data.map((e: any) => e.name)).toEqual(['Alpha shop']);
    expect(shop.total).toBe('1');
    const byUrl = await get(`${LIST}?q=${encodeURIComponent('/down-blog')}`, alice);
    expect(byUrl.body.data.map((e: any) => e.name)).toEqual(['Beta blog']);

    expect((await get(`${LIST}?status=down`, alice)).body.data.map((e: any) => e.name)).toEqual(['Beta blog']);
    expect((await get(`${LIST}?status=up,paused`, alice)).body.data.map((e: any) => e.name)).toEqual(['Alpha shop', 'Gamma api']);
    expect((await get(`${LIST}?status=paused`, alice)).body.data[0]).toMatchObject({ name: 'Gamma api', status: 'paused' });

    expect((await get(`${LIST}?sort=-name`, alice)).body.data.map((e: any) => e.name)).toEqual(['Gamma api', 'Beta blog', 'Alpha shop']);
    // A search or filter without sort answers down first (the plain list keeps the oldest first).
    expect((await get(`${LIST}?status=up,down`, alice)).body.data.map((e: any) => e.status)).toEqual(['down', 'up']);
    expect((await get(`${LIST}?q=a`, alice)).body.data.map((e: any) => e.status)).toEqual(['down', 'up', 'paused']);
    expect((await get(`${LIST}?sort=status`, alice)).body.data.map((e: any) => e.status)).toEqual(['down', 'up', 'paused']);
    expect((await get(`${LIST}?sort=-status`, alice)).body.data.map((e: any) => e.status)).toEqual(['paused', 'up', 'down']);
    const checked = (await get(`${LIST}?sort=last_checked`, alice)).body.data.map((e: any) => e.last_checked_at);
    const known = checked.filter((t: string | null) => t !== null);
    expect([...known].sort()).toEqual(known); // longest ago first
    expect(checked.slice(known.length).every((t: string | null) => t === null)).toBe(true); // never checked: last

    const page = await get(`${LIST}?sort=name&limit=1&offset=1`, alice);
    expect(page.body.data.map((e: any) => e.name)).toEqual(['Beta blog']);
    expect(page.total).toBe('3');
    const filteredPage = await get(`${LIST}?status=up,down&sort=name&limit=1&offset=0`, alice);
    expect(filteredPage.body.data.map((e: any) => e.name)).toEqual(['Alpha shop']);
    expect(filteredPage.total).toBe('2');

    const dash = await api.call('GET', '/api/users/dashboard', undefined, alice);
    expect(dash.body.data.status_counts).toEqual({ down: 1, degraded: 0, pending: 0, up: 1, paused: 1 });
    // Bob's list is his own whatever the filter.
    expect((await get(`${LIST}?q=site`, bob)).body.data.map((e: any) => e.name)).toEqual(['Bob site']);
    expect((await get(`${LIST}?q=shop&status=up,down,paused`, bob)).body.data).toEqual([]);
  });

  it('answers 400 in the usual shape to bad values, and nothing else', async () => {
    for (const [query, message] of [
      ['status=sideways', /status must be one or more of down, degraded, pending, up, paused/],
      ['status=up,', /status must be/],
      ['sort=colour', /sort must be one of name, status, uptime, last_checked/],
      ['sort=--name', /sort must be/],
      ['q=a&q=b', /q must be text/],
      ['limit=0&status=up', /limit must be a whole number/],
    ] as const) {
      const r = await get(`${LIST}?${query}`, alice);
      expect(r.status, query).toBe(400);
      expect(r.body.success).toBe(false);
      expect(r.body.error).toMatch(message);
    }
  });

  it('resumes with Last-Event-ID: the events made while away arrive, none twice', async () => {
    const watcher = await stream(alice);
    const first = await stream(alice);
    const seen = await first.next((e) => e.event === 'result', 30_000);
    first.close();
    // Two more results of Alice's happen while the stream is away.
    const later = await watcher.next((e) => e.event === 'result' && watcher.events.filter((x) => x.event === 'result' && Number(x.id) > Number(seen.id)).length >= 2, 40_000);
    const resumed = await stream(alice, seen.id!);
    await resumed.next((e) => e.id === later.id, 5_000);
    const missed = watcher.events.filter((e) => Number(e.id) > Number(seen.id) && Number(e.id) <= Number(later.id)).map((e) => e.id);
    const replayed = resumed.events.filter((e) => Number(e.id) <= Number(later.id)).map((e) => e.id);
    expect(replayed).toEqual(missed);
    expect(resumed.events.some((e) => e.id === seen.id)).toBe(false);
    // An id older than anything kept asks the client to reload instead.
    const stale = await stream(alice, '1');
    await stale.next((e) => e.event === 'resync', 5_000);
  }, 60_000);

  it('takes an API key, refuses a missing or bad credential', async () => {
    const key = (await api.call('POST', '/api/users/api-keys', { name: 'stream' }, bob)).body.data.key as string;
    const s = await stream(key);
    expect(s.status).toBe(200);
    await s.next((e) => e.event === 'result', 30_000);
    expect(s.events.every((e) => e.data.url_id !== undefined && typeof e.data.status === 'string')).toBe(true);
    expect((await fetch(`${stack.baseUrl}/api/users/events`)).status).toBe(401);
    expect((await fetch(`${stack.baseUrl}/api/users/events?token=${alice}`)).status).toBe(401);
  }, 60_000);
});
