import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CheckResult } from '@upfleet/proto';
import type { ClickHouseResultStore } from '../results/clickhouse-store';
import { startHarnessWithResults, type Harness } from '../testing/harness';

// The graph answer through the real REST route, control plane and chDB store: the points a user
// sees are exactly bucketSeconds apart, for each range the dashboard offers.
const HOUR = 3_600_000;

describe('control plane with a chDB results store', () => {
  let store: ClickHouseResultStore;
  let h: Harness;
  let token: string;

  beforeAll(async () => {
    const started = await startHarnessWithResults();
    h = started;
    store = started.store;
    token = (await h.signup()).token;
  }, 120_000);
  afterAll(() => h?.close());

  it('graphs a tcp endpoint as its response time: connect times, failures without a point', async () => {
    await h.setPackage((await h.call('GET', '/api/users/profile', undefined, token)).body.data.email, 'Pro');
    const created = await h.call('POST', '/api/users/endpoints', { name: 'Db', kind: 'tcp', target: 'db.example.com:5432', regions: ['EU-Germany'] }, token);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id: number = created.body.data.url_id;
    const now = Date.now();
    const row = (ts: number, ok: boolean, total: number): CheckResult => ({
      check_id: `${id}:tcp:EU-Germany`, endpoint_id: id, kind: 'CHECK_KIND_TCP', region: 'EU-Germany', ts_ms: ts, ok, phase: ok ? '' : 'connect',
      error: ok ? '' : 'connection refused', status_code: 0, dns_ms: 0, connect_ms: total, tls_ms: 0, ttfb_ms: 0, total_ms: total, cert_days_left: 0,
      cert_not_after_ms: 0, cert_issuer: '', cert_subject: '', ping_method: '', redirects: 0, retention_days: 90, result_id: `${id}-${ts}`,
    });
    h.cp.db.prepare('UPDATE endpoints SET created_at = ? WHERE url_id = ?').run(new Date(now - HOUR).toISOString(), id);
    await store.insertBatch(`tcp-graph-${id}`, 'agent-1', [row(now - 5 * 60_000, true, 12), row(now - 4 * 60_000, false, 3), row(now - 3 * 60_000, true, 14)]);
    const r = await h.call('GET', `/api/graphs/endpoint/${id}?hours=1`, undefined, token);
    expect(r.status).toBe(200);
    expect(r.body.data.graphs.map((g: { function: string; data: Array<[number, number]> }) => [g.function, g.data.map((p) => p[1])])).toEqual([['response_time', [12, 14]]]);
    // the failure's reason comes with the graph (newest first), for its tooltip
    expect(r.body.data.failures).toEqual([{ t: now - 4 * 60_000, location: 'EU-Germany', reason: 'connection refused' }]);
  });

  it.each([
    [1, 10],
    [24, 180],
    [7 * 24, 1800],
    [30 * 24, 7200],
  ])('spaces the points of a %i h graph by its bucketSeconds (%i s)', async (hours, step) => {
    const created = await h.call('POST', '/api/users/endpoints', {
      name: `Graph ${hours}h`, url: `https://example.com/${hours}`, regions: ['EU-Germany'],
      ping_host: false, cert_expiry: false, response_code: true, response_time: false,
    }, token);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const endpointId: number = created.body.data.url_id;
    // Two results per bucket, from a bucket start well inside the range to well before now, so
    // every bucket between the first and the last point has data.
    const stepMs = step * 1000;
    const now = Date.now();
    const first = Math.ceil((now - hours * HOUR + 2 * stepMs) / stepMs) * stepMs;
    const rows: CheckResult[] = [];
    for (let ts = first; ts < now - 2 * stepMs; ts += stepMs / 2) {
      rows.push({
        check_id: `${endpointId}:http:EU-Germany`, endpoint_id: endpointId, kind: 'CHECK_KIND_HTTP', region: 'EU-Germany',
        ts_ms: ts, ok: true, phase: '', error: '', status_code: 200, dns_ms: 1, connect_ms: 1, tls_ms: 1, ttfb_ms: 5,
        total_ms: 50, cert_days_left: 0, cert_not_after_ms: 0, cert_issuer: '', cert_subject: '', ping_method: '',
        redirects: 0, retention_days: 90, result_id: `${endpointId}-${ts}`,
      });
    }
    // The endpoint has existed for the whole range (results older than an endpoint are never shown),
    // and one insert touches at most 10 daily partitions.
    h.cp.db.prepare('UPDATE endpoints SET created_at = ? WHERE url_id = ?').run(new Date(now - hours * HOUR - HOUR).toISOString(), endpointId);
    for (let i = 0, part = 0; i < rows.length; part++) {
      const dayEnd = rows[i].ts_ms + 5 * 24 * HOUR;
      const chunk = rows.slice(i).filter((x) => x.ts_ms < dayEnd);
      await store.insertBatch(`graph-${hours}-${part}`, 'agent-1', chunk);
      i += chunk.length;
    }

    const r = await h.call('GET', `/api/graphs/endpoint/${endpointId}?hours=${hours}`, undefined, token);
    expect(r.status).toBe(200);
    const { bucketSeconds, graphs } = r.body.data as { bucketSeconds: number; graphs: Array<{ function: string; data: Array<[number, number]> }> };
    expect(bucketSeconds).toBe(step);
    const times = graphs.find((g) => g.function === 'response_code')!.data.map((p) => p[0]);
    expect(times.length).toBeGreaterThan(300);
    expect(times.length).toBeLessThanOrEqual(500);
    const gaps = new Set(times.slice(1).map((t, i) => t - times[i]));
    expect([...gaps]).toEqual([bucketSeconds * 1000]);
  });

  it('shows a failed check in its bucket at every range, with counts per status class, and the same uptime at 1 h, 12 h, 24 h and 7 days as the badge', async () => {
    await h.setPackage((await h.call('GET', '/api/users/profile', undefined, token)).body.data.email, 'Pro');
    const created = await h.call('POST', '/api/users/endpoints', {
      name: 'Failing', url: 'https://example.com/failing', regions: ['EU-Germany'],
      ping_host: false, cert_expiry: false, response_code: true, response_time: true,
    }, token);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id: number = created.body.data.url_id;
    const now = Date.now();
    h.cp.db.prepare('UPDATE endpoints SET created_at = ? WHERE url_id = ?').run(new Date(now - 8 * 24 * HOUR).toISOString(), id);
    // 20 checks in the last 40 minutes: one refused connection, 30 minutes later a 503 (never in one
    // bucket, even 30-minute ones), between them a 301; the last is a 200.
    const rows: CheckResult[] = [];
    for (let i = 0; i < 20; i++) {
      const ts = now - 40 * 60_000 + i * 2 * 60_000;
      const status = i === 2 ? 0 : i === 17 ? 503 : i === 10 ? 301 : 200;
      rows.push({
        check_id: `${id}:http:EU-Germany`, endpoint_id: id, kind: 'CHECK_KIND_HTTP', region: 'EU-Germany', ts_ms: ts,
        ok: status !== 0, phase: status === 0 ? 'connect' : '', error: status === 0 ? 'connection refused' : '', status_code: status,
        dns_ms: 1, connect_ms: 1, tls_ms: 1, ttfb_ms: 5, total_ms: 50, cert_days_left: 0, cert_not_after_ms: 0, cert_issuer: '', cert_subject: '',
        ping_method: '', redirects: 0, retention_days: 90, result_id: `fail-${id}-${i}`,
      });
    }
    await store.insertBatch(`failing-${id}`, 'agent-1', rows);
    type Codes = { t: number; checks: number; passed: number; classes: Record<string, number> };
    type Series = { function: string; data: Array<[number, number]>; codes?: Codes[]; lastCode?: number; uptime?: number | null };
    const seen: Record<number, { uptime: number; seriesUptime: number; worst: number[]; classes: Record<string, number>; lastCode: number }> = {};
    for (const hours of [1, 12, 24, 168]) {
      const r = await h.call('GET', `/api/graphs/endpoint/${id}?hours=${hours}`, undefined, token);
      expect(r.status).toBe(200);
      const code = (r.body.data.graphs as Series[]).find((g) => g.function === 'response_code')!;
      const classes: Record<string, number> = {};
      for (const b of code.codes!) for (const [k, v] of Object.entries(b.classes)) classes[k] = (classes[k] ?? 0) + v;
      // the buckets holding a failure read its status, never the 200 they ended on
      const worst = code.data.map((p) => p[1]).filter((v) => v !== 200 && v !== 301).sort();
      seen[hours] = { uptime: r.body.data.uptime, seriesUptime: code.uptime!, worst, classes, lastCode: code.lastCode! };
    }
    for (const hours of [1, 12, 24, 168]) {
      expect(seen[hours], `${hours} h`).toEqual({ uptime: 85, seriesUptime: 85, worst: [0, 503], classes: { '2xx': 17, '3xx': 1, '4xx': 0, '5xx': 1, failed: 1 }, lastCode: 200 });
    }
    const list = await h.call('GET', '/api/users/endpoints-with-uptime', undefined, token);
    expect(list.body.data.find((e: { url_id: number }) => e.url_id === id).uptime_percentage).toBe(85);
  });

  it('answers a repeated graph from the cache only to its own workspace, and with a result ingested after the first read', async () => {
    const created = await h.call('POST', '/api/users/endpoints', {
      name: 'Cached', url: 'https://example.com/cached', regions: ['EU-Germany'],
      ping_host: false, cert_expiry: false, response_code: false, response_time: true,
    }, token);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id: number = created.body.data.url_id;
    const now = Date.now();
    h.cp.db.prepare('UPDATE endpoints SET created_at = ? WHERE url_id = ?').run(new Date(now - 2 * HOUR).toISOString(), id);
    const row = (ts: number, total: number): CheckResult => ({
      check_id: `${id}:http:EU-Germany`, endpoint_id: id, kind: 'CHECK_KIND_HTTP', region: 'EU-Germany', ts_ms: ts, ok: true, phase: '', error: '',
      status_code: 200, dns_ms: 1, connect_ms: 1, tls_ms: 1, ttfb_ms: 5, total_ms: total, cert_days_left: 0, cert_not_after_ms: 0, cert_issuer: '',
      cert_subject: '', ping_method: '', redirects: 0, retention_days: 90, result_id: `cached-${id}-${ts}`,
    });
    await store.insertBatch(`cached-a-${id}`, 'agent-1', [row(now - 20 * 60_000, 40)]);
    const path = `/api/graphs/endpoint/${id}?timeFrom=${now - HOUR}&timeTo=${now + 60_000}`;
    const values = (r: { body: { data: { graphs: Array<{ data: Array<[number, number]> }> } } }) => r.body.data.graphs[0].data.map((p) => p[1]);
    expect(values(await h.call('GET', path, undefined, token))).toEqual([40]);
    const hits = store.graphCache!.hits;
    expect(values(await h.call('GET', path, undefined, token))).toEqual([40]);
    expect(store.graphCache!.hits).toBe(hits + 1);
    // another workspace asking for the same range of this endpoint gets no graph, cached or not
    const stranger = (await h.signup()).token;
    const denied = await h.call('GET', path, undefined, stranger);
    expect(denied.status).toBe(404);
    expect(denied.body.success).toBe(false);
    expect(store.graphCache!.hits).toBe(hits + 1);
    // a result in the open bucket shows on the next read of the same range
    await store.insertBatch(`cached-b-${id}`, 'agent-1', [row(now, 60)]);
    expect(values(await h.call('GET', path, undefined, token))).toEqual([40, 60]);
  });

  it('serves every control-plane metric on GET /metrics, each registered by its part', async () => {
    const res = await fetch(`${h.cp.url}/metrics`, { headers: { authorization: `Bearer ${h.cp.adminToken}` } });
    expect(res.status).toBe(200);
    const text = await res.text();
    const types = Object.fromEntries([...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map((m) => [m[1], m[2]]));
    expect(types).toEqual({
      upfleet_http_requests_total: 'counter',
      upfleet_http_request_duration_seconds: 'summary',
      upfleet_ingest_results_total: 'counter',
      upfleet_ingest_batches_total: 'counter',
      upfleet_ingest_batch_duration_seconds: 'summary',
      upfleet_ingest_results_rejected_total: 'counter',
      upfleet_graph_query_duration_seconds: 'summary',
      upfleet_agents_live: 'gauge',
      upfleet_agent_checks_owned: 'gauge',
      upfleet_agent_outbox_depth: 'gauge',
      upfleet_alert_deliveries_total: 'counter',
      upfleet_alert_events_queued_total: 'counter',
      upfleet_alert_evaluation_duration_seconds: 'summary',
      upfleet_alert_outbox_pending: 'gauge',
      upfleet_billing_webhook_events_total: 'counter',
      upfleet_plan_changes_total: 'counter',
      upfleet_rate_limited_total: 'counter',
      upfleet_screenshots_stored_total: 'counter',
      upfleet_screenshots_refused_total: 'counter',
      upfleet_screenshots_deleted_total: 'counter',
      upfleet_screenshots_bytes: 'gauge',
    });
    // The graphs above were timed.
    const count = text.split('\n').find((l) => l.startsWith('upfleet_graph_query_duration_seconds_count'));
    expect(Number(count?.split(' ')[1])).toBeGreaterThanOrEqual(4);
  });
});
