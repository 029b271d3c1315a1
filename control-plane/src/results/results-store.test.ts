import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import type { CheckResult } from '@upfleet/proto';
import { clickhouseServerUnavailable, startClickHouseServer } from '../../../tests/helpers/clickhouse-server';
import { createResultStore, type ClickHouseResultStore } from './clickhouse-store';
import { planGraphQuery } from './graph-plan';
import { rollupSelect, SQL_HTTP_PASSED } from './schema';
import { dailyUptimeFrom } from './status-queries';
import { BROWSER_COLUMNS } from './columns';
import { screenshotId } from '../screenshots/screenshot-id';

const logger = pino({ level: 'silent' });
const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
// Whole hours in the past, so rollup buckets line up with the test's arithmetic.
const NOW_HOUR = Math.floor(Date.now() / HOUR) * HOUR;

let nextEndpoint = 1000;
const newEndpoint = () => nextEndpoint++;

function result(over: Partial<CheckResult> & { endpoint_id: number; ts_ms: number }): CheckResult {
  return {
    check_id: `${over.endpoint_id}:http:EU-Germany`,
    kind: 'CHECK_KIND_HTTP',
    region: 'EU-Germany',
    ok: true,
    phase: '',
    error: '',
    status_code: 200,
    dns_ms: 1,
    connect_ms: 2,
    tls_ms: 3,
    ttfb_ms: 4,
    total_ms: 100,
    cert_days_left: 0,
    cert_not_after_ms: 0,
    cert_issuer: '',
    cert_subject: '',
    ping_method: '',
    redirects: 0,
    retention_days: 90,
    result_id: `r-${over.endpoint_id}-${over.ts_ms}-${Math.random()}`,
    ...over,
  };
}

type MakeStore = () => Promise<{ store: ClickHouseResultStore; cleanup: () => Promise<void> }>;

export function describeResultStore(name: string, makeStore: MakeStore | null, skipReason?: string): void {
  if (!makeStore) {
    describe.skip(`${name} (skipped: ${skipReason})`, () => {
      it('runs the result store suite', () => {});
    });
    return;
  }
  describe(name, () => {
    let store: ClickHouseResultStore;
    let cleanup: () => Promise<void>;

    beforeAll(async () => {
      ({ store, cleanup } = await makeStore());
      await store.init();
      await store.init(); // migrations are idempotent
    }, 180_000);
    afterAll(async () => {
      await cleanup?.();
    });

    it('returns inserted results as one series per function and location with their values', async () => {
      const ep = newEndpoint();
      const t0 = NOW_HOUR - 2 * HOUR;
      const rows: CheckResult[] = [];
      for (let i = 0; i < 5; i++) {
        const ts = t0 + i * MIN + 17;
        rows.push(result({ endpoint_id: ep, ts_ms: ts, total_ms: 100 + i * 10, status_code: i === 2 ? 503 : 200, ok: i !== 2 }));
        rows.push(result({ endpoint_id: ep, ts_ms: ts, region: 'US-Virginia', total_ms: 200 + i, status_code: 0, ok: false, phase: 'connect', error: 'ECONNREFUSED' }));
        rows.push(result({ endpoint_id: ep, ts_ms: ts, kind: 'CHECK_KIND_PING', total_ms: 5 + i, ping_method: 'icmp' }));
        rows.push(result({ endpoint_id: ep, ts_ms: ts, kind: 'CHECK_KIND_TLS', cert_days_left: 40 - i, cert_not_after_ms: t0 + 40 * DAY }));
      }
      await store.insertBatch('values-1', 'agent-a', rows);

      const series = await store.graphs(ep, {
        fromMs: t0 - MIN,
        toMs: t0 + HOUR,
        functions: ['response_time', 'response_code', 'ping', 'cert_expiry'],
      });
      const get = (fn: string, loc: string) => series.find((s) => s.function === fn && s.location === loc);
      const ts = [0, 1, 2, 3, 4].map((i) => t0 + i * MIN + 17);

      expect(get('response_time', 'EU-Germany')?.data).toEqual(ts.map((t, i) => [t, 100 + i * 10]));
      expect(get('response_code', 'EU-Germany')?.data).toEqual(ts.map((t, i) => [t, i === 2 ? 503 : 200]));
      // No response arrived in US-Virginia: code 0 and no response time.
      expect(get('response_code', 'US-Virginia')?.data).toEqual(ts.map((t) => [t, 0]));
      expect(get('response_time', 'US-Virginia')).toBeUndefined();
      expect(get('ping', 'EU-Germany')?.data).toEqual(ts.map((t, i) => [t, 5 + i]));
      expect(get('cert_expiry', 'EU-Germany')?.data).toEqual(ts.map((t, i) => [t, 40 - i]));
      expect(get('response_time', 'EU-Germany')?.itemId).toBe(`${ep}:response_time:EU-Germany`);

      const onlyUs = await store.graphs(ep, { fromMs: t0 - MIN, toMs: t0 + HOUR, functions: ['response_code'], regions: ['US-Virginia'] });
      expect(onlyUs.map((s) => [s.function, s.location])).toEqual([['response_code', 'US-Virginia']]);
    });

    it('exports raw results as CSV and NDJSON per check and region in time order, within the range, a stopped read ending the query', async () => {
      const ep = newEndpoint();
      const t0 = NOW_HOUR - 3 * HOUR;
      await store.insertBatch(`export-${ep}`, 'agent-a', [
        result({ endpoint_id: ep, ts_ms: t0 + 2 * HOUR, status_code: 503, ok: false, phase: 'http', error: '+1 "bad", again' }),
        result({ endpoint_id: ep, ts_ms: t0 + 1000, total_ms: 12.5 }),
        result({ endpoint_id: ep, ts_ms: t0 + 500, region: 'US-Virginia', status_code: 0, ok: false, phase: 'connect', error: 'ECONNREFUSED' }),
        result({ endpoint_id: ep, ts_ms: t0 - 1, error: 'before the range' }),
        result({ endpoint_id: newEndpoint(), ts_ms: t0 + 1000, error: 'another endpoint' }),
      ]);
      const read = async (format: 'csv' | 'ndjson') => {
        const parts: Buffer[] = [];
        for await (const b of store.exportResults(ep, { fromMs: t0, toMs: t0 + 2 * HOUR }, format)) parts.push(Buffer.from(b));
        return Buffer.concat(parts).toString('utf8');
      };
      const iso = (ms: number) => new Date(ms).toISOString();
      expect(await read('csv')).toBe([
        `"${iso(t0 + 1000)}","EU-Germany","http",true,"",200,1,2,3,4,12.5,""`,
        `"${iso(t0 + 2 * HOUR)}","EU-Germany","http",false,"http",503,1,2,3,4,100,"'+1 ""bad"", again"`,
        `"${iso(t0 + 500)}","US-Virginia","http",false,"connect",0,1,2,3,4,100,"ECONNREFUSED"`,
        '',
      ].join('\r\n'));
      expect((await read('ndjson')).trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>).map((r) => [r.time, r.region, r.ok, r.error])).toEqual([
        [iso(t0 + 1000), 'EU-Germany', true, ''],
        [iso(t0 + 2 * HOUR), 'EU-Germany', false, '+1 "bad", again'],
        [iso(t0 + 500), 'US-Virginia', false, 'ECONNREFUSED'],
      ]);
      // A reader that stops after the first block leaves the store able to answer at once.
      for await (const _ of store.exportResults(ep, { fromMs: t0, toMs: t0 + 2 * HOUR }, 'csv')) break;
      expect(await store.countResults({ endpointId: ep })).toBe(4);
    });

    it('graphs a tcp or dns check as the endpoint response time; a failed check has no time', async () => {
      const ep = newEndpoint();
      const t0 = NOW_HOUR - 2 * HOUR;
      const ts = [0, 1, 2].map((i) => t0 + i * MIN + 5);
      await store.insertBatch(`tcp-${ep}`, 'agent-a', ts.map((t, i) => result({
        endpoint_id: ep, ts_ms: t, check_id: `${ep}:tcp:EU-Germany`, kind: 'CHECK_KIND_TCP', status_code: 0, total_ms: 10 + i,
        ok: i !== 1, phase: i === 1 ? 'connect' : '', error: i === 1 ? 'connection refused' : '',
      })));
      const [s] = await store.graphs(ep, { fromMs: t0 - MIN, toMs: t0 + HOUR, functions: ['response_time'] });
      expect(s).toMatchObject({ function: 'response_time', location: 'EU-Germany', data: [[ts[0], 10], [ts[2], 12]] });
      const dnsEp = newEndpoint();
      await store.insertBatch(`dns-${dnsEp}`, 'agent-a', [result({ endpoint_id: dnsEp, ts_ms: ts[0], check_id: `${dnsEp}:dns:EU-Germany`, kind: 'CHECK_KIND_DNS', status_code: 0, total_ms: 3 })]);
      expect((await store.graphs(dnsEp, { fromMs: t0 - MIN, toMs: t0 + HOUR, functions: ['response_time'] }))[0].data).toEqual([[ts[0], 3]]);
    });

    it('counts a tcp endpoint\'s passed checks as its uptime (raw part and hour rollup)', async () => {
      const ep = newEndpoint();
      const t0 = NOW_HOUR - 3 * HOUR;
      const tcp = (ts: number, ok: boolean) => result({ endpoint_id: ep, ts_ms: ts, check_id: `${ep}:tcp:EU-Germany`, kind: 'CHECK_KIND_TCP', status_code: 0, ok, phase: ok ? '' : 'connect' });
      // 30 minutes before the first whole hour (raw) and two whole hours (rollup): 3 of 4 passed
      await store.insertBatch(`tcp-up-${ep}`, 'a', [tcp(t0 - 30 * MIN, true), tcp(t0 + 10 * MIN, false), tcp(t0 + 70 * MIN, true), tcp(t0 + 80 * MIN, true)]);
      const up = await store.uptime([ep], { sinceMs: t0 - 40 * MIN, untilMs: NOW_HOUR, createdAtMs: new Map([[ep, t0 - 40 * MIN]]) });
      expect(up.get(ep)).toBe(75);
    });

    it('counts an HTTP check by its assertions: a failed assertion on a 200 is down, a 404 they accept is up (raw part and hour rollup, status page days)', async () => {
      const ep = newEndpoint();
      const t0 = NOW_HOUR - 3 * HOUR;
      const failed = (ts: number) => result({ endpoint_id: ep, ts_ms: ts, status_code: 200, ok: false, phase: 'assertion', error: 'body does not contain "ok"' });
      const accepted = (ts: number) => result({ endpoint_id: ep, ts_ms: ts, status_code: 404, ok: true, phase: 'asserted' });
      // Before the first whole hour (raw): one of each; two whole hours (rollup): one failed, two accepted.
      await store.insertBatch(`asserted-${ep}`, 'a', [failed(t0 - 30 * MIN), accepted(t0 - 20 * MIN), failed(t0 + 10 * MIN), accepted(t0 + 70 * MIN), accepted(t0 + 80 * MIN)]);
      const up = await store.uptime([ep], { sinceMs: t0 - 40 * MIN, untilMs: NOW_HOUR, createdAtMs: new Map([[ep, t0 - 40 * MIN]]) });
      expect(up.get(ep)).toBe(60);
      // A status page's days (hour rollup): 3 of 5 passed; a tcp component counts its passed checks.
      const tcpEp = newEndpoint();
      const tcp = (ts: number, ok: boolean) => result({ endpoint_id: tcpEp, ts_ms: ts, check_id: `${tcpEp}:tcp:EU-Germany`, kind: 'CHECK_KIND_TCP', status_code: 0, ok, phase: ok ? '' : 'connect' });
      await store.insertBatch(`asserted-tcp-${tcpEp}`, 'a', [tcp(t0 + 10 * MIN, true), tcp(t0 + 20 * MIN, false), tcp(t0 + 30 * MIN, true), tcp(t0 + 40 * MIN, true)]);
      const days = await dailyUptimeFrom(store).dailyUptime([ep, tcpEp], t0 - 2 * HOUR, NOW_HOUR, 'UTC');
      const total = (id: number) => [...(days.get(id)?.values() ?? [])].reduce(([n, k], [a, b]) => [n + a, k + b], [0, 0]);
      expect(total(ep)).toEqual([5, 3]);
      expect(total(tcpEp)).toEqual([4, 3]);
      // The store answers the same query itself (what the status pages call).
      expect(await store.dailyUptime([ep, tcpEp], t0 - 2 * HOUR, NOW_HOUR, 'UTC')).toEqual(days);
    });

    it('brings rollup views made before schema step 3 (every 2xx counted up) to the assertion rule at start, once', async () => {
      const db = store.database;
      const views = async () => store.select<{ name: string; q: string }>(
        `SELECT name, as_select AS q FROM system.tables WHERE database = {db:String} AND name LIKE 'check_results_1_\\_mv' ORDER BY name`, { db });
      const now = await views();
      expect(now.map((v) => v.q.includes("'asserted'"))).toEqual([true, true]);
      const oldRule = "kind = 'http' AND status_code >= 200 AND status_code < 300";
      for (const grain of ['1m', '1h'] as const) {
        await store.command(`ALTER TABLE ${db}.check_results_${grain}_mv MODIFY QUERY ${rollupSelect(db, grain).replace(SQL_HTTP_PASSED.slice(1, -1), oldRule)}`);
      }
      const ep = newEndpoint();
      const t0 = NOW_HOUR - 5 * HOUR;
      const failedOn200 = result({ endpoint_id: ep, ts_ms: t0 + 5 * MIN, status_code: 200, ok: false, phase: 'assertion' });
      await store.insertBatch(`step3-old-${ep}`, 'a', [failedOn200]);
      const ok2xx = async () => Number((await store.select<{ n: string }>(
        `SELECT sum(ok2xx_n) AS n FROM ${db}.check_results_1h WHERE endpoint_id = {ep:UInt64}`, { ep }))[0].n);
      expect(await ok2xx()).toBe(1); // the old view's count
      await store.init();
      expect(await views()).toEqual(now);
      await store.insertBatch(`step3-new-${ep}`, 'a', [{ ...failedOn200, ts_ms: t0 + 6 * MIN, result_id: `r-${ep}-new` }]);
      expect(await ok2xx()).toBe(1); // the bucket written before keeps its count; the new row is not counted up
    });

    it('adds the status-class columns of schema step 4 to rollups made before it; an old bucket with a failure still shows it', async () => {
      const db = store.database;
      const before4 = (grain: '1m' | '1h') => rollupSelect(db, grain).replace(/\n\s*countIf\(kind = 'http' AND status_code[^\n]*AS code\d_n,/g, '').replace(/,\n\s*maxIf\(status_code[^\n]*AS fail_code_max/, '');
      expect(before4('1h')).not.toContain('code2_n');
      expect(before4('1h')).not.toContain('fail_code_max');
      for (const grain of ['1m', '1h'] as const) {
        await store.command(`ALTER TABLE ${db}.check_results_${grain}_mv MODIFY QUERY ${before4(grain)}`);
        for (const c of ['code2_n', 'code3_n', 'code4_n', 'code5_n', 'code0_n', 'fail_code_max']) await store.command(`ALTER TABLE ${db}.check_results_${grain} DROP COLUMN ${c}`);
      }
      const ep = newEndpoint();
      const t0 = NOW_HOUR - 20 * DAY;
      const old = [result({ endpoint_id: ep, ts_ms: t0 + 5 * MIN, status_code: 200 }), result({ endpoint_id: ep, ts_ms: t0 + 6 * MIN, status_code: 503, ok: false, phase: 'http' })];
      await store.insertBatch(`step4-old-${ep}`, 'a', old);
      await store.init();
      const columns = await store.select<{ name: string }>(`SELECT name FROM system.columns WHERE database = {db:String} AND table = 'check_results_1h' AND name LIKE 'code%' ORDER BY name`, { db });
      expect(columns.map((c) => c.name)).toEqual(['code0_n', 'code2_n', 'code3_n', 'code4_n', 'code5_n']);
      await store.insertBatch(`step4-new-${ep}`, 'a', [result({ endpoint_id: ep, ts_ms: t0 + 2 * DAY, status_code: 404, ok: false, phase: 'http' })]);
      const [s] = await store.graphs(ep, { fromMs: t0, toMs: NOW_HOUR, functions: ['response_code'] });
      // the old bucket: passed / not passed; the new one: by class, its worst status
      expect(s.data.map((p) => p[1])).toEqual([0, 404]);
      expect(s.codes!.map((b) => b.classes)).toEqual([
        { '2xx': 1, '3xx': 0, '4xx': 0, '5xx': 0, failed: 1 },
        { '2xx': 0, '3xx': 0, '4xx': 1, '5xx': 0, failed: 0 },
      ]);
      expect(s.uptime).toBe(33.33);
    });

    it('adds the browser columns of schema step 5 to a raw table made before it; older rows read defaults, new ones keep every detail', async () => {
      const db = store.database;
      for (const c of BROWSER_COLUMNS) await store.command(`ALTER TABLE ${db}.check_results DROP COLUMN ${c.name}`);
      const ep = newEndpoint();
      const t0 = NOW_HOUR - 3 * HOUR;
      await store.command(`INSERT INTO ${db}.check_results (ts, endpoint_id, kind, region, ok, retention_days, result_id, agent_id)
        VALUES (fromUnixTimestamp64Milli(toInt64(${t0})), ${ep}, 'browser', 'EU-Germany', 0, 30, 'old-run', 'a')`);
      await store.init();
      await store.insertBatch(`step5-${ep}`, 'a', [result({
        endpoint_id: ep, ts_ms: t0 + HOUR, kind: 'CHECK_KIND_BROWSER', ok: false, phase: 'step', error: 'step 1 (click #go): not found', status_code: 200,
        failed_step: 1, failed_action: 'click', dom_content_loaded_ms: 120.5, load_ms: 300.25, lcp_ms: 410, step_ms: [12.5, 3000.125],
        console_errors: ['TypeError: x', 'ü "quoted"'], failed_requests: ['GET https://a.example/x.js net::ERR_FAILED'],
        result_id: 'new-run', screenshots: [{ name: 'failure', mime: 'image/png', data: Buffer.alloc(0), step: 1 }],
      })]);
      const rows = await store.select<Record<string, unknown>>(
        `SELECT result_id, failed_step, failed_action, dom_content_loaded_ms, load_ms, lcp_ms, step_ms, console_errors, failed_requests, screenshot_ids
         FROM ${db}.check_results WHERE endpoint_id = {ep:UInt64} ORDER BY ts`, { ep });
      expect(rows).toEqual([
        { result_id: 'old-run', failed_step: 0, failed_action: '', dom_content_loaded_ms: 0, load_ms: 0, lcp_ms: 0, step_ms: [], console_errors: [], failed_requests: [], screenshot_ids: [] },
        {
          result_id: 'new-run', failed_step: 1, failed_action: 'click', dom_content_loaded_ms: 120.5, load_ms: 300.25, lcp_ms: 410, step_ms: [12.5, 3000.125],
          console_errors: ['TypeError: x', 'ü "quoted"'], failed_requests: ['GET https://a.example/x.js net::ERR_FAILED'], screenshot_ids: [screenshotId('new-run', 'failure')],
        },
      ]);
      const browser = await store.browserGraphs(ep, { fromMs: t0, toMs: NOW_HOUR, stepMs: HOUR });
      expect(browser.lastFailure).toMatchObject({ t: t0 + HOUR, step: 1, action: 'click', reason: 'step 1 (click #go): not found', screenshot_ids: [screenshotId('new-run', 'failure')] });
      expect(browser.timings.map((s) => [s.timing, s.data])).toEqual([
        ['ttfb', [[t0 + HOUR, 4]]], ['dom_content_loaded', [[t0 + HOUR, 120.5]]], ['load', [[t0 + HOUR, 300.25]]], ['lcp', [[t0 + HOUR, 410]]], ['total', [[t0 + HOUR, 100]]],
      ]);
    });

    it('shows the worst failing status of a rollup bucket and its checks by class, as raw rows do', async () => {
      const ep = newEndpoint();
      const t0 = NOW_HOUR - 20 * DAY;
      const rows = [200, 503, 0, 404, 200, 301].map((code, i) => result({ endpoint_id: ep, ts_ms: t0 + i * MIN, status_code: code, ok: code !== 0, phase: code === 0 ? 'connect' : '' }));
      await store.insertBatch(`worst-${ep}`, 'a', rows);
      const q = { fromMs: t0, toMs: NOW_HOUR, functions: ['response_code' as const] };
      const [rollup] = await store.graphs(ep, q);
      const [raw] = await store.graphs(ep, { ...q, source: 'raw' });
      expect(rollup.data).toEqual([[t0, 503]]);
      expect(rollup.codes).toEqual([{ t: t0, checks: 6, passed: 2, classes: { '2xx': 2, '3xx': 1, '4xx': 1, '5xx': 1, failed: 1 } }]);
      expect(rollup.lastCode).toBe(301);
      expect(raw).toEqual(rollup);
    });

    it("cuts status-page days at midnight in the page's IANA zone, and at a 'UTC+2' alias's fixed offset", async () => {
      const ep = newEndpoint();
      // 23:30 UTC five days ago: the next day in Berlin (UTC+1 or +2) and for UTC+2, the same day in UTC and New York
      const day = Math.floor((Date.now() - 5 * DAY) / DAY) * DAY;
      const ts = day + 23 * HOUR + 30 * MIN;
      await store.insertBatch(`zone-${ep}`, 'a', [result({ endpoint_id: ep, ts_ms: ts })]);
      const dates = async (zone: string) => [...((await dailyUptimeFrom(store).dailyUptime([ep], day - DAY, Date.now(), zone)).get(ep)?.keys() ?? [])];
      const iso = (ms: number) => new Date(ms).toISOString().slice(0, 10);
      expect(await dates('UTC')).toEqual([iso(day)]);
      expect(await dates('America/New_York')).toEqual([iso(day)]);
      expect(await dates('Europe/Berlin')).toEqual([iso(day + DAY)]);
      expect(await dates('UTC+2')).toEqual([iso(day + DAY)]);
      expect(await dates('UTC+5:30')).toEqual([iso(day + DAY)]);
    });

    it('sorts points by time even when a batch arrives out of order', async () => {
      const ep = newEndpoint();
      const t0 = NOW_HOUR - 3 * HOUR;
      await store.insertBatch('order-2', 'a', [result({ endpoint_id: ep, ts_ms: t0 + 30 * MIN, total_ms: 3 })]);
      await store.insertBatch('order-1', 'a', [result({ endpoint_id: ep, ts_ms: t0 + 10 * MIN, total_ms: 1 }), result({ endpoint_id: ep, ts_ms: t0 + 20 * MIN, total_ms: 2 })]);
      const [s] = await store.graphs(ep, { fromMs: t0, toMs: t0 + HOUR, functions: ['response_time'] });
      expect(s.data.map((p) => p[1])).toEqual([1, 2, 3]);
    });

    it('buckets dense raw data server-side to at most 500 points per series with averaged values', async () => {
      const ep = newEndpoint();
      const t0 = NOW_HOUR - 3 * HOUR;
      const rows: CheckResult[] = [];
      // 2 hours every 5 s = 1,440 results, far more than 500; every 15 s bucket holds 100, 200 and 300 ms.
      for (let i = 0; i < 1440; i++) rows.push(result({ endpoint_id: ep, ts_ms: t0 + i * 5000, total_ms: 100 * (1 + (i % 3)) }));
      await store.insertBatch('dense-1', 'a', rows);
      expect(planGraphQuery(t0, t0 + 2 * HOUR, Date.now())).toEqual({ source: 'raw', stepMs: 15_000 });
      const [s] = await store.graphs(ep, { fromMs: t0, toMs: t0 + 2 * HOUR - 1, functions: ['response_time'] });
      expect(s.data.length).toBe(480);
      for (const [, v] of s.data) expect(v).toBe(200);
      const times = s.data.map((p) => p[0]);
      expect([...times].sort((a, b) => a - b)).toEqual(times);
    });

    it('serves long ranges from the hour rollup with the same values raw rows give', async () => {
      const ep = newEndpoint();
      const t0 = NOW_HOUR - 20 * DAY;
      const rows: CheckResult[] = [];
      for (let i = 0; i < 20 * 24 * 6; i++) {
        const ts = t0 + i * 10 * MIN;
        rows.push(result({ endpoint_id: ep, ts_ms: ts, total_ms: 50 + (i % 7), status_code: i % 11 === 0 ? 500 : 200 }));
        rows.push(result({ endpoint_id: ep, ts_ms: ts, kind: 'CHECK_KIND_TLS', cert_days_left: 60 - ts / DAY + t0 / DAY, cert_not_after_ms: t0 + 60 * DAY }));
      }
      // one insert per 3 days: an insert may touch at most 10 daily partitions
      for (let d = 0; d < 20; d += 3) {
        await store.insertBatch(`long-1-${d}`, 'a', rows.filter((r) => r.ts_ms >= t0 + d * DAY && r.ts_ms < t0 + (d + 3) * DAY));
      }
      const q = { fromMs: t0, toMs: NOW_HOUR, functions: ['response_time', 'response_code', 'cert_expiry'] as const };
      expect(planGraphQuery(q.fromMs, q.toMs, Date.now()).source).toBe('1h');
      const fromRollup = await store.graphs(ep, { ...q, functions: [...q.functions] });
      const fromRaw = await store.graphs(ep, { ...q, functions: [...q.functions], source: 'raw' });
      expect(fromRollup.length).toBe(3);
      for (const s of fromRollup) expect(s.data.length).toBeLessThanOrEqual(500);
      expect(fromRollup).toEqual(fromRaw);
    });

    it('serves day ranges from the minute rollup with the same values raw rows give', async () => {
      const ep = newEndpoint();
      const t0 = NOW_HOUR - DAY;
      const rows: CheckResult[] = [];
      for (let i = 0; i < 24 * 60; i++) {
        rows.push(result({ endpoint_id: ep, ts_ms: t0 + i * MIN + 500, kind: 'CHECK_KIND_PING', total_ms: 10 + (i % 5) }));
      }
      await store.insertBatch('day-1', 'a', rows);
      expect(planGraphQuery(t0, NOW_HOUR, Date.now()).source).toBe('1m');
      const fromRollup = await store.graphs(ep, { fromMs: t0, toMs: NOW_HOUR, functions: ['ping'] });
      const fromRaw = await store.graphs(ep, { fromMs: t0, toMs: NOW_HOUR, functions: ['ping'], source: 'raw' });
      expect(fromRollup[0].data.length).toBeLessThanOrEqual(500);
      expect(fromRollup[0].data.length).toBeGreaterThan(400);
      expect(fromRollup).toEqual(fromRaw);
    });

    it('stores a re-sent batch once, in the raw table and in both rollups', async () => {
      const ep = newEndpoint();
      const t0 = NOW_HOUR - 4 * HOUR;
      const rows = Array.from({ length: 50 }, (_, i) => result({ endpoint_id: ep, ts_ms: t0 + i * MIN }));
      await store.insertBatch('resend-1', 'a', rows);
      await store.insertBatch('resend-1', 'a', rows);
      await store.insertBatch('resend-1', 'a', rows);
      for (const table of ['raw', '1m', '1h'] as const) {
        expect(await store.countResults({ endpointId: ep, table })).toBe(50);
      }
      // The token, not the content, decides: another batch id with the same rows is new data.
      await store.insertBatch('resend-2', 'a', rows);
      for (const table of ['raw', '1m', '1h'] as const) {
        expect(await store.countResults({ endpointId: ep, table })).toBe(100);
      }
    });

    it('scopes the deduplication by agent: another agent\'s batch with the same id is stored', async () => {
      const ep = newEndpoint();
      const t0 = NOW_HOUR - 5 * HOUR;
      const mine = Array.from({ length: 10 }, (_, i) => result({ endpoint_id: ep, ts_ms: t0 + i * MIN }));
      const theirs = Array.from({ length: 10 }, (_, i) => result({ endpoint_id: ep, ts_ms: t0 + 30 * MIN + i * MIN }));
      await store.insertBatch('shared-id', 'agent-one', mine);
      await store.insertBatch('shared-id', 'agent-two', theirs);
      await store.insertBatch('shared-id', 'agent-two', theirs); // its own re-send is still stored once
      for (const table of ['raw', '1m', '1h'] as const) {
        expect(await store.countResults({ endpointId: ep, table })).toBe(20);
      }
    });

    it('stores text fields exactly as sent: quotes, backslashes, newlines, tabs and non-ASCII', async () => {
      const ep = newEndpoint();
      const error = 'TLS said "no"\\ then\nline two\twith tab, ünïcødé ✓, </script>';
      const subject = "CN=O'Brien \"quoted\"";
      await store.insertBatch('text-1', 'agent "x"', [
        result({ endpoint_id: ep, ts_ms: NOW_HOUR - HOUR, ok: false, phase: 'tls', error, cert_subject: subject, status_code: 0 }),
      ]);
      const rows = await store.select<{ error: string; cert_subject: string; agent_id: string; phase: string }>(
        `SELECT error, cert_subject, agent_id, phase FROM ${store.database}.check_results WHERE endpoint_id = {ep:UInt64}`, { ep });
      expect(rows).toEqual([{ error, cert_subject: subject, agent_id: 'agent "x"', phase: 'tls' }]);
    });

    it('stores every column as sent, long texts whole, and makes out-of-range numbers storable', async () => {
      const ep = newEndpoint();
      const ts = NOW_HOUR - HOUR + 1234;
      const notAfter = NOW_HOUR + 80 * DAY + 567;
      const long = `${'x'.repeat(200)} ✓ ${'y'.repeat(20_000)}`; // lengths past one and two LEB128 bytes
      await store.insertBatch('columns-1', 'agent-c', [
        result({ endpoint_id: ep, ts_ms: ts, kind: 'CHECK_KIND_TLS', ok: true, phase: '', status_code: 0, dns_ms: 1.5, connect_ms: 2.25,
          tls_ms: 3.125, ttfb_ms: 0, total_ms: 7.5, cert_days_left: 80.5, cert_not_after_ms: notAfter, cert_issuer: 'R11',
          cert_subject: long, redirects: 3, retention_days: 400, result_id: 'c-1' }),
        result({ endpoint_id: ep, ts_ms: ts + 1, ok: false, phase: 'http', status_code: 70_000, total_ms: Number.NaN, dns_ms: Infinity,
          redirects: 999, retention_days: 0, ping_method: 'icmp', result_id: 'c-2' }),
      ]);
      const rows = await store.select<Record<string, unknown>>(
        `SELECT toUnixTimestamp64Milli(ts) AS ts, endpoint_id, kind, region, ok, phase, status_code, dns_ms, connect_ms, tls_ms, ttfb_ms,
           total_ms, cert_days_left, toUnixTimestamp64Milli(cert_not_after) AS cert_not_after, cert_issuer, cert_subject, ping_method, error,
           redirects, retention_days, result_id, agent_id
         FROM ${store.database}.check_results WHERE endpoint_id = {ep:UInt64} ORDER BY ts`, { ep });
      expect(rows).toEqual([
        { ts, endpoint_id: ep, kind: 'tls', region: 'EU-Germany', ok: 1, phase: '', status_code: 0, dns_ms: 1.5, connect_ms: 2.25, tls_ms: 3.125,
          ttfb_ms: 0, total_ms: 7.5, cert_days_left: 80.5, cert_not_after: notAfter, cert_issuer: 'R11', cert_subject: long, ping_method: '',
          error: '', redirects: 3, retention_days: 400, result_id: 'c-1', agent_id: 'agent-c' },
        { ts: ts + 1, endpoint_id: ep, kind: 'http', region: 'EU-Germany', ok: 0, phase: 'http', status_code: 65535, dns_ms: 0, connect_ms: 2,
          tls_ms: 3, ttfb_ms: 4, total_ms: 0, cert_days_left: 0, cert_not_after: null, cert_issuer: '', cert_subject: '', ping_method: 'icmp',
          error: '', redirects: 255, retention_days: 30, result_id: 'c-2', agent_id: 'agent-c' },
      ]);
    });

    it('sets the merge policy on the result tables, and on tables that existed before it (in place)', async () => {
      const policy = async () => {
        const rows = await store.select<{ name: string; q: string }>(
          `SELECT name, create_table_query AS q FROM system.tables WHERE database = {db:String} AND name LIKE 'check_results%' AND engine LIKE '%MergeTree' ORDER BY name`,
          { db: store.database });
        return rows.map((r) => [r.name, /merge_selector_base = 10\b/.test(r.q)]);
      };
      const tables = [['check_results', true], ['check_results_1h', true], ['check_results_1m', true]];
      expect(await policy()).toEqual(tables);
      for (const [name] of tables) await store.command(`ALTER TABLE ${store.database}.${name} RESET SETTING merge_selector_base`);
      expect((await policy()).every(([, set]) => !set)).toBe(true);
      await store.init();
      expect(await policy()).toEqual(tables);
    });

    it('a cached graph includes a result ingested after the first read, in the open bucket', async () => {
      const ep = newEndpoint();
      const now = Date.now();
      const q = { fromMs: now - HOUR, toMs: now + MIN, functions: ['response_time' as const] };
      await store.insertBatch(`cache-a-${ep}`, 'a', [result({ endpoint_id: ep, ts_ms: now - 30 * MIN, total_ms: 50 })]);
      expect((await store.graphs(ep, q))[0].data.map((p) => p[1])).toEqual([50]);
      expect((await store.graphs(ep, q))[0].data.map((p) => p[1])).toEqual([50]);
      await store.insertBatch(`cache-b-${ep}`, 'a', [result({ endpoint_id: ep, ts_ms: now, total_ms: 70 })]);
      expect((await store.graphs(ep, q))[0].data.map((p) => p[1])).toEqual([50, 70]);
    });

    it("keeps a closed range's graph across ingest in the open bucket, and never serves it for another endpoint", async () => {
      const ep = newEndpoint();
      const other = newEndpoint();
      const t0 = NOW_HOUR - 5 * HOUR;
      await store.insertBatch(`cache-c-${ep}`, 'a', [result({ endpoint_id: ep, ts_ms: t0 + MIN, total_ms: 30 })]);
      const closed = { fromMs: t0, toMs: t0 + HOUR, functions: ['response_time' as const] };
      const first = await store.graphs(ep, closed);
      expect(first[0].data.map((p) => p[1])).toEqual([30]);
      expect(await store.graphs(other, closed)).toEqual([]);
      const hits = store.graphCache!.hits;
      await store.insertBatch(`cache-d-${ep}`, 'a', [result({ endpoint_id: ep, ts_ms: Date.now(), total_ms: 90 })]);
      expect(await store.graphs(ep, closed)).toEqual(first);
      expect(store.graphCache!.hits).toBe(hits + 1);
    });

    it('upgrades rollups made with the old p95 state (quantileTDigest, total_q) in place: graphs keep their values, new results fill total_p95 once', async () => {
      const db = store.database;
      const shape = async () => store.select<{ table: string; name: string; type: string }>(
        `SELECT table, name, type FROM system.columns WHERE database = {db:String} AND table IN ('check_results_1m', 'check_results_1h')
           AND name IN ('total_q', 'total_p95') ORDER BY table, name`, { db });
      const views = async () => store.select<{ name: string; q: string }>(
        `SELECT name, as_select AS q FROM system.tables WHERE database = {db:String} AND name LIKE 'check_results_1_\\_mv' ORDER BY name`, { db });
      const upgraded = [
        { table: 'check_results_1h', name: 'total_p95', type: 'AggregateFunction(quantileTiming(0.95), Float32)' },
        { table: 'check_results_1m', name: 'total_p95', type: 'AggregateFunction(quantileTiming(0.95), Float32)' },
      ];
      expect(await shape()).toEqual(upgraded);
      // Put both rollups back as they were before schema step 2.
      for (const { name, q } of await views()) {
        const table = name.replace(/_mv$/, '');
        await store.command(`ALTER TABLE ${db}.${table} ADD COLUMN total_q AggregateFunction(quantileTDigest(0.95), Float32) AFTER total_max`);
        await store.command(`ALTER TABLE ${db}.${name} MODIFY QUERY ${q.replace('quantileTimingStateIf', 'quantileTDigestStateIf').replace('AS total_p95', 'AS total_q')}`);
        await store.command(`ALTER TABLE ${db}.${table} DROP COLUMN total_p95`);
      }
      expect((await shape()).map((c) => c.name)).toEqual(['total_q', 'total_q']);
      const before = newEndpoint();
      const t0 = NOW_HOUR - 30 * HOUR;
      await store.insertBatch('p95-old', 'a', Array.from({ length: 30 }, (_, i) => result({ endpoint_id: before, ts_ms: t0 + i * MIN, total_ms: 10 + i })));
      const range = { fromMs: t0 - HOUR, toMs: t0 + 2 * HOUR, functions: ['response_time' as const] };
      const graphBefore = await store.graphs(before, { ...range, source: '1h' });
      expect(graphBefore[0].data.length).toBeGreaterThan(0);

      await store.init();
      expect(await shape()).toEqual(upgraded);
      expect((await views()).map((v) => /quantileTimingStateIf\(0\.95\)/.test(v.q) && !v.q.includes('TDigest'))).toEqual([true, true]);
      expect(await store.graphs(before, { ...range, source: '1h' })).toEqual(graphBefore);
      for (const table of ['1m', '1h'] as const) expect(await store.countResults({ endpointId: before, table })).toBe(30);

      const after = newEndpoint();
      const rows = Array.from({ length: 100 }, (_, i) => result({ endpoint_id: after, ts_ms: t0 + i * 1000, total_ms: 1 + i }));
      await store.insertBatch('p95-new', 'a', rows);
      await store.insertBatch('p95-new', 'a', rows); // re-sent: counted once, in the p95 state too
      const [raw] = await store.select<{ p: number }>(
        `SELECT quantileTiming(0.95)(total_ms) AS p FROM ${db}.check_results WHERE endpoint_id = {ep:UInt64}`, { ep: after });
      expect(raw.p).toBeGreaterThanOrEqual(95);
      expect(raw.p).toBeLessThanOrEqual(96);
      for (const table of ['check_results_1m', 'check_results_1h']) {
        const [rollup] = await store.select<{ p: number; n: string }>(
          `SELECT quantileTimingMerge(0.95)(total_p95) AS p, sum(n) AS n FROM ${db}.${table} WHERE endpoint_id = {ep:UInt64}`, { ep: after });
        expect({ table, p: rollup.p, n: Number(rollup.n) }).toEqual({ table, p: raw.p, n: 100 });
      }
    });

    it('gives uptime as the share of 2xx among HTTP checks with two decimals, null without checks', async () => {
      const ep = newEndpoint();
      const empty = newEndpoint();
      const since = NOW_HOUR - 7 * DAY + 30 * MIN; // mid-hour: the first half hour is read from raw rows
      const rows: CheckResult[] = [];
      const codes = [200, 204, 500, 301, 200, 0, 404]; // 3 of 7 are 2xx
      codes.forEach((code, i) => rows.push(result({ endpoint_id: ep, ts_ms: since + 5 * MIN + i * HOUR, status_code: code, ok: code === 200 })));
      // Before the window, and pings, do not count.
      rows.push(result({ endpoint_id: ep, ts_ms: since - MIN, status_code: 500 }));
      rows.push(result({ endpoint_id: ep, ts_ms: since + HOUR, kind: 'CHECK_KIND_PING', status_code: 0, ok: false }));
      await store.insertBatch('uptime-1', 'a', rows);
      const up = await store.uptime([ep, empty], { sinceMs: since, untilMs: Date.now() });
      expect(up.get(ep)).toBe(42.86);
      expect(up.get(empty)).toBeNull();
    });

    it('bounds uptime on both sides: rows dated after the window end or before the endpoint was created are not counted', async () => {
      const ep = newEndpoint();
      const created = NOW_HOUR - 3 * DAY + 20 * MIN; // mid-hour: the hour rollup must not bring in older rows
      await store.insertBatch('uptime-bounds', 'a', [
        result({ endpoint_id: ep, ts_ms: created - 10 * MIN, status_code: 500 }), // a former owner's row, same hour
        result({ endpoint_id: ep, ts_ms: created - DAY, status_code: 500 }), // a former owner's row, long before
        result({ endpoint_id: ep, ts_ms: created + 10 * MIN, status_code: 200 }),
        result({ endpoint_id: ep, ts_ms: NOW_HOUR - 2 * HOUR, status_code: 200 }),
        result({ endpoint_id: ep, ts_ms: NOW_HOUR + 10 * DAY, status_code: 500 }), // dated in the future
      ]);
      const window = { sinceMs: NOW_HOUR - 7 * DAY, untilMs: NOW_HOUR };
      expect((await store.uptime([ep], { ...window, createdAtMs: new Map([[ep, created]]) })).get(ep)).toBe(100);
      // without the creation bound the old rows count, without the upper bound the future one does
      expect((await store.uptime([ep], window)).get(ep)).toBe(50);
      expect((await store.uptime([ep], { ...window, untilMs: NOW_HOUR + 11 * DAY, createdAtMs: new Map([[ep, created]]) })).get(ep)).toBe(66.67);
    });

    it('shows no graph point from before the endpoint was created, raw or rollup', async () => {
      const ep = newEndpoint();
      const created = NOW_HOUR - 20 * DAY + 30 * MIN;
      await store.insertBatch('graph-created', 'a', [
        result({ endpoint_id: ep, ts_ms: created - 5 * MIN, total_ms: 999 }),
        result({ endpoint_id: ep, ts_ms: created + 2 * HOUR, total_ms: 100 }),
      ]);
      for (const source of ['raw', '1h'] as const) {
        const q = { fromMs: created - DAY, toMs: created + DAY, functions: ['response_time' as const], source };
        const before = await store.graphs(ep, q);
        expect(before[0].data.map(([, v]) => v)).toContain(999);
        const bounded = await store.graphs(ep, { ...q, notBeforeMs: created });
        expect(bounded[0].data.map(([, v]) => v)).toEqual([100]);
      }
    });

    it("shows a new endpoint's first minutes on its 3-month and 6-month graphs before the next whole hour (partial rollup bucket)", async () => {
      const ep = newEndpoint();
      const now = Date.now();
      const created = now - MIN; // created a minute ago
      await store.insertBatch('graph-new-endpoint', 'a', [
        result({ endpoint_id: ep, ts_ms: created - 30_000, total_ms: 999 }), // before the creation: never shown
        result({ endpoint_id: ep, ts_ms: created + 10_000, total_ms: 120 }),
        result({ endpoint_id: ep, ts_ms: created + 40_000, total_ms: 120 }),
      ]);
      for (const days of [90, 180]) {
        const q = { fromMs: now - days * DAY, toMs: now, functions: ['response_time' as const, 'response_code' as const], notBeforeMs: created };
        const series = await store.graphs(ep, q);
        const rt = series.find((s) => s.function === 'response_time');
        expect(rt?.data.length, `${days}-day graph`).toBeGreaterThan(0);
        expect(rt!.data.every(([, v]) => v === 120)).toBe(true);
        expect(series.find((s) => s.function === 'response_code')!.data.map(([, v]) => v)).toContain(200);
      }
    });

    it('refuses one insert that would touch more daily partitions than the bound (max_partitions_per_insert_block is not 0)', async () => {
      const ep = newEndpoint();
      const rows = Array.from({ length: 12 }, (_, i) => result({ endpoint_id: ep, ts_ms: NOW_HOUR - (i + 1) * DAY }));
      await expect(store.insertBatch('too-many-partitions', 'a', rows)).rejects.toThrow(/partitions/i);
      expect(await store.countResults({ endpointId: ep })).toBe(0);
      await store.insertBatch('few-partitions', 'a', rows.slice(0, 3));
      expect(await store.countResults({ endpointId: ep })).toBe(3);
    });

    it('answers uptime for 1,000 endpoints in one call', async () => {
      const ids = Array.from({ length: 1000 }, () => newEndpoint());
      const t0 = NOW_HOUR - 2 * DAY;
      const rows = ids.flatMap((id, k) => [
        result({ endpoint_id: id, ts_ms: t0 + k }),
        result({ endpoint_id: id, ts_ms: t0 + HOUR + k, status_code: k % 2 === 0 ? 200 : 500 }),
      ]);
      await store.insertBatch('uptime-many', 'a', rows);
      const started = performance.now();
      const up = await store.uptime(ids, { sinceMs: NOW_HOUR - 7 * DAY, untilMs: Date.now() });
      const ms = performance.now() - started;
      expect(up.size).toBe(1000);
      expect(up.get(ids[0])).toBe(100);
      expect(up.get(ids[1])).toBe(50);
      expect(ms).toBeLessThan(2000);
    });

    it('keeps each result for its plan retention (TTL from retention_days)', async () => {
      const ep = newEndpoint();
      const old = NOW_HOUR - 40 * DAY;
      await store.insertBatch('ttl-1', 'a', [
        result({ endpoint_id: ep, ts_ms: old, retention_days: 30 }), // already past its TTL
        result({ endpoint_id: ep, ts_ms: old + MIN, retention_days: 0 }), // unset: the Free plan's 30 days
        result({ endpoint_id: ep, ts_ms: old + 2 * MIN, retention_days: 90 }),
      ]);
      // Expired rows are dropped on insert or by the next TTL merge, whichever runs first: force the merge.
      for (const table of ['check_results', 'check_results_1m', 'check_results_1h']) {
        await store.command(`OPTIMIZE TABLE ${store.database}.${table} FINAL`);
      }
      expect(await store.countResults({ endpointId: ep })).toBe(1);
      expect(await store.countResults({ endpointId: ep, table: '1h' })).toBe(1);
    });

    it('returns no series for an endpoint without results', async () => {
      expect(await store.graphs(newEndpoint(), { fromMs: NOW_HOUR - HOUR, toMs: NOW_HOUR, functions: ['response_time', 'ping'] })).toEqual([]);
    });
  });
}

describe('planGraphQuery', () => {
  const now = Date.UTC(2026, 0, 1);
  it.each([
    [HOUR, 'raw', 10_000],
    [DAY, '1m', 180_000],
    [7 * DAY, '1m', 1_800_000],
    [180 * DAY, '1h', 43_200_000],
  ])('picks the source and a nice bucket for a %i ms range', (range, source, step) => {
    const p = planGraphQuery(now - range, now, now);
    expect(p).toEqual({ source, stepMs: step });
    expect(range / p.stepMs).toBeLessThanOrEqual(500);
  });
  it('reads the hour rollup for an old day, past the minute rollup keep time', () => {
    expect(planGraphQuery(now - 60 * DAY, now - 59 * DAY, now).source).toBe('1h');
  });
});

// (a) Embedded chDB in a temp dir: always.
describeResultStore('ClickHouseResultStore on chDB (embedded)', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'upfleet-results-'));
  const store = createResultStore({ clickhouseUrl: null, dataDir: dir, logger });
  return {
    store,
    cleanup: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

// (b) A real ClickHouse server on this machine: chDB's engine library serving HTTP (no Docker).
const noLocalServer = clickhouseServerUnavailable();
describeResultStore(
  'ClickHouseResultStore on a local ClickHouse server (clickhouse-local from libchdb)',
  noLocalServer
    ? null
    : async () => {
        const server = await startClickHouseServer();
        const store = createResultStore({ clickhouseUrl: server.url, dataDir: '/nonexistent', logger, database: 'upfleet_test' });
        return { store, cleanup: async () => { await store.close(); await server.stop(); } };
      },
  noLocalServer ?? undefined,
);

// (c) A ClickHouse server in a container, where a Docker engine is reachable.
async function dockerReason(): Promise<string | null> {
  try {
    const { getContainerRuntimeClient } = await import('testcontainers');
    await Promise.race([
      getContainerRuntimeClient(),
      new Promise((_, reject) => setTimeout(() => reject(new Error('timeout')), 5000)),
    ]);
    return null;
  } catch {
    return 'no Docker engine';
  }
}
const noDocker = await dockerReason();
describeResultStore(
  'ClickHouseResultStore on a ClickHouse server via testcontainers',
  noDocker
    ? null
    : async () => {
        const { GenericContainer, Wait } = await import('testcontainers');
        const container = await new GenericContainer('clickhouse/clickhouse-server:25.8')
          .withEnvironment({ CLICKHOUSE_USER: 'upfleet', CLICKHOUSE_PASSWORD: 'upfleet', CLICKHOUSE_DEFAULT_ACCESS_MANAGEMENT: '1' })
          .withExposedPorts(8123)
          .withWaitStrategy(Wait.forHttp('/ping', 8123))
          .start();
        const url = `http://upfleet:upfleet@${container.getHost()}:${container.getMappedPort(8123)}`;
        const store = createResultStore({ clickhouseUrl: url, dataDir: '/nonexistent', logger });
        return { store, cleanup: async () => { await store.close(); await container.stop(); } };
      },
  noDocker ?? undefined,
);

// (d) The server at CLICKHOUSE_URL, in a database of its own that is dropped afterwards.
const url = process.env.CLICKHOUSE_URL;
describeResultStore(
  'ClickHouseResultStore at CLICKHOUSE_URL',
  url
    ? async () => {
        const database = `upfleet_test_${process.pid}_${Date.now() % 100000}`;
        const store = createResultStore({ clickhouseUrl: url, dataDir: '/nonexistent', logger, database });
        return {
          store,
          cleanup: async () => {
            await store.command(`DROP DATABASE IF EXISTS ${database}`);
            await store.close();
          },
        };
      }
    : null,
  'CLICKHOUSE_URL is not set',
);
