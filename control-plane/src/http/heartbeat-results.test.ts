// Heartbeat pings are results: stored in ClickHouse (chDB here) with region `push`, ok,
// total_ms as the run time and error as the failure reason; counted in uptime; graphed; and the
// dashboard's live state shows the last one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarnessWithResults, type Harness } from '../testing/harness';
import type { ClickHouseResultStore } from '../results/clickhouse-store';

let h: Harness & { store: ClickHouseResultStore };
let token: string;

beforeAll(async () => {
  h = await startHarnessWithResults();
  token = (await h.signup('hb_results')).token;
});
afterAll(async () => {
  await h.close();
});

async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (ok(v) || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('heartbeat pings as results', () => {
  it('stores each ping with region push, run time and failure reason; uptime, graphs and the live state count them', async () => {
    const created = await h.call('POST', '/api/users/endpoints', { name: 'Job', kind: 'heartbeat', period_seconds: 3600 }, token);
    const id = created.body.data.url_id as number;
    const url = created.body.data.ping_url as string;
    // results are bounded by the endpoint's age: it has existed for the hour
    h.cp.db.prepare('UPDATE endpoints SET created_at = ? WHERE url_id = ?').run(new Date(Date.now() - 3_600_000).toISOString(), id);
    await fetch(`${url}/start`);
    await new Promise((r) => setTimeout(r, 30));
    await fetch(url);
    await fetch(`${url}/2`);
    await fetch(url);
    const rows = await until(
      () => h.store.select<{ region: string; ok: number; total_ms: number; error: string }>(`SELECT region, ok, total_ms, error FROM upfleet.check_results WHERE endpoint_id = ${id} ORDER BY ts`),
      (r) => r.length === 3,
    );
    expect(rows.map((r) => [r.region, Number(r.ok), r.error])).toEqual([['push', 1, ''], ['push', 0, 'failure ping (exit code 2)'], ['push', 1, '']]);
    expect(Number(rows[0].total_ms)).toBeGreaterThanOrEqual(30);

    // The 7-day uptime is cached for up to 10 s (services/uptime-cache.ts): a figure computed before the
    // last ping may still be served, so read until the cache has turned over.
    let row: Record<string, unknown> = {};
    for (const deadline = Date.now() + 20_000; ;) {
      const list = (await h.call('GET', '/api/users/endpoints-with-uptime', undefined, token)).body.data as Array<Record<string, unknown>>;
      row = list.find((e) => e.url_id === id)!;
      if (Math.abs(Number(row.uptime_percentage) - 66.67) < 0.05 || Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    const rollup = await h.store.select(`SELECT * FROM upfleet.check_results_1h WHERE endpoint_id = ${id}`);
    expect(row.uptime_percentage, JSON.stringify(rollup)).toBeCloseTo(66.67, 1);
    expect(row.status).toBe('up');
    expect((row.recent as unknown[]).length).toBe(3);

    const graphs = (await h.call('GET', `/api/graphs/endpoint/${id}?hours=1`, undefined, token)).body.data.graphs as Array<{ data: unknown[]; location: string; function: string }>;
    expect(graphs.map((g) => [g.location, g.function, g.data.length > 0])).toEqual([['push', 'response_time', true]]);
  });
});
