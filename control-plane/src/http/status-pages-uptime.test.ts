// The public page's 90 daily bars over real chDB: daily uptime from the rollups, days cut
// in the page's timezone, a day without results is "no data" (null, not 100 %), and results taken
// during a maintenance window count neither for nor against.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CheckResult } from '@upfleet/proto';
import { startHarnessWithResults, type Harness } from '../testing/harness';
import { httpResult } from '../testing/alerting';
import type { ClickHouseResultStore } from '../results/clickhouse-store';

let h: Harness & { store: ClickHouseResultStore };
beforeAll(async () => {
  h = await startHarnessWithResults();
});
afterAll(async () => {
  await h.close();
});

const DAY = 86_400_000;
const MIN = 60_000;
const midnight = (ms: number) => Math.floor(ms / DAY) * DAY;
let batch = 0;
/** An HTTP result with this status (and a fixed id, so a re-sent row is the same row). */
const result = (endpointId: number, tsMs: number, status: number): CheckResult => httpResult(endpointId, tsMs, {
  ok: status === 200, phase: status === 200 ? '' : 'http', error: status === 200 ? '' : `HTTP ${status}`, status_code: status,
  tls_ms: 1, total_ms: 40, result_id: `r-${endpointId}-${tsMs}`,
});

async function setup(timezone: string) {
  const { token } = await h.signup();
  const ep = await h.call('POST', '/api/users/endpoints', { name: 'API', url: `https://example.com/${Math.random()}`, regions: ['EU-Germany'], response_code: true }, token);
  const id = ep.body.data.url_id as number;
  const page = await h.call('POST', '/api/users/status-pages', { slug: `uptime-${process.pid}-${++batch}`, title: 'Uptime', timezone, components: [{ name: 'API', endpoint_id: id }] }, token);
  expect(page.status).toBe(201);
  return { token, id, slug: page.body.data.slug as string };
}

const bars = async (slug: string) => {
  const r = await h.call('GET', `/api/public/status/${slug}`);
  expect(r.status).toBe(200);
  return r.body.data.components[0] as { uptime_90d: number | null; days: Array<{ date: string; uptime: number | null }> };
};
const dateOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

describe('daily bars from ClickHouse rollups', () => {
  it('counts 2xx per day; a day without results is no data (null), never 100 %', async () => {
    const { id, slug } = await setup('UTC');
    const today = midnight(Date.now());
    const rows: CheckResult[] = [];
    // Two days ago: 10 checks, all up. Yesterday: 4 up, 4 down (HTTP 503). Three days ago: nothing.
    for (let i = 0; i < 10; i++) rows.push(result(id, today - 2 * DAY + 3600_000 + i * MIN, 200));
    for (let i = 0; i < 8; i++) rows.push(result(id, today - DAY + 7200_000 + i * MIN, i % 2 ? 503 : 200));
    await h.store.insertBatch(`uptime-a-${id}`, 'agent-1', rows);
    const c = await bars(slug);
    expect(c.days).toHaveLength(90);
    const byDate = new Map(c.days.map((d) => [d.date, d.uptime]));
    expect(byDate.get(dateOf(today - 2 * DAY))).toBe(100);
    expect(byDate.get(dateOf(today - DAY))).toBe(50);
    expect(byDate.get(dateOf(today - 3 * DAY))).toBeNull();
    expect(byDate.get(dateOf(today))).toBeNull();
    expect(c.days.filter((d) => d.uptime !== null)).toHaveLength(2);
    expect(c.uptime_90d).toBe(77.78); // 14 of 18
  });

  it("cuts days at the page's timezone: 23:30 UTC is the next day on a UTC+2 page", async () => {
    const { id, slug } = await setup('UTC+2');
    const late = midnight(Date.now()) - 2 * DAY + 23 * 3600_000 + 30 * MIN; // 23:30 UTC two days ago
    await h.store.insertBatch(`uptime-tz-${id}`, 'agent-1', [result(id, late, 503)]);
    const c = await bars(slug);
    const byDate = new Map(c.days.map((d) => [d.date, d.uptime]));
    expect(byDate.get(dateOf(late + DAY))).toBe(0);
    expect(byDate.get(dateOf(late))).toBeNull();
  });

  it('leaves results taken during maintenance out: they count neither for nor against', async () => {
    const { id, slug, token } = await setup('UTC');
    const day = midnight(Date.now()) - DAY;
    const start = day + 10 * 3600_000 + 20 * MIN; // 10:20 – 10:40 UTC yesterday
    const end = start + 20 * MIN;
    const rows: CheckResult[] = [];
    // 10:00 – 10:59 every minute: down inside the window, up outside it (also within the hour it touches).
    for (let m = 0; m < 60; m++) {
      const t = day + 10 * 3600_000 + m * MIN + 1000;
      rows.push(result(id, t, t >= start && t < end ? 503 : 200));
    }
    // 12:00 – 12:09: 5 up, 5 down, outside any window.
    for (let m = 0; m < 10; m++) rows.push(result(id, day + 12 * 3600_000 + m * MIN, m < 5 ? 200 : 503));
    await h.store.insertBatch(`uptime-m-${id}`, 'agent-1', rows);
    const before = (await bars(slug)).days.find((d) => d.date === dateOf(day))!.uptime;
    expect(before).toBe(64.29); // 40 + 5 up of 70
    // A window that ran yesterday (the API refuses an end in the past, so it is written as it would stand today).
    const w = await h.call('POST', '/api/users/maintenance-windows', { title: 'Upgrade', endpoint_ids: [id], starts_at: new Date(Date.now() - MIN).toISOString(), ends_at: new Date(Date.now() + MIN).toISOString() }, token);
    h.cp.db.prepare('UPDATE maintenance_windows SET starts_at = ?, ends_at = ? WHERE window_id = ?').run(start, end, w.body.data.id);
    // Any window change makes cached views stale (the UPDATE above went around the service).
    await h.call('POST', '/api/users/maintenance-windows', { title: 'Touch', endpoint_ids: [id], starts_at: new Date(Date.now() + DAY).toISOString(), ends_at: new Date(Date.now() + DAY + MIN).toISOString() }, token);
    const after = (await bars(slug)).days.find((d) => d.date === dateOf(day))!.uptime;
    expect(after).toBe(90); // 45 up of 50: the 20 window minutes are gone, the 40 minutes around them stay
  });
});
