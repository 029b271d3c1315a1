// Trust in agents, end to end: the real control plane (REST + gRPC over TLS) with a chDB store,
// agents played by real gRPC clients on loopback.
import { spawn } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grpc, loadAgentService, type AgentServiceClient, type AssignmentUpdate, type BatchAck, type CheckResult, type RegisterResponse } from '@upfleet/proto';
import type { ClickHouseResultStore } from '../results/clickhouse-store';
import { startHarnessWithResults, type Harness } from '../testing/harness';

const MIN = 60_000;
const DAY = 86_400_000;

let store: ClickHouseResultStore;
let h: Harness;
let user: string;

beforeAll(async () => {
  const started = await startHarnessWithResults({ AGENT_LEASE_SECONDS: '5' });
  h = started;
  store = started.store;
  user = (await h.signup()).token;
}, 120_000);
afterAll(() => h?.close());

const admin = (method: string, p: string, body?: unknown) =>
  fetch(`${h.cp.url}${p}`, {
    method,
    headers: { authorization: `Bearer ${h.cp.adminToken}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));

function client(): AgentServiceClient {
  const Ctor = loadAgentService();
  const ca = readFileSync(path.join(h.dataDir, 'grpc-tls', 'ca.pem'));
  const c = new Ctor(`localhost:${h.cp.grpcPort}`, grpc.credentials.createSsl(ca)) as unknown as AgentServiceClient;
  return c;
}

async function token(region: string, extra: Record<string, unknown> = {}) {
  const r = await admin('POST', '/api/admin/agent-tokens', { region, ...extra });
  expect(r.status).toBe(201);
  return r.body.data as { token_id: string; token: string; expires_at: string | null; max_uses: number | null };
}

function register(c: AgentServiceClient, bootstrap: string, region: string): Promise<RegisterResponse> {
  return new Promise((resolve, reject) =>
    c.Register({ bootstrap_token: bootstrap, region, hostname: 'test', version: 't' }, (err, r) => (err ? reject(err) : resolve(r!))));
}

interface TestAgent {
  id: string;
  region: string;
  md: grpc.Metadata;
  c: AgentServiceClient;
}

async function newAgent(region: string): Promise<TestAgent & { tokenId: string }> {
  const t = await token(region);
  const c = client();
  const r = await register(c, t.token, region);
  const md = new grpc.Metadata();
  md.set('authorization', `Bearer ${r.agent_id}.${r.agent_secret}`);
  // a live lease makes it an owner
  await new Promise<void>((resolve, reject) => c.Heartbeat({ checks_owned: 0, checks_per_minute: 0, outbox_depth: 0, scheduling_lag_ms_p99: 0, outbox_dropped: 0 }, md, {}, (e) => (e ? reject(e) : resolve())));
  return { id: r.agent_id, region, md, c, tokenId: t.token_id };
}

function watch(a: TestAgent) {
  const updates: AssignmentUpdate[] = [];
  const stream = a.c.WatchAssignments({ known_version: 0 }, a.md);
  stream.on('data', (u: AssignmentUpdate) => updates.push(u));
  const status = new Promise<{ code: number }>((resolve) => {
    stream.on('error', (e: grpc.ServiceError) => resolve({ code: e.code }));
    stream.on('status', (s) => resolve({ code: s.code }));
  });
  return { updates, stream, status, checks: () => assignedChecks(updates) };
}

function assignedChecks(updates: AssignmentUpdate[]): Set<string> {
  const set = new Set<string>();
  for (const u of updates) {
    if (u.snapshot) {
      set.clear();
      u.snapshot.assignments.forEach((a) => set.add(a.check_id));
    }
    if (u.delta) {
      u.delta.upserts.forEach((a) => set.add(a.check_id));
      u.delta.removed_check_ids.forEach((id) => set.delete(id));
    }
  }
  return set;
}

function report(a: TestAgent) {
  const stream = a.c.ReportResults(a.md);
  const acks: BatchAck[] = [];
  stream.on('data', (ack: BatchAck) => acks.push(ack));
  const status = new Promise<{ code: number; details: string }>((resolve) => {
    stream.on('error', (e: grpc.ServiceError) => resolve({ code: e.code, details: e.details }));
    stream.on('status', (s) => resolve({ code: s.code, details: s.details }));
  });
  return { stream, acks, status };
}

const until = async (pred: () => boolean, what: string, ms = 15_000) => {
  const start = Date.now();
  while (!pred()) {
    if (Date.now() - start > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
};

function row(checkId: string, endpointId: number, over: Partial<CheckResult> = {}): CheckResult {
  return {
    check_id: checkId, endpoint_id: endpointId, kind: 'CHECK_KIND_HTTP', region: 'EU-Germany', ts_ms: Date.now() - MIN, ok: true,
    phase: '', error: '', status_code: 200, dns_ms: 1, connect_ms: 1, tls_ms: 1, ttfb_ms: 1, total_ms: 10, cert_days_left: 0,
    cert_not_after_ms: 0, cert_issuer: '', cert_subject: '', ping_method: '', redirects: 0, retention_days: 30,
    result_id: `r-${Math.random()}`, ...over,
  };
}

async function metric(line: string): Promise<number> {
  const text = await (await fetch(`${h.cp.url}/metrics`, { headers: { authorization: `Bearer ${h.cp.adminToken}` } })).text();
  return Number(text.split('\n').find((l) => l.startsWith(`${line} `))?.split(' ')[1] ?? 0);
}

async function rowsOf(endpointId: number): Promise<Array<{ region: string; retention_days: number; agent_id: string }>> {
  const rs = await store['client'].query({
    query: `SELECT region, retention_days, agent_id FROM ${store.database}.check_results WHERE endpoint_id = {id:UInt64} ORDER BY ts`,
    query_params: { id: endpointId },
    format: 'JSONEachRow',
  });
  return rs.json<{ region: string; retention_days: number; agent_id: string }>();
}

async function createEndpoint(url: string, over: Record<string, unknown> = {}) {
  const r = await h.call('POST', '/api/users/endpoints', { name: 'E', url, regions: ['EU-Germany'], response_code: true, ...over }, user);
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.data.url_id as number;
}

describe('results only from the agent that owns the check', () => {
  it('stores an owner\'s results with its region and the plan\'s retention, refuses other agents\' and badly dated rows, counts and acks them', async () => {
    const owner = await newAgent('EU-Germany');
    const stranger = await newAgent('US-Virginia');
    const w = watch(owner);
    const ws = watch(stranger);
    const ep = await createEndpoint('https://example.com/owned');
    const checkId = `${ep}:http:EU-Germany`;
    await until(() => w.checks().has(checkId), 'the owner to be assigned the check');

    const before = {
      notAssigned: await metric('upfleet_ingest_results_rejected_total{reason="not_assigned"}'),
      inFuture: await metric('upfleet_ingest_results_rejected_total{reason="in_future"}'),
      tooOld: await metric('upfleet_ingest_results_rejected_total{reason="too_old"}'),
    };
    const s = report(stranger);
    s.stream.write({ batch_id: 'stranger-1', results: [row(checkId, ep), row(checkId, ep, { region: 'US-Virginia' })] });
    await until(() => s.acks.length === 1, 'the stranger\'s ack');
    expect(s.acks[0]).toMatchObject({ batch_id: 'stranger-1', ok: true, error: expect.stringMatching(/2 results were refused.*2 not assigned/) });

    const o = report(owner);
    o.stream.write({
      batch_id: 'owner-1',
      results: [
        row(checkId, ep, { region: 'US-Virginia', retention_days: 3650 }), // region and retention are the server's
        row(checkId, ep, { ts_ms: Date.UTC(2100, 0, 1) }), // dated in 2100
        row(checkId, ep, { ts_ms: Date.now() - 3 * DAY }), // older than 2 days
        row(checkId, ep, { ts_ms: Date.now() + 2 * MIN }), // small clock skew is fine
        row('999999:http:EU-Germany', 999999), // not its check
      ],
    });
    await until(() => o.acks.length === 1, 'the owner\'s ack');
    expect(o.acks[0]).toMatchObject({ batch_id: 'owner-1', ok: true });
    const stored = await rowsOf(ep);
    expect(stored).toEqual([
      { region: 'EU-Germany', retention_days: 30, agent_id: owner.id },
      { region: 'EU-Germany', retention_days: 30, agent_id: owner.id },
    ]);
    expect(await store.countResults({ endpointId: 999999 })).toBe(0);
    expect(await metric('upfleet_ingest_results_rejected_total{reason="not_assigned"}')).toBe(before.notAssigned + 3);
    expect(await metric('upfleet_ingest_results_rejected_total{reason="in_future"}')).toBe(before.inFuture + 1);
    expect(await metric('upfleet_ingest_results_rejected_total{reason="too_old"}')).toBe(before.tooOld + 1);

    // a handover: the owner's watch ends (its checks move), its in-flight results still count for two leases
    w.stream.cancel();
    await new Promise((r) => setTimeout(r, 200));
    o.stream.write({ batch_id: 'owner-2', results: [row(checkId, ep)] });
    await until(() => o.acks.length === 2, 'the ack after the handover');
    expect(await store.countResults({ endpointId: ep })).toBe(3);

    s.stream.end();
    o.stream.end();
    ws.stream.cancel();
    owner.c.close();
    stranger.c.close();
  });

  it('closes a revoked agent\'s open streams at once and stores nothing it sends after', async () => {
    const a = await newAgent('EU-Germany');
    const w = watch(a);
    const ep = await createEndpoint('https://example.com/revoked');
    const checkId = `${ep}:http:EU-Germany`;
    await until(() => w.checks().has(checkId), 'the check assigned');
    const r = report(a);
    r.stream.write({ batch_id: 'pre-revoke', results: [row(checkId, ep)] });
    await until(() => r.acks.length === 1, 'the first ack');

    const revoked = await admin('DELETE', `/api/admin/agent-tokens/${a.tokenId}`);
    expect(revoked.status).toBe(200);
    const [rs, ws] = await Promise.all([r.status, w.status]);
    expect(rs.code).toBe(grpc.status.PERMISSION_DENIED);
    expect(ws.code).toBe(grpc.status.PERMISSION_DENIED);

    // a new stream is refused too, and nothing sent is stored
    const again = report(a);
    again.stream.write({ batch_id: 'post-revoke', results: [row(checkId, ep)] });
    expect((await again.status).code).toBe(grpc.status.PERMISSION_DENIED);
    expect(await store.countResults({ endpointId: ep })).toBe(1);
    a.c.close();
  });
});

describe('results buffered across a control-plane restart', () => {
  // Formerly any agent registered before the restart had any check of its region accepted
  // (another customer's endpoint, dated 36 h back, still minutes later); now only what it held.
  it('accepts an agent\'s backlog for the checks it held before the restart, not its region\'s others, nothing from an agent that never watched nor from a new agent', async () => {
    const ep = await createEndpoint('https://example.com/restart');
    const checkId = `${ep}:http:EU-Germany`;
    const before = await newAgent('EU-Germany');
    const idle = await newAgent('EU-Germany'); // registered, never watches
    const w = watch(before);
    await until(() => w.checks().has(checkId), 'the check assigned before the restart');
    w.stream.cancel();
    before.c.close();
    idle.c.close();
    const victim = await createEndpoint('https://example.com/restart-victim');
    const victimCheck = `${victim}:http:EU-Germany`;
    await h.restart();
    const c = client();
    const old: TestAgent = { ...before, c };
    const forger: TestAgent = { ...idle, c };
    const fresh = await newAgent('EU-Germany');
    const o = report(old);
    o.stream.write({ batch_id: 'backlog', results: [row(checkId, ep, { ts_ms: Date.now() - 30 * MIN }), row(victimCheck, victim, { ts_ms: Date.now() - 30 * MIN })] });
    await until(() => o.acks.length === 1, 'the backlog ack');
    expect(o.acks[0]).toMatchObject({ ok: true, error: expect.stringMatching(/1 not assigned/) });
    const x = report(forger);
    x.stream.write({ batch_id: 'forged', results: [row(victimCheck, victim, { ts_ms: Date.now() - 36 * 60 * MIN, ok: false }), row(checkId, ep, { ok: false })] });
    await until(() => x.acks.length === 1, 'the forger\'s ack');
    expect(x.acks[0]).toMatchObject({ ok: true, error: expect.stringMatching(/2 not assigned/) });
    const f = report(fresh);
    f.stream.write({ batch_id: 'fresh', results: [row(checkId, ep)] });
    await until(() => f.acks.length === 1, 'the new agent\'s ack');
    expect(f.acks[0]).toMatchObject({ ok: true, error: expect.stringMatching(/1 not assigned/) });
    expect(await store.countResults({ endpointId: ep })).toBe(1);
    expect(await store.countResults({ endpointId: victim })).toBe(0);
    o.stream.end();
    x.stream.end();
    f.stream.end();
    c.close();
    fresh.c.close();
  });
});

describe('bootstrap tokens', () => {
  it('expire after 24 h by default, are single-use by default, allow --uses N and never-expiring, and carry the CA fingerprint', async () => {
    const t = await token('EU-Germany');
    const ca = new X509Certificate(readFileSync(path.join(h.dataDir, 'grpc-tls', 'ca.pem')));
    expect(t.token).toMatch(/^upf_[A-Za-z0-9_-]+\.[0-9a-f]{64}$/);
    expect(t.token.split('.')[1]).toBe(ca.fingerprint256.replace(/:/g, '').toLowerCase());
    expect(Date.parse(t.expires_at!) - Date.now()).toBeGreaterThan(DAY - 5 * MIN);
    expect(Date.parse(t.expires_at!) - Date.now()).toBeLessThanOrEqual(DAY);
    expect(t.max_uses).toBe(1);

    const c = client();
    await register(c, t.token, 'EU-Germany');
    await expect(register(c, t.token, 'EU-Germany')).rejects.toMatchObject({ code: grpc.status.PERMISSION_DENIED, details: expect.stringMatching(/already used/) });

    const two = await token('EU-Germany', { max_uses: 2, expires_in_seconds: null });
    expect(two).toMatchObject({ max_uses: 2, expires_at: null });
    await register(c, two.token, 'EU-Germany');
    await register(c, two.token.split('.')[0], 'EU-Germany'); // the bare secret works as well
    await expect(register(c, two.token, 'EU-Germany')).rejects.toMatchObject({ code: grpc.status.PERMISSION_DENIED });
    const list = await admin('GET', '/api/admin/agent-tokens');
    expect(list.body.data.find((x: any) => x.token_id === two.token_id)).toMatchObject({ used_count: 2, max_uses: 2, expires_at: null });

    const bad = await admin('POST', '/api/admin/agent-tokens', { region: 'EU-Germany', max_uses: 0 });
    expect(bad).toMatchObject({ status: 400, body: { success: false, error: expect.stringMatching(/max_uses/) } });
    c.close();
  });
});

describe('one-line join against the real control plane', () => {
  it('an agent given only --control-plane, --region and the printed token fetches and pins the generated CA and goes live', async () => {
    const t = await token('EU-Germany');
    const agentDir = path.join(mkdtempSync(path.join(os.tmpdir(), 'upfleet-join-')), 'data');
    const main = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../agent/src/main.ts');
    const child = spawn(process.execPath, ['--import', 'tsx', main, '--control-plane', `127.0.0.1:${h.cp.grpcPort}`, '--region', 'EU-Germany',
      '--data-dir', agentDir, '--metrics-port', '0', '--log-level', 'warn'], { env: { ...process.env, UPFLEET_TOKEN: t.token }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += String(d)));
    try {
      const start = Date.now();
      for (;;) {
        const list = (await admin('GET', '/api/admin/agent-tokens')).body.data;
        if (list.find((x: any) => x.token_id === t.token_id)?.used_count === 1) break;
        if (Date.now() - start > 30_000) throw new Error(`the agent did not register: ${stderr}`);
        await new Promise((r) => setTimeout(r, 200));
      }
      const ca = readFileSync(path.join(h.dataDir, 'grpc-tls', 'ca.pem'), 'utf8');
      await until(() => { try { return statSync(path.join(agentDir, 'ca.pem')).size > 0; } catch { return false; } }, 'the CA kept in the data dir');
      expect(new X509Certificate(readFileSync(path.join(agentDir, 'ca.pem'))).fingerprint256).toBe(new X509Certificate(ca).fingerprint256);
      expect(stderr).not.toMatch(/DEP0123|fatal/);
    } finally {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
      rmSync(path.dirname(agentDir), { recursive: true, force: true });
    }
  });
});

describe('endpoint ids and results history', () => {
  it('never gives a deleted endpoint\'s id to a new one, and never shows results older than the endpoint', async () => {
    const first = await createEndpoint('https://example.com/first');
    expect((await h.call('DELETE', `/api/users/endpoints/${first}`, undefined, user)).status).toBe(200);
    const other = (await h.signup()).token;
    const r = await h.call('POST', '/api/users/endpoints', { name: 'N', url: 'https://example.org/', regions: ['EU-Germany'], response_code: true }, other);
    const next = r.body.data.url_id as number;
    expect(next).toBeGreaterThan(first);

    // rows keyed by the new id but dated before it existed (as a reused id would have) stay hidden
    await store.insertBatch('history', 'a', [row(`${next}:http:EU-Germany`, next, { ts_ms: Date.now() - 30 * MIN, status_code: 500, ok: false })]);
    const g = await h.call('GET', `/api/graphs/endpoint/${next}?hours=1`, undefined, other);
    expect(g.status).toBe(200);
    expect(g.body.data.graphs.flatMap((s: any) => s.data)).toEqual([]);
    const list = await h.call('GET', '/api/users/endpoints-with-uptime', undefined, other);
    expect(list.body.data[0].uptime_percentage).toBeNull();
  });
});
