// README badges over real chDB and a real server: editors get the URLs and Markdown, the SVGs show
// uptime per window (the dashboard badge's count and colours) and the live status, cached 60 s;
// a rotation ends the old token at once, and unknown tokens or other workspaces' endpoints are 404.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarnessWithResults, type Harness } from '../testing/harness';
import { httpResult } from '../testing/alerting';
import type { ClickHouseResultStore } from '../results/clickhouse-store';

let h: Harness & { store: ClickHouseResultStore };
beforeAll(async () => {
  h = await startHarnessWithResults();
});
afterAll(async () => {
  await h?.close();
});

const DAY = 86_400_000;

async function endpoint(token: string): Promise<number> {
  const r = await h.call('POST', '/api/users/endpoints', { name: 'Shop', url: `https://example.com/${Math.random()}`, regions: ['EU-Germany'], response_code: true }, token);
  expect(r.status).toBe(201);
  const id = r.body.data.url_id as number;
  h.cp.db.prepare('UPDATE endpoints SET created_at = ? WHERE url_id = ?').run(new Date(Date.now() - 10 * DAY).toISOString(), id);
  return id;
}

async function svg(url: string) {
  const res = await fetch(url);
  return { status: res.status, type: res.headers.get('content-type'), cache: res.headers.get('cache-control'), text: await res.text() };
}

describe('badges', () => {
  it('gives editors the badge URLs and Markdown; the uptime badge shows each window with its colour, cached for 60 s', async () => {
    const { token } = await h.signup();
    const id = await endpoint(token);
    const now = Date.now();
    await h.store.insertBatch(`badge-${id}`, 'agent-1', [
      // Three days ago: 3 failures; the last day: 4 passes.
      ...[1, 2, 3].map((i) => httpResult(id, now - 3 * DAY + i * 1000, { status_code: 503, ok: false, phase: 'http' })),
      ...[1, 2, 3, 4].map((i) => httpResult(id, now - 3_600_000 + i * 1000, { status_code: 200 })),
    ]);
    const b = await h.call('GET', `/api/users/endpoints/${id}/badge`, undefined, token);
    expect(b.status).toBe(200);
    const t = b.body.data.badge_token as string;
    expect(t).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(b.body.data).toEqual({
      badge_token: t,
      status_url: `${h.cp.url}/badge/${t}/status.svg`,
      uptime_urls: { '24h': `${h.cp.url}/badge/${t}/uptime.svg?window=24h`, '7d': `${h.cp.url}/badge/${t}/uptime.svg?window=7d`, '30d': `${h.cp.url}/badge/${t}/uptime.svg?window=30d` },
      markdown: `![status](${h.cp.url}/badge/${t}/status.svg) ![uptime 30d](${h.cp.url}/badge/${t}/uptime.svg?window=30d)`,
    });
    // The same token until rotated.
    expect((await h.call('GET', `/api/users/endpoints/${id}/badge`, undefined, token)).body.data.badge_token).toBe(t);

    const day = await svg(b.body.data.uptime_urls['24h']);
    expect(day.status).toBe(200);
    expect(day.type).toBe('image/svg+xml; charset=utf-8');
    expect(day.cache).toBe('public, max-age=60');
    expect(day.text).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    expect(day.text).toContain('aria-label="uptime 24h: 100.00%"');
    expect(day.text).toContain('fill="#4c1"');
    const week = await svg(b.body.data.uptime_urls['7d']);
    expect(week.text).toContain('aria-label="uptime 7d: 57.14%"'); // 4 of 7
    expect(week.text).toContain('fill="#e05d44"');
    // The dashboard's 7-day badge reads the same figure.
    const row = (await h.call('GET', '/api/users/endpoints-with-uptime', undefined, token)).body.data.find((e: { url_id: number }) => e.url_id === id);
    expect(row.uptime_percentage).toBe(57.14);
    expect((await svg(`${h.cp.url}/badge/${t}/uptime.svg`)).text).toContain('uptime 7d: 57.14%');
    const bad = await fetch(`${h.cp.url}/badge/${t}/uptime.svg?window=1y`);
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ success: false, error: 'window must be 24h, 7d or 30d' });
  });

  it('shows the live status (pending before a check, paused when monitoring is off) and "no data" uptime without checks', async () => {
    const { token } = await h.signup();
    const id = await endpoint(token);
    const t = (await h.call('GET', `/api/users/endpoints/${id}/badge`, undefined, token)).body.data.badge_token as string;
    expect((await svg(`${h.cp.url}/badge/${t}/status.svg`)).text).toContain('aria-label="status: pending"');
    expect((await svg(`${h.cp.url}/badge/${t}/uptime.svg?window=30d`)).text).toContain('aria-label="uptime 30d: no data"');
    expect((await h.call('PATCH', `/api/users/endpoints/${id}/toggle`, { monitoring_enabled: false }, token)).status).toBe(200);
    const paused = await svg(`${h.cp.url}/badge/${t}/status.svg`);
    expect(paused.text).toContain('aria-label="status: paused"');
    expect(paused.text).toContain('fill="#9f9f9f"');
  });

  it('rotates: the old token is 404 at once, the new one works; another workspace and a deleted endpoint are 404', async () => {
    const a = await h.signup();
    const b = await h.signup();
    const id = await endpoint(a.token);
    const old = (await h.call('GET', `/api/users/endpoints/${id}/badge`, undefined, a.token)).body.data.badge_token as string;
    const rotated = await h.call('POST', `/api/users/endpoints/${id}/badge/rotate`, undefined, a.token);
    expect(rotated.status).toBe(200);
    const fresh = rotated.body.data.badge_token as string;
    expect(fresh).not.toBe(old);
    const gone = await fetch(`${h.cp.url}/badge/${old}/status.svg`);
    expect(gone.status).toBe(404);
    expect(await gone.json()).toEqual({ success: false, error: 'Badge not found' });
    expect((await svg(`${h.cp.url}/badge/${fresh}/status.svg`)).status).toBe(200);
    expect((await h.call('GET', `/api/users/endpoints/${id}/badge`, undefined, b.token)).status).toBe(404);
    expect((await h.call('POST', `/api/users/endpoints/${id}/badge/rotate`, undefined, b.token)).status).toBe(404);
    expect((await fetch(`${h.cp.url}/badge/not-a-token/status.svg`)).status).toBe(404);
    expect((await h.call('DELETE', `/api/users/endpoints/${id}`, undefined, a.token)).status).toBe(200);
    expect((await fetch(`${h.cp.url}/badge/${fresh}/uptime.svg`)).status).toBe(404);
  });
});
