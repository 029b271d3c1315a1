// Maintenance in the 7-day uptime and the dashboard's live status over real chDB and a
// real server: results taken while a window is in progress count neither for nor against uptime,
// an endpoint in maintenance the whole range has no data (null, not 100 %), and an endpoint whose
// window is in progress reports `status: "maintenance"` (filterable) until the window ends.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CheckResult } from '@upfleet/proto';
import { startHarnessWithResults, type Harness } from '../testing/harness';
import { httpResult } from '../testing/alerting';
import type { ClickHouseResultStore } from '../results/clickhouse-store';
import { openSse } from '../../../tests/helpers/sse';

let h: Harness & { store: ClickHouseResultStore };
beforeAll(async () => {
  h = await startHarnessWithResults();
});
afterAll(async () => {
  await h.close();
});

const DAY = 86_400_000;
const HOUR = 3_600_000;
const MIN = 60_000;
const midnight = (ms: number) => Math.floor(ms / DAY) * DAY;
/** An HTTP result with this status (and a fixed id, so a re-sent row is the same row). */
const result = (endpointId: number, tsMs: number, status: number): CheckResult => httpResult(endpointId, tsMs, {
  ok: status === 200, phase: status === 200 ? '' : 'http', error: status === 200 ? '' : `HTTP ${status}`, status_code: status,
  tls_ms: 1, total_ms: 40, result_id: `r-${endpointId}-${tsMs}`,
});

/** An endpoint that exists since `createdAt` (backdated: uptime never counts results older than the endpoint). */
async function endpoint(token: string, name: string, createdAt: number): Promise<number> {
  const ep = await h.call('POST', '/api/users/endpoints', { name, url: `https://example.com/${name}-${Math.random()}`, regions: ['EU-Germany'], response_code: true }, token);
  expect(ep.status).toBe(201);
  const id = ep.body.data.url_id as number;
  h.cp.db.prepare('UPDATE endpoints SET created_at = ? WHERE url_id = ?').run(new Date(createdAt).toISOString(), id);
  return id;
}

/** A window [start, end) (the API refuses an end in the past, so it is written as it would stand then). */
async function windowAt(token: string, ids: number[], start: number, end: number): Promise<number> {
  const w = await h.call('POST', '/api/users/maintenance-windows', { title: 'Upgrade', endpoint_ids: ids, starts_at: new Date(Date.now() - MIN).toISOString(), ends_at: new Date(Date.now() + MIN).toISOString() }, token);
  expect(w.status).toBe(201);
  h.cp.db.prepare('UPDATE maintenance_windows SET starts_at = ?, ends_at = ? WHERE window_id = ?').run(start, end, w.body.data.id);
  await touchWindows(token, ids);
  return w.body.data.id as number;
}
/** Any window change through the API makes the in-memory windows stale (the UPDATEs went around the service). */
async function touchWindows(token: string, ids: number[]) {
  const t = await h.call('POST', '/api/users/maintenance-windows', { title: 'Later', endpoint_ids: ids, starts_at: new Date(Date.now() + DAY).toISOString(), ends_at: new Date(Date.now() + DAY + MIN).toISOString() }, token);
  expect(t.status).toBe(201);
}

async function list(token: string, query = '') {
  const r = await h.call('GET', `/api/users/endpoints-with-uptime${query}`, undefined, token);
  expect(r.status).toBe(200);
  return r.body.data as Array<{ url_id: number; uptime_percentage: number | null; status: string }>;
}
const row = async (token: string, id: number) => (await list(token)).find((e) => e.url_id === id)!;
async function statusCounts(token: string): Promise<Record<string, number>> {
  const r = await h.call('GET', '/api/users/dashboard', undefined, token);
  expect(r.status).toBe(200);
  return r.body.data.status_counts;
}

describe('7-day uptime leaves maintenance out', () => {
  it('a window covering failures: the uptime equals the uptime without those minutes; an endpoint without windows is unchanged', async () => {
    const { token } = await h.signup();
    const day = midnight(Date.now()) - DAY;
    const inWindow = await endpoint(token, 'win', day - 2 * DAY + 30 * MIN);
    const plain = await endpoint(token, 'plain', day - 2 * DAY + 30 * MIN);
    const trimmed = await endpoint(token, 'trimmed', day - 2 * DAY + 30 * MIN);
    const start = day + 10 * HOUR + 20 * MIN; // 10:20 – 10:40 UTC yesterday
    const end = start + 20 * MIN;
    const rows: CheckResult[] = [];
    for (let m = 0; m < 60; m++) {
      const t = day + 10 * HOUR + m * MIN + 1000;
      const inside = t >= start && t < end;
      // down inside the window, up around it (in the hour the window touches)
      for (const id of [inWindow, plain]) rows.push(result(id, t, inside ? 503 : 200));
      if (!inside) rows.push(result(trimmed, t, 200));
    }
    // 12:00 – 12:09 yesterday and two days ago 09:00 – 09:03: outside any window
    for (let m = 0; m < 10; m++) for (const id of [inWindow, plain, trimmed]) rows.push(result(id, day + 12 * HOUR + m * MIN, m < 5 ? 200 : 503));
    for (let m = 0; m < 4; m++) for (const id of [inWindow, plain, trimmed]) rows.push(result(id, day - DAY + 9 * HOUR + m * MIN, 200));
    await h.store.insertBatch(`mu-${inWindow}`, 'agent-1', rows);
    expect((await row(token, inWindow)).uptime_percentage).toBe(pct2(49, 74)); // before the window exists (and now cached)
    await windowAt(token, [inWindow], start, end);

    const got = await list(token);
    const pct = (id: number) => got.find((e) => e.url_id === id)!.uptime_percentage;
    expect(pct(trimmed)).toBe(pct2(49, 54)); // 40 + 5 + 4 up of 54
    expect(pct(inWindow)).toBe(pct(trimmed)); // the 20 window minutes are gone, the 40 around them stay
    expect(pct(plain)).toBe(pct2(49, 74)); // no window: the failures count
  });

  it('an endpoint in maintenance for its whole range has no data (null), never 100 %', async () => {
    const { token } = await h.signup();
    const created = Date.now() - 2 * DAY - 17 * MIN; // not a whole hour: the part before the first hour comes from raw rows
    const id = await endpoint(token, 'all-maint', created);
    const rows: CheckResult[] = [];
    for (let t = created + MIN; t < Date.now() - MIN; t += 3 * HOUR) rows.push(result(id, t, 503));
    rows.push(result(id, Date.now() - 30_000, 200));
    await h.store.insertBatch(`mu-all-${id}`, 'agent-1', rows);
    await windowAt(token, [id], created - HOUR, Date.now() + HOUR);
    const r = await row(token, id);
    expect(r.uptime_percentage).toBeNull();
  });
});

describe('live status: maintenance while a window is in progress', () => {
  it('reports maintenance during the window (also in ?status=maintenance) and its own status after it, without a result arriving', async () => {
    const { token } = await h.signup();
    const id = await endpoint(token, 'live', Date.now() - HOUR);
    const other = await endpoint(token, 'other', Date.now() - HOUR);
    expect((await row(token, id)).status).toBe('pending');
    const w = await windowAt(token, [id], Date.now() - MIN, Date.now() + HOUR);

    const during = await list(token);
    expect(during.find((e) => e.url_id === id)!.status).toBe('maintenance');
    expect(during.find((e) => e.url_id === other)!.status).toBe('pending');
    expect((await statusCounts(token)).maintenance).toBe(1);
    const filtered = await list(token, '?status=maintenance');
    expect(filtered.map((e) => e.url_id)).toEqual([id]);

    // The window ends (its end moved to the past): the endpoint's own status is back.
    h.cp.db.prepare('UPDATE maintenance_windows SET ends_at = ? WHERE window_id = ?').run(Date.now() - 1000, w);
    await touchWindows(token, [other]);
    expect((await row(token, id)).status).toBe('pending');
    expect(await list(token, '?status=maintenance')).toEqual([]);
    expect((await statusCounts(token)).maintenance).toBeUndefined();
  });
});

describe('open dashboards hear when a window starts and ends', () => {
  it('sends endpoint.changed for the endpoint when its window begins and again when it ends, with no result arriving', async () => {
    const { token } = await h.signup();
    const id = await endpoint(token, 'stream', Date.now() - HOUR);
    const events = await openSse(`${h.cp.url}/api/users/events`, { authorization: `Bearer ${token}` });
    try {
      expect(events.status).toBe(200);
      const created = Date.now();
      const w = await h.call('POST', '/api/users/maintenance-windows', { title: 'Short', endpoint_ids: [id], starts_at: new Date(created - MIN).toISOString(), ends_at: new Date(created + 6000).toISOString() }, token);
      expect(w.status).toBe(201);
      const changed = (after: number) => events.next((e) => e.event === 'endpoint.changed' && e.data.url_id === id && e.at > after, 15_000);
      const began = await changed(created);
      expect((await row(token, id)).status).toBe('maintenance');
      const ended = await changed(Math.max(began.at, created + 6000 - 1));
      expect(ended.at).toBeGreaterThanOrEqual(created + 6000);
      expect((await row(token, id)).status).toBe('pending');
    } finally {
      events.close();
    }
  }, 30_000);
});

/** Percent with two decimals, as the API rounds it. */
function pct2(ok: number, n: number): number {
  return Math.round((ok * 10_000) / n) / 100;
}
