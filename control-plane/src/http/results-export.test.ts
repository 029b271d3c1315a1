// Results export over real chDB and a real server: the file's content and headers, workspace
// scoping, the plan's retention bound, the incidents list as CSV, and a 200,000-row export that
// leaves the server while it is still being read (the answer is chunked and the store is paged as
// the client reads, never gathered whole first).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../logger';
import { startHarness, type Harness } from '../testing/harness';
import { httpResult } from '../testing/alerting';
import type { ExportFormat } from '@upfleet/proto/schemas';
import { createResultStore, type ClickHouseResultStore, type ExportRange } from '../results/clickhouse-store';
import { pagedExport } from '../results/export-queries';

let h: Harness;
let store: ClickHouseResultStore;
let storeDir: string;
/** Blocks the store has handed to the export so far (pages of PAGE rows). */
let blocksRead = 0;
const PAGE = 2_000;

beforeAll(async () => {
  storeDir = fs.mkdtempSync(path.join(os.tmpdir(), 'upfleet-export-'));
  store = createResultStore({ clickhouseUrl: null, dataDir: storeDir, logger: createLogger('silent') });
  await store.init();
  // The control plane reads through this store: the same chDB pages, smaller, and counted.
  store.exportResults = async function* (id: number, range: ExportRange, format: ExportFormat): AsyncGenerator<Uint8Array> {
    const client = (store as unknown as { client: Parameters<typeof pagedExport>[0] }).client;
    for await (const block of pagedExport(client, store.database, id, range, format, PAGE)) {
      blocksRead++;
      yield block;
    }
  };
  h = await startHarness({}, { results: store });
});
afterAll(async () => {
  await h.close();
  await store.close();
  fs.rmSync(storeDir, { recursive: true, force: true });
});

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

async function endpoint(token: string, createdAt: number): Promise<number> {
  const ep = await h.call('POST', '/api/users/endpoints', { name: 'Shop', url: `https://example.com/${Math.random()}`, regions: ['EU-Germany'], response_code: true }, token);
  expect(ep.status).toBe(201);
  const id = ep.body.data.url_id as number;
  h.cp.db.prepare('UPDATE endpoints SET created_at = ? WHERE url_id = ?').run(new Date(createdAt).toISOString(), id);
  return id;
}

async function download(p: string, token: string) {
  const res = await fetch(`${h.cp.url}${p}`, { headers: { authorization: `Bearer ${token}` } });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

describe('GET /api/users/endpoints/:id/results', () => {
  it('answers a CSV file with a header, one line per result per check and region in time order, quoted per RFC 4180 and safe in a spreadsheet', async () => {
    const { token } = await h.signup();
    const t0 = Date.now() - 2 * HOUR;
    const id = await endpoint(token, t0 - HOUR);
    await store.insertBatch('b1', 'agent-1', [
      httpResult(id, t0 + 2000, { status_code: 200, total_ms: 42.5, ttfb_ms: 30, dns_ms: 2, connect_ms: 3, tls_ms: 4 }),
      httpResult(id, t0 + 1000, { status_code: 503, ok: false, phase: 'http', error: '=HYPERLINK("http://evil","click"), then', total_ms: 80 }),
      httpResult(id, t0 + 1500, { region: 'US-Virginia', check_id: `${id}:http:US-Virginia`, status_code: 0, ok: false, phase: 'connect', error: 'connect ECONNREFUSED', total_ms: 0 }),
    ]);
    const r = await download(`/api/users/endpoints/${id}/results?from=${t0}&to=${t0 + HOUR}&format=csv`, token);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(r.headers.get('content-disposition')).toMatch(new RegExp(`^attachment; filename="upfleet-results-${id}-\\d{8}T\\d{6}Z-\\d{8}T\\d{6}Z\\.csv"$`));
    expect(r.text.split('\r\n')).toEqual([
      'time,region,check,ok,phase,status_code,dns_ms,connect_ms,tls_ms,ttfb_ms,total_ms,error',
      // ClickHouse writes the file: every text cell quoted, quotes doubled (RFC 4180 allows quoting any field).
      `"${new Date(t0 + 1000).toISOString()}","EU-Germany","http",false,"http",503,1,1,0,5,80,"'=HYPERLINK(""http://evil"",""click""), then"`,
      `"${new Date(t0 + 2000).toISOString()}","EU-Germany","http",true,"",200,2,3,4,30,42.5,""`,
      `"${new Date(t0 + 1500).toISOString()}","US-Virginia","http",false,"connect",0,1,1,0,5,0,"connect ECONNREFUSED"`,
      '',
    ]);
    // NDJSON: the same rows, one JSON object a line; ISO dates work as from/to.
    const nd = await download(`/api/users/endpoints/${id}/results?from=${new Date(t0).toISOString()}&to=${new Date(t0 + 1800).toISOString()}&format=ndjson`, token);
    expect(nd.status).toBe(200);
    expect(nd.headers.get('content-type')).toBe('application/x-ndjson; charset=utf-8');
    expect(nd.headers.get('content-disposition')).toMatch(/\.ndjson"$/);
    expect(nd.text.trimEnd().split('\n').map((l) => JSON.parse(l))).toEqual([
      { time: new Date(t0 + 1000).toISOString(), region: 'EU-Germany', check: 'http', ok: false, phase: 'http', status_code: 503, dns_ms: 1, connect_ms: 1, tls_ms: 0, ttfb_ms: 5, total_ms: 80, error: '=HYPERLINK("http://evil","click"), then' },
      { time: new Date(t0 + 1500).toISOString(), region: 'US-Virginia', check: 'http', ok: false, phase: 'connect', status_code: 0, dns_ms: 1, connect_ms: 1, tls_ms: 0, ttfb_ms: 5, total_ms: 0, error: 'connect ECONNREFUSED' },
    ]);
  });

  it("refuses another workspace's endpoint (404), bad ranges and formats (400), and answers no rows of another endpoint", async () => {
    const a = await h.signup();
    const b = await h.signup();
    const t0 = Date.now() - HOUR;
    const mine = await endpoint(a.token, t0 - HOUR);
    const theirs = await endpoint(b.token, t0 - HOUR);
    await store.insertBatch('scope', 'agent-1', [httpResult(mine, t0), httpResult(theirs, t0 + 1), httpResult(theirs, t0 + 2)]);
    const other = await h.call('GET', `/api/users/endpoints/${theirs}/results`, undefined, a.token);
    expect(other.status).toBe(404);
    expect(other.body).toEqual({ success: false, error: 'Endpoint not found' });
    for (const q of ['format=xlsx', 'from=yesterday', `from=${t0}&to=${t0 - 1}`]) {
      const bad = await h.call('GET', `/api/users/endpoints/${mine}/results?${q}`, undefined, a.token);
      expect(bad.status, q).toBe(400);
      expect(bad.body.success).toBe(false);
    }
    const own = await download(`/api/users/endpoints/${mine}/results`, a.token);
    expect(own.text.trimEnd().split('\r\n')).toHaveLength(2); // the header and its one row
    expect((await h.call('GET', `/api/users/endpoints/${mine}/results`)).status).toBe(401);
  });

  it("clamps a from older than the plan's retention (Free: 30 days) and never answers older rows", async () => {
    const { token } = await h.signup();
    const now = Date.now();
    const id = await endpoint(token, now - 60 * DAY);
    // Kept by ClickHouse (a long TTL on the row), but past the plan's 30 days.
    await store.insertBatch('old', 'agent-1', [httpResult(id, now - 40 * DAY, { retention_days: 3650 })]);
    await store.insertBatch('new', 'agent-1', [httpResult(id, now - 29 * DAY, { retention_days: 3650 })]);
    const r = await download(`/api/users/endpoints/${id}/results?from=${now - 50 * DAY}&format=ndjson`, token);
    expect(r.status).toBe(200);
    const from = Date.parse(r.headers.get('x-export-from')!);
    expect(from).toBeGreaterThanOrEqual(now - 30 * DAY);
    expect(from).toBeLessThan(now - 30 * DAY + 10 * 60_000);
    expect(r.text.trimEnd().split('\n').map((l) => JSON.parse(l).time)).toEqual([new Date(now - 29 * DAY).toISOString()]);
  });

  it('streams 200,000 rows: chunked, the first bytes arrive while most of the rows are still unread, and every row arrives once', async () => {
    const { token } = await h.signup();
    const start = Date.now() - 6 * HOUR;
    const id = await endpoint(token, start - HOUR);
    const N = 200_000;
    await store.command(
      `INSERT INTO ${store.database}.check_results (ts, endpoint_id, kind, region, ok, phase, status_code, total_ms, error, retention_days, result_id, agent_id)
       SELECT fromUnixTimestamp64Milli(toInt64({start:Int64} + number * 100)), {id:UInt64}, 'http', 'EU-Germany', 1, '', 200, 12.5, '', 365, toString(number), 'bulk'
       FROM numbers({n:UInt64})`,
      { start, id, n: N },
    );
    blocksRead = 0;
    const res = await fetch(`${h.cp.url}/api/users/endpoints/${id}/results?format=csv`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-length')).toBeNull();
    expect(res.headers.get('transfer-encoding')).toBe('chunked');
    const reader = res.body!.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value).startsWith('time,region,check,ok,')).toBe(true);
    // The client holds back: the server reads no further than what the socket takes.
    await new Promise((r) => setTimeout(r, 500));
    const atPause = blocksRead;
    expect(atPause).toBeGreaterThan(0);
    let bytes = first.value!.length;
    let lines = new TextDecoder().decode(first.value).split('\r\n').length - 1;
    let tail = '';
    const dec = new TextDecoder();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      bytes += value.length;
      const text = tail + dec.decode(value, { stream: true });
      const parts = text.split('\r\n');
      tail = parts.pop()!;
      lines += parts.length;
    }
    expect(tail).toBe('');
    expect(lines).toBe(N + 1);
    // About N / PAGE pages in all, of which the server had read less than 60 % while the client held back.
    expect(blocksRead).toBeGreaterThan((N / PAGE) * 0.8);
    expect(atPause).toBeLessThan(blocksRead * 0.6);
    expect(bytes).toBeGreaterThan(N * 40);
  });
});

describe('GET /api/users/incidents?format=csv', () => {
  it('answers the list as a CSV download; the JSON list is unchanged', async () => {
    const { token } = await h.signup();
    const r = await download('/api/users/incidents?format=csv', token);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(r.headers.get('content-disposition')).toMatch(/^attachment; filename="upfleet-incidents-\d{8}\.csv"$/);
    expect(r.text).toBe('incident_id,url_id,condition,regions,cause,flapping,opened_at,resolved_at\r\n');
    const json = await h.call('GET', '/api/users/incidents', undefined, token);
    expect(json.body).toEqual({ success: true, data: [] });
  });

  it('writes one line per incident of the workspace, newest first, list fields joined and formula-like text defused', async () => {
    const { token } = await h.signup();
    const id = await endpoint(token, Date.now() - DAY);
    const other = await h.signup();
    const theirs = await endpoint(other.token, Date.now() - DAY);
    const insert = h.cp.db.prepare('INSERT INTO incidents (user_id, url_id, condition, regions, cause, flapping, opened_at, resolved_at) SELECT user_id, url_id, ?, ?, ?, ?, ?, ? FROM endpoints WHERE url_id = ?');
    const t = Date.UTC(2026, 10, 20, 8, 0, 0);
    insert.run('down', JSON.stringify(['EU - Germany', 'US - Virginia']), 'HTTP 503 from EU - Germany, "maintenance"', 0, t, t + 600_000, id);
    insert.run('threshold:response_time:any', '[]', '=cmd|calc', 1, t + 3_600_000, null, id);
    insert.run('down', '[]', 'not yours', 0, t, null, theirs);
    const r = await download('/api/users/incidents?format=csv', token);
    const lines = r.text.split('\r\n');
    // The list's own fields, in its order (fields the list gains later come along).
    const json = await h.call('GET', '/api/users/incidents', undefined, token);
    expect(lines[0]).toBe(Object.keys(json.body.data[0]).join(','));
    expect(lines[0].startsWith('incident_id,url_id,condition,regions,cause,flapping,opened_at,resolved_at')).toBe(true);
    expect(lines.slice(1, -1).map((l) => l.replace(/^\d+,/, 'N,'))).toEqual([
      expect.stringMatching(new RegExp(`^N,${id},threshold:response_time:any,,'=cmd\\|calc,true,${new Date(t + 3_600_000).toISOString()},(,|$)`)),
      expect.stringContaining(`N,${id},down,EU - Germany; US - Virginia,"HTTP 503 from EU - Germany, ""maintenance""",false,${new Date(t).toISOString()},${new Date(t + 600_000).toISOString()}`),
    ]);
    expect(r.text).not.toContain('not yours');
    // The same rows as the JSON list.
    expect(json.body.data.map((i: { incident_id: number }) => i.incident_id)).toEqual(lines.slice(1, -1).map((l) => Number(l.split(',')[0])));
  });
});
