// Whether an agent can run browser checks reaches the control plane in its heartbeat (fields an older
// agent leaves out: it cannot) and `upfleet agent list` shows it. Real control plane, real gRPC on loopback.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grpc, loadAgentService, type AgentServiceClient, type RegisterResponse } from '@upfleet/proto';
import { loadConfig } from '../config';
import { createResultStore, type ClickHouseResultStore } from '../results/clickhouse-store';
import { startControlPlane, type ControlPlane } from '../server';

let cp: ControlPlane;
let store: ClickHouseResultStore;
let dataDir: string;
const logLines: Array<Record<string, unknown>> = [];

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'upfleet-agent-browser-'));
  store = createResultStore({ clickhouseUrl: null, dataDir: path.join(dataDir, 'results'), logger: pino({ level: 'silent' }) });
  await store.init();
  const sink = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) logLines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const config = loadConfig({ PORT: '0', GRPC_PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, EMBEDDED_AGENT: '0', LOG_LEVEL: 'warn', WEB_DIST_DIR: path.join(dataDir, 'no-web') });
  cp = await startControlPlane(config, pino({ level: 'warn' }, sink), { results: store });
}, 120_000);
afterAll(async () => {
  await cp?.close();
  await store?.close();
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

const admin = async (method: string, p: string, body?: unknown) => {
  const r = await fetch(`${cp.url}${p}`, {
    method,
    headers: { authorization: `Bearer ${cp.adminToken}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return (await r.json()) as { data: any };
};

/** Registers an agent and sends one heartbeat saying whether it can run browser checks. */
async function heartbeat(browser: { browser_checks?: boolean; browser_unavailable?: string }): Promise<{ agentId: string; close(): void }> {
  const Ctor = loadAgentService();
  const c = new Ctor(`localhost:${cp.grpcPort}`, grpc.credentials.createSsl(fs.readFileSync(path.join(dataDir, 'grpc-tls', 'ca.pem')))) as unknown as AgentServiceClient;
  const token = (await admin('POST', '/api/admin/agent-tokens', { region: 'EU-Germany' })).data.token as string;
  const reg = await new Promise<RegisterResponse>((resolve, reject) =>
    c.Register({ bootstrap_token: token.split('.')[0], region: 'EU-Germany', hostname: 'skew', version: '0.0.1' }, (err, r) => (err ? reject(err) : resolve(r!))));
  const md = new grpc.Metadata();
  md.set('authorization', `Bearer ${reg.agent_id}.${reg.agent_secret}`);
  await new Promise<void>((resolve, reject) =>
    c.Heartbeat({ checks_owned: 0, checks_per_minute: 0, outbox_depth: 0, scheduling_lag_ms_p99: 0, outbox_dropped: 0, ...browser }, md, (err) => (err ? reject(err) : resolve())));
  return { agentId: reg.agent_id, close: () => c.close() };
}

const listed = async (agentId: string) => ((await admin('GET', '/api/admin/agents')).data as Array<Record<string, unknown>>).find((a) => a.agent_id === agentId)!;

describe('browser checks capability in heartbeats', () => {
  it('lists an agent with a Chromium as able to run browser checks', async () => {
    const a = await heartbeat({ browser_checks: true });
    try {
      expect(await listed(a.agentId)).toMatchObject({ browser_checks: true });
      expect((await listed(a.agentId)).browser_unavailable).toBeUndefined();
    } finally {
      a.close();
    }
  });

  it('lists an agent without one as unable, with its reason; an older agent that says nothing as unable', async () => {
    const a = await heartbeat({ browser_checks: false, browser_unavailable: 'no Chromium at /usr/bin/chromium' });
    const old = await heartbeat({});
    try {
      expect(await listed(a.agentId)).toMatchObject({ browser_checks: false, browser_unavailable: 'no Chromium at /usr/bin/chromium' });
      expect(await listed(old.agentId)).toMatchObject({ browser_checks: false });
    } finally {
      a.close();
      old.close();
    }
  });
});
