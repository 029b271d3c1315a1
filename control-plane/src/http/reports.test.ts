// SLOs and the SLA report over real chDB and a real server, against figures computed by hand from
// known result sets: maintenance left out and listed, no data as null (never 100 %), months cut in
// the profile's zone across a DST change, the plan's retention clamping `from`, and agreement
// with the graphs' uptime for the same range.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CheckResult } from '@upfleet/proto';
import type { SlaReport, SloStatus } from '@upfleet/proto/rest';
import { fromZonedLocal } from '@upfleet/proto/time-zone';
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
const HOUR = 3_600_000;
const MIN = 60_000;
const midnight = (ms: number) => Math.floor(ms / DAY) * DAY;
const iso = (ms: number) => new Date(ms).toISOString();
const result = (endpointId: number, tsMs: number, status: number, region = 'EU-Germany'): CheckResult => httpResult(endpointId, tsMs, {
  ok: status === 200, phase: status === 200 ? '' : 'http', error: status === 200 ? '' : `HTTP ${status}`, status_code: status, region,
  check_id: `${endpointId}:http:${region}`, result_id: `r-${endpointId}-${region}-${tsMs}`,
});

async function endpoint(token: string, name: string, createdAt: number, extra: Record<string, unknown> = {}): Promise<number> {
  const ep = await h.call('POST', '/api/users/endpoints', { name, url: `https://example.com/${name}-${Math.random()}`, regions: ['EU-Germany'], response_code: true, ...extra }, token);
  expect(ep.status).toBe(201);
  const id = ep.body.data.url_id as number;
  h.cp.db.prepare('UPDATE endpoints SET created_at = ? WHERE url_id = ?').run(iso(createdAt), id);
  return id;
}

async function report(token: string, query: string): Promise<SlaReport> {
  const r = await h.call('GET', `/api/users/reports/sla?${query}`, undefined, token);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.data as SlaReport;
}

function incident(userId: number, urlId: number, condition: string, openedAt: number, resolvedAt: number | null, ackAt: number | null, regions = ['EU - Germany']) {
  h.cp.db.prepare('INSERT INTO incidents (user_id, url_id, condition, regions, cause, opened_at, resolved_at, acknowledged_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
    .run(userId, urlId, condition, JSON.stringify(regions), 'HTTP 503', openedAt, resolvedAt, ackAt);
}

describe('SLO fields on endpoints', () => {
  it('saves slo_target and slo_window_days, keeps them on an update without them, clears the target with null, and refuses values out of range', async () => {
    const { token } = await h.signup();
    const id = await endpoint(token, 'slo', Date.now(), { slo_target: 99.9, slo_window_days: 28 });
    const get = async () => (await h.call('GET', `/api/users/endpoints/${id}`, undefined, token)).body.data;
    expect(await get()).toMatchObject({ slo_target: 99.9, slo_window_days: 28 });
    const body = { name: 'slo2', url: 'https://example.com/slo2', regions: ['EU-Germany'], response_code: true };
    expect((await h.call('PUT', `/api/users/endpoints/${id}`, body, token)).status).toBe(200);
    expect(await get()).toMatchObject({ name: 'slo2', slo_target: 99.9, slo_window_days: 28 });
    for (const bad of [{ slo_target: 0 }, { slo_target: 100 }, { slo_target: -1 }, { slo_target: '99' }, { slo_window_days: 14 }]) {
      const r = await h.call('PUT', `/api/users/endpoints/${id}`, { ...body, name: 'changed', ...bad }, token);
      expect(r.status, JSON.stringify(bad)).toBe(400);
      expect(r.body).toMatchObject({ success: false, error: expect.stringMatching(/slo_/) });
    }
    expect(await get()).toMatchObject({ name: 'slo2', slo_target: 99.9, slo_window_days: 28 });
    expect((await h.call('PUT', `/api/users/endpoints/${id}`, { ...body, slo_target: null, slo_window_days: 90 }, token)).status).toBe(200);
    const after = await get();
    expect(after.slo_target).toBeUndefined();
    expect(after.slo_window_days).toBe(90);
    const list = (await h.call('GET', '/api/users/endpoints-with-uptime', undefined, token)).body.data as Array<{ url_id: number; slo_window_days: number }>;
    expect(list.find((e) => e.url_id === id)?.slo_window_days).toBe(90);
    const plain = await endpoint(token, 'plain', Date.now());
    expect((await h.call('GET', `/api/users/endpoints/${plain}`, undefined, token)).body.data).toMatchObject({ slo_window_days: 30 });
  });
});

describe('GET /api/users/endpoints/:id/slo', () => {
  it('answers uptime, error budget, burn rates and the day the budget runs out, as computed by hand', async () => {
    const { token } = await h.signup();
    const t0 = Date.now();
    const id = await endpoint(token, 'budget', t0 - 8 * DAY, { slo_target: 95, slo_window_days: 7 });
    const rows: CheckResult[] = [];
    for (let k = 0; k < 80; k++) rows.push(result(id, t0 - 5 * DAY + k * 30 * MIN, 200)); // long ago in the window: all up
    for (let k = 0; k < 10; k++) rows.push(result(id, t0 - 20 * HOUR + k * MIN, k === 3 ? 503 : 200)); // last day, 1 of 10 down
    for (let k = 0; k < 10; k++) rows.push(result(id, t0 - 50 * MIN + k * MIN, k === 5 ? 503 : 200)); // last hour, 1 of 10 down
    rows.push(result(id, t0 - 7 * DAY - HOUR, 503)); // before the window: not counted
    await h.store.insertBatch(`slo-${id}`, 'agent-1', rows);

    const before = Date.now();
    const r = await h.call('GET', `/api/users/endpoints/${id}/slo`, undefined, token);
    const after = Date.now();
    expect(r.status).toBe(200);
    const s = r.body.data as SloStatus;
    // 98 of 100 up; the window is 7 × 1440 = 10,080 minutes, all measured (created 8 days ago).
    expect(s).toMatchObject({ url_id: id, slo_target: 95, slo_window_days: 7, uptime_percentage: 98 });
    // allowed 5 % of 10,080 = 504; used 2 failed × 10,080 / 100 checks = 201.6; remaining 302.4
    expect(s.error_budget).toEqual({ allowed_minutes: 504, used_minutes: 201.6, remaining_minutes: 302.4 });
    // last hour: 1 of 10 failed = 10 % against 5 % allowed → 2; last day: 2 of 20 → 2
    expect(s.burn_rate_1h).toBe(2);
    expect(s.burn_rate_24h).toBe(2);
    // at 2 × 5 % of each minute, 302.4 minutes last 3,024 minutes
    const exhausted = Date.parse(s.budget_exhausted_at!);
    expect(exhausted).toBeGreaterThanOrEqual(before + 3024 * MIN - 1000);
    expect(exhausted).toBeLessThanOrEqual(after + 3024 * MIN + 1000);
    expect(s.burn_down).toHaveLength(7);
    expect(s.burn_down[0][1]).toBe(504);
    expect(s.burn_down[6][1]).toBe(302.4);
  });

  it('without a target: the uptime only (budget and rates null); without results: no data; another workspace\'s endpoint is not found', async () => {
    const { token } = await h.signup();
    const id = await endpoint(token, 'no-target', Date.now() - DAY);
    await h.store.insertBatch(`slo-nt-${id}`, 'agent-1', [result(id, Date.now() - HOUR, 200), result(id, Date.now() - 2 * HOUR, 503)]);
    const s = (await h.call('GET', `/api/users/endpoints/${id}/slo`, undefined, token)).body.data as SloStatus;
    expect(s).toMatchObject({ slo_target: null, slo_window_days: 30, uptime_percentage: 50, error_budget: null, burn_rate_1h: null, budget_exhausted_at: null });
    const empty = await endpoint(token, 'empty', Date.now() - DAY, { slo_target: 99 });
    const e = (await h.call('GET', `/api/users/endpoints/${empty}/slo`, undefined, token)).body.data as SloStatus;
    expect(e).toMatchObject({ uptime_percentage: null, burn_rate_1h: null, burn_rate_24h: null, budget_exhausted_at: null });
    expect(e.error_budget).toMatchObject({ used_minutes: 0 });
    const other = await h.signup();
    const r = await h.call('GET', `/api/users/endpoints/${id}/slo`, undefined, other.token);
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ success: false, error: 'Endpoint not found' });
  });
});

describe('GET /api/users/reports/sla', () => {
  it('leaves maintenance out and lists it, counts outages with MTTR and MTTA, and totals the rows', async () => {
    const { token, user } = await h.signup();
    const day = midnight(Date.now()) - DAY; // yesterday, UTC (the profile's zone)
    const inWindow = await endpoint(token, 'maint', day - 3 * DAY);
    const plain = await endpoint(token, 'plain', day - 3 * DAY);
    const start = day + 10 * HOUR + 20 * MIN;
    const rows: CheckResult[] = [];
    for (let m = 0; m < 60; m++) {
      const t = day + 10 * HOUR + m * MIN + 1000;
      const down = m >= 20 && m < 40;
      for (const id of [inWindow, plain]) rows.push(result(id, t, down ? 503 : 200));
    }
    await h.store.insertBatch(`sla-m-${plain}`, 'agent-1', rows);
    const w = await h.call('POST', '/api/users/maintenance-windows', { title: 'Upgrade', endpoint_ids: [inWindow], starts_at: iso(Date.now() - MIN), ends_at: iso(Date.now() + MIN) }, token);
    expect(w.status).toBe(201);
    h.cp.db.prepare('UPDATE maintenance_windows SET starts_at = ?, ends_at = ? WHERE window_id = ?').run(start, start + 20 * MIN, w.body.data.id);
    incident(user.id, plain, 'down', start, start + 20 * MIN, start + 5 * MIN);
    incident(user.id, plain, 'down', day + 12 * HOUR, day + 12 * HOUR + 10 * MIN, null);
    incident(user.id, plain, 'threshold:response_time:any', day + 13 * HOUR, day + 14 * HOUR, null); // not an outage
    incident(user.id, plain, 'down', day - HOUR, day - HOUR + MIN, null); // the day before: outside

    const date = iso(day).slice(0, 10);
    const r = await report(token, `from=${date}&to=${date}`);
    expect(r).toMatchObject({ from: iso(day), to: iso(day + DAY), timezone: 'UTC', group_by: 'endpoint', retention: { days: 30, clamped: false } });
    const rowOf = (id: number) => r.rows.find((x) => x.url_id === id)!;
    // the window's 20 failing minutes are gone: 40 checks, all up, no downtime
    expect(rowOf(inWindow)).toMatchObject({ name: 'maint', region: null, month: null, checks: 40, uptime_percentage: 100, downtime_minutes: 0, incidents: 0, longest_outage_minutes: null, mttr_minutes: null, mtta_minutes: null });
    // 40 of 60 up; 20/60 of the day's 1,440 minutes = 480; outages of 20 and 10 minutes, one acknowledged after 5
    expect(rowOf(plain)).toMatchObject({ checks: 60, uptime_percentage: 66.67, downtime_minutes: 480, incidents: 2, longest_outage_minutes: 20, mttr_minutes: 15, mtta_minutes: 5 });
    expect(r.totals).toEqual({ checks: 100, uptime_percentage: 80, downtime_minutes: 480, incidents: 2, longest_outage_minutes: 20, mttr_minutes: 15, mtta_minutes: 5 });
    expect(r.maintenance).toEqual([{ id: w.body.data.id, title: 'Upgrade', endpoint_ids: [inWindow], starts_at: iso(start), ends_at: iso(start + 20 * MIN) }]);

    // endpoint_ids narrows the report; the CSV holds the same figures
    const one = await report(token, `from=${date}&to=${date}&endpoint_ids=${plain}`);
    expect(one.rows.map((x) => x.url_id)).toEqual([plain]);
    const csv = await fetch(`${h.cp.url}/api/users/reports/sla?from=${date}&to=${date}&format=csv`, { headers: { authorization: `Bearer ${token}` } });
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(csv.headers.get('content-disposition')).toBe(`attachment; filename="sla-report-${date}-${iso(day + DAY).slice(0, 10)}.csv"`);
    const lines = (await csv.text()).trim().split('\r\n');
    expect(lines[0]).toBe('endpoint,url_id,region,month,uptime_percentage,downtime_minutes,checks,incidents,longest_outage_minutes,mttr_minutes,mtta_minutes');
    expect(lines).toContain(`plain,${plain},,,66.67,480,60,2,20,15,5`);
    expect(lines.at(-1)).toBe('Total,,,,80,480,100,2,20,15,5');
  });

  it('a period without results is no data (null), never 100 %, per region too', async () => {
    const { token, user } = await h.signup();
    await h.setPackage(user.email, 'Business');
    const day = midnight(Date.now()) - DAY;
    const id = await endpoint(token, 'quiet', day - 3 * DAY, { regions: ['EU-Germany', 'US-Virginia'] });
    await h.store.insertBatch(`sla-nd-${id}`, 'agent-1', [result(id, day - 2 * DAY + HOUR, 503), result(id, day + HOUR, 200, 'EU-Germany')]);
    const date = iso(day).slice(0, 10);
    const before = iso(day - DAY).slice(0, 10);
    const empty = await report(token, `from=${before}&to=${before}`);
    expect(empty.rows).toEqual([expect.objectContaining({ url_id: id, checks: 0, uptime_percentage: null, downtime_minutes: null })]);
    expect(empty.totals).toMatchObject({ checks: 0, uptime_percentage: null, downtime_minutes: null, incidents: 0 });
    const byRegion = await report(token, `from=${date}&to=${date}&group_by=region`);
    expect(byRegion.rows.map((x) => [x.region, x.checks, x.uptime_percentage])).toEqual([['EU-Germany', 1, 100], ['US-Virginia', 0, null]]);
    expect(byRegion.totals).toMatchObject({ checks: 1, uptime_percentage: 100, downtime_minutes: 0 });
  });

  it('cuts months at midnight in the profile\'s zone across a DST change (a 25- or 23-hour day)', async () => {
    const { token, user } = await h.signup();
    await h.setPackage(user.email, 'Business');
    h.cp.db.prepare('UPDATE users SET timezone = ? WHERE id = ?').run('Europe/Berlin', user.id);
    // The latest March or October (Berlin changes clocks in both) that ended at least a day ago.
    const now = Date.now();
    const candidates = [0, 1].flatMap((back) => [3, 10].map((m) => ({ y: new Date(now).getUTCFullYear() - back, m })));
    const monthStart = (y: number, m: number) => fromZonedLocal(`${y}-${String(m).padStart(2, '0')}-01T00:00`, 'Europe/Berlin');
    const next = (y: number, m: number) => (m === 12 ? { y: y + 1, m: 1 } : { y, m: m + 1 });
    const { y, m } = candidates.filter((c) => { const n = next(c.y, c.m); return monthStart(n.y, n.m) < now - DAY; })
      .sort((a, b) => monthStart(b.y, b.m) - monthStart(a.y, a.m))[0];
    const n = next(y, m);
    const start = monthStart(y, m);
    const end = monthStart(n.y, n.m);
    const id = await endpoint(token, 'dst', start - 10 * DAY);
    const local = (ymd: string, hm: string) => fromZonedLocal(`${ymd}T${hm}`, 'Europe/Berlin');
    const mm = String(m).padStart(2, '0');
    const nn = String(n.m).padStart(2, '0');
    await h.store.insertBatch(`sla-dst-${id}`, 'agent-1', [
      result(id, local(`${y}-${mm}-01`, '00:30'), 200), // the month's first half hour (still the month before in UTC)
      result(id, local(`${y}-${mm}-31`, '23:30'), 503), // its last half hour
      result(id, local(`${n.y}-${nn}-01`, '00:30'), 200), // the next month's first
    ]);
    const r = await report(token, `from=${y}-${mm}-01&to=${n.y}-${nn}-01&group_by=month`);
    expect(r).toMatchObject({ timezone: 'Europe/Berlin', from: iso(start), group_by: 'month' });
    expect(r.rows.map((x) => [x.month, x.checks, x.uptime_percentage])).toEqual([[`${y}-${mm}`, 2, 50], [`${n.y}-${nn}`, 1, 100]]);
    // 31 days and one hour more (October) or less (March): half of 44,700 or 44,580 minutes
    expect((end - start) / MIN).toBe(m === 10 ? 44_700 : 44_580);
    expect(r.rows[0].downtime_minutes).toBe(m === 10 ? 22_350 : 22_290);
  });

  it('clamps a from before the plan\'s retention and says so; the older results are not counted', async () => {
    const { token } = await h.signup(); // Free: 30 days
    const id = await endpoint(token, 'old', Date.now() - 90 * DAY);
    await h.store.insertBatch(`sla-ret-${id}`, 'agent-1', [result(id, Date.now() - 40 * DAY, 503), result(id, Date.now() - 2 * DAY, 200)]);
    const asked = midnight(Date.now()) - 60 * DAY;
    const before = Date.now();
    const r = await report(token, `from=${iso(asked)}&to=${iso(Date.now())}`);
    expect(r.retention).toEqual({ days: 30, clamped: true, requested_from: iso(asked) });
    expect(Date.parse(r.from)).toBeGreaterThanOrEqual(before - 30 * DAY);
    expect(Date.parse(r.from)).toBeLessThanOrEqual(Date.now() - 30 * DAY);
    expect(r.rows[0]).toMatchObject({ checks: 1, uptime_percentage: 100 });
  });

  it('agrees with the graphs\' uptime for the same range', async () => {
    const { token, user } = await h.signup();
    await h.setPackage(user.email, 'Pro');
    const id = await endpoint(token, 'agree', Date.now() - 3 * DAY - 17 * MIN);
    const rows: CheckResult[] = [];
    for (let t = Date.now() - 3 * DAY; t < Date.now() - MIN; t += 37 * MIN) rows.push(result(id, t, Math.floor(t / MIN) % 7 === 0 ? 503 : 200));
    await h.store.insertBatch(`sla-agree-${id}`, 'agent-1', rows);
    const from = Date.now() - 2 * DAY - 13 * MIN;
    const to = Date.now();
    const g = await h.call('GET', `/api/graphs/endpoint/${id}?timeFrom=${from}&timeTo=${to}`, undefined, token);
    expect(g.status).toBe(200);
    const r = await report(token, `from=${iso(from)}&to=${iso(to)}`);
    expect(r.rows[0].uptime_percentage).not.toBeNull();
    expect(r.rows[0].uptime_percentage).toBe(g.body.data.uptime);
  });

  it('agrees with the status page\'s bar for the same day', async () => {
    const { token } = await h.signup();
    const day = midnight(Date.now()) - DAY;
    const id = await endpoint(token, 'bar', day - 2 * DAY);
    const rows: CheckResult[] = [];
    for (let m = 0; m < 30; m++) rows.push(result(id, day + 12 * HOUR + m * MIN + 500, m % 4 === 0 ? 503 : 200));
    await h.store.insertBatch(`sla-bar-${id}`, 'agent-1', rows);
    const page = await h.call('POST', '/api/users/status-pages', { slug: `sla-bar-${process.pid}`, title: 'Bar', timezone: 'UTC', components: [{ name: 'Bar', endpoint_id: id }] }, token);
    expect(page.status).toBe(201);
    const pub = await h.call('GET', `/api/public/status/sla-bar-${process.pid}`);
    const date = iso(day).slice(0, 10);
    const bar = (pub.body.data.components[0].days as Array<{ date: string; uptime: number | null }>).find((x) => x.date === date)!;
    const r = await report(token, `from=${date}&to=${date}`);
    expect(r.rows[0].uptime_percentage).toBe(73.33); // 22 of 30
    expect(bar.uptime).toBe(r.rows[0].uptime_percentage);
  });

  it('refuses bad queries with a clear 400, and another workspace\'s endpoint with 404', async () => {
    const { token } = await h.signup();
    const other = await h.signup();
    const theirs = await endpoint(other.token, 'theirs', Date.now() - DAY);
    const bad = async (q: string, error: RegExp | string) => {
      const r = await h.call('GET', `/api/users/reports/sla?${q}`, undefined, token);
      expect(r.status, q).toBe(400);
      expect(r.body).toEqual({ success: false, error: expect.stringMatching(error) });
    };
    await bad('to=2026-01-01', /from/);
    await bad('from=2026-02-01&to=2026-01-01', 'from must be before to');
    await bad('from=yesterday&to=2026-01-01', /from must be a date/);
    await bad('from=2026-01-01&to=2026-01-02&group_by=week', 'group_by must be endpoint, region or month');
    await bad('from=2026-01-01&to=2026-01-02&endpoint_ids=1,x', /endpoint_ids/);
    await bad('from=2024-01-01&to=2026-01-02', 'The report can cover at most 400 days');
    const r = await h.call('GET', `/api/users/reports/sla?from=2026-01-01&to=2026-01-02&endpoint_ids=${theirs}`, undefined, token);
    expect(r.status).toBe(404);
  });
});
