// A browser result's details end to end in one control plane: an agent's batch with screenshots is
// admitted (each screenshot stored once across a re-send, only real PNG/WebP bytes), its details
// land in ClickHouse (real chDB), the graphs answer carries the timings and the last failure, the
// screenshot routes list and serve them to the workspace only, and they go with their endpoint.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grpc, loadAgentService, type AgentServiceClient, type AssignmentUpdate, type BatchAck, type CheckResult, type RegisterResponse } from '@upfleet/proto';
import type { ClickHouseResultStore } from '../results/clickhouse-store';
import { screenshotId } from '../screenshots/screenshot-id';
import { startHarnessWithResults, type Harness } from '../testing/harness';

// A 1x1 PNG (what Chromium writes starts the same way).
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==', 'base64');

let h: Harness & { store: ClickHouseResultStore };
let owner: { token: string; user: { email: string } };
let ws: number;
let viewer: { token: string; user: { email: string } };
let stranger: { token: string };

beforeAll(async () => {
  h = await startHarnessWithResults({ AGENT_LEASE_SECONDS: '5' });
  owner = await h.signup('shots_owner');
  viewer = await h.signup('shots_viewer');
  stranger = await h.signup('shots_stranger');
  ws = (await h.call('POST', '/api/workspaces', { name: 'Shots' }, owner.token)).body.data.id as number;
  const list = (await h.call('GET', '/api/admin/workspaces', undefined, h.cp.adminToken)).body.data as Array<{ id: number; account_email: string }>;
  await h.setPackage(list.find((w) => w.id === ws)!.account_email, 'Pro');
  const inv = await h.call('POST', `/api/workspaces/${ws}/invitations`, { email: viewer.user.email, role: 'viewer' }, owner.token, { 'x-workspace-id': String(ws) });
  const token = /\/invitations\/([A-Za-z0-9_-]+)$/.exec(inv.body.data.link)![1];
  expect((await h.call('POST', `/api/invitations/${token}/accept`, undefined, viewer.token)).status).toBe(200);
}, 120_000);
afterAll(() => h?.close());

const as = (token: string) => ({ token, headers: { 'x-workspace-id': String(ws) } });
const get = (p: string, who: { token: string; headers?: Record<string, string> }) => h.call('GET', p, undefined, who.token, who.headers);
const raw = (p: string, who: { token: string; headers?: Record<string, string> }) =>
  fetch(`${h.cp.url}${p}`, { headers: { authorization: `Bearer ${who.token}`, ...(who.headers ?? {}) } });

async function browserAgent() {
  const t = (await h.call('POST', '/api/admin/agent-tokens', { region: 'EU-Germany' }, h.cp.adminToken)).body.data.token as string;
  const Ctor = loadAgentService();
  const c = new Ctor(`localhost:${h.cp.grpcPort}`, grpc.credentials.createSsl(readFileSync(path.join(h.dataDir, 'grpc-tls', 'ca.pem')))) as unknown as AgentServiceClient;
  const reg = await new Promise<RegisterResponse>((resolve, reject) =>
    c.Register({ bootstrap_token: t, region: 'EU-Germany', hostname: 'shots', version: 't' }, (err, r) => (err ? reject(err) : resolve(r!))));
  const md = new grpc.Metadata();
  md.set('authorization', `Bearer ${reg.agent_id}.${reg.agent_secret}`);
  await new Promise<void>((resolve, reject) => c.Heartbeat({
    checks_owned: 0, checks_per_minute: 0, outbox_depth: 0, scheduling_lag_ms_p99: 0, outbox_dropped: 0, browser_checks: true,
  }, md, {}, (e) => (e ? reject(e) : resolve())));
  const updates: AssignmentUpdate[] = [];
  const watch = c.WatchAssignments({ known_version: 0, browser_checks: true }, md);
  watch.on('data', (u: AssignmentUpdate) => updates.push(u));
  watch.on('error', () => undefined);
  const holds = (checkId: string) => updates.some((u) => (u.snapshot?.assignments ?? u.delta?.upserts ?? []).some((a) => a.check_id === checkId));
  const acks: BatchAck[] = [];
  let stream: ReturnType<AgentServiceClient['ReportResults']> | null = null;
  return {
    holds,
    async send(batchId: string, results: CheckResult[]): Promise<BatchAck> {
      if (!stream) {
        stream = c.ReportResults(md);
        stream.on('data', (a: BatchAck) => acks.push(a));
        stream.on('error', () => undefined);
      }
      const n = acks.length;
      stream.write({ batch_id: batchId, results });
      await until(() => acks.length > n, 'an ack');
      return acks[n];
    },
    close() {
      watch.cancel();
      stream?.end();
      c.close();
    },
  };
}

const until = async (pred: () => boolean | Promise<boolean>, what: string, ms = 20_000) => {
  const start = Date.now();
  while (!(await pred())) {
    if (Date.now() - start > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
};

function failing(endpointId: number, resultId: string, tsMs: number): CheckResult {
  return {
    check_id: `${endpointId}:browser:EU-Germany`, endpoint_id: endpointId, kind: 'CHECK_KIND_BROWSER', region: 'EU-Germany', ts_ms: tsMs, ok: false,
    phase: 'step', error: 'step 2 (click #buy): element not found', status_code: 200, dns_ms: 0, connect_ms: 0, tls_ms: 0, ttfb_ms: 42.5, total_ms: 1800,
    cert_days_left: 0, cert_not_after_ms: 0, cert_issuer: '', cert_subject: '', ping_method: '', redirects: 0, retention_days: 30, result_id: resultId,
    failed_step: 2, failed_action: 'click', dom_content_loaded_ms: 120.5, load_ms: 300.25, lcp_ms: 410, step_ms: [12.5, 1500],
    console_errors: ['TypeError: cart is undefined'], failed_requests: ['GET http://127.0.0.1/app.js 404'],
    screenshots: [
      { name: 'failure', mime: 'image/png', data: PNG, step: 2 },
      { name: 'disguised', mime: 'image/png', data: Buffer.from('<html><script>alert(1)</script></html>'), step: 1 },
    ],
  };
}

describe('browser results with screenshots', () => {
  it('stores a failing run once with its details and its real screenshot, serves them to the workspace only, and deletes them with the endpoint', async () => {
    const agent = await browserAgent();
    const created = await h.call('POST', '/api/users/endpoints', { name: 'Shop', kind: 'browser', url: 'https://shop.example.com/', regions: ['EU-Germany'], steps: [{ action: 'click', selector: '#cart' }, { action: 'click', selector: '#buy' }] }, owner.token, as(owner.token).headers);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.data.url_id as number;
    try {
      await until(() => agent.holds(`${id}:browser:EU-Germany`), 'the browser check assigned');
      const t = Date.now(); // after the endpoint was created: graphs show nothing older
      // sent twice (the agent missed the first ack): stored once
      expect(await agent.send('b1', [failing(id, 'run-1', t)])).toMatchObject({ ok: true });
      expect(await agent.send('b1', [failing(id, 'run-1', t)])).toMatchObject({ ok: true });
      const shotId = screenshotId('run-1', 'failure');

      const rows = await h.store.select<Record<string, unknown>>(
        `SELECT failed_step, failed_action, dom_content_loaded_ms, load_ms, lcp_ms, step_ms, console_errors, failed_requests, screenshot_ids
         FROM ${h.store.database}.check_results WHERE endpoint_id = {id:UInt64}`, { id });
      expect(rows).toEqual([{
        failed_step: 2, failed_action: 'click', dom_content_loaded_ms: 120.5, load_ms: 300.25, lcp_ms: 410, step_ms: [12.5, 1500],
        console_errors: ['TypeError: cart is undefined'], failed_requests: ['GET http://127.0.0.1/app.js 404'], screenshot_ids: [shotId],
      }]);

      const list = await get(`/api/users/endpoints/${id}/screenshots`, as(viewer.token));
      expect(list.status, JSON.stringify(list.body)).toBe(200);
      expect(list.body.data).toEqual([{ id: shotId, result_id: 'run-1', name: 'failure', step: 2, mime: 'image/png', bytes: PNG.length, taken_at: new Date(t).toISOString() }]);
      const img = await raw(`/api/users/endpoints/${id}/screenshots/${shotId}`, as(viewer.token));
      expect(img.status).toBe(200);
      expect(img.headers.get('content-type')).toBe('image/png');
      expect(img.headers.get('cache-control')).toMatch(/^private/);
      expect(img.headers.get('x-content-type-options')).toBe('nosniff');
      expect(Buffer.from(await img.arrayBuffer()).equals(PNG)).toBe(true);

      const graphs = await get(`/api/graphs/endpoint/${id}?hours=1`, as(viewer.token));
      expect(graphs.status, JSON.stringify(graphs.body)).toBe(200);
      expect(graphs.body.data.browser.lastFailure).toEqual({
        t, location: 'EU-Germany', step: 2, action: 'click', reason: 'step 2 (click #buy): element not found',
        console_errors: ['TypeError: cart is undefined'], failed_requests: ['GET http://127.0.0.1/app.js 404'], screenshot_ids: [shotId],
      });
      const timings = graphs.body.data.browser.timings as Array<{ timing: string; data: Array<[number, number]> }>;
      expect(Object.fromEntries(timings.map((s) => [s.timing, s.data[0][1]]))).toEqual({ ttfb: 42.5, dom_content_loaded: 120.5, load: 300.25, lcp: 410, total: 1800 });

      // another workspace (the owner's personal one, a stranger): as if it did not exist
      for (const who of [{ token: owner.token }, { token: stranger.token }]) {
        expect((await get(`/api/users/endpoints/${id}/screenshots`, who)).status).toBe(404);
        const other = await raw(`/api/users/endpoints/${id}/screenshots/${shotId}`, who);
        expect(other.status).toBe(404);
        expect(other.headers.get('content-type')).toMatch(/application\/json/);
      }
      expect((await fetch(`${h.cp.url}/api/users/endpoints/${id}/screenshots/${shotId}`)).status).toBe(401);
      expect((await get(`/api/users/endpoints/${id}/screenshots/not-an-id`, as(viewer.token))).status).toBe(404);

      const dir = path.join(h.dataDir, 'screenshots', String(ws), String(id));
      expect(readdirSync(dir)).toEqual([`${shotId}.png`]);
      expect((await h.call('DELETE', `/api/users/endpoints/${id}`, undefined, owner.token, as(owner.token).headers)).status).toBe(200);
      await until(() => !existsSync(path.join(dir, `${shotId}.png`)), 'the screenshot deleted with its endpoint');
      const left = h.cp.db.prepare('SELECT COUNT(*) FROM screenshots WHERE endpoint_id = ?').pluck().get(id);
      expect(left).toBe(0);
    } finally {
      agent.close();
    }
  });
});
