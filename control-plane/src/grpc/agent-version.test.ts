// Version skew: an agent sends its release on every connect (WatchAssignmentsRequest.agent_version,
// a field older agents leave empty); the control plane keeps it for `upfleet agent list` and logs a
// warning for an agent older than itself. Real control plane, real gRPC clients on loopback.
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
import { compareVersions, CONTROL_PLANE_VERSION } from './agent-service';

let cp: ControlPlane;
let store: ClickHouseResultStore;
let dataDir: string;
const logLines: Array<Record<string, unknown>> = [];

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'upfleet-agent-version-'));
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

/** Registers an agent with version '0.0.1', then connects it (WatchAssignments) sending `sent`. */
async function connect(sent: string | undefined): Promise<{ agentId: string; close(): void }> {
  const Ctor = loadAgentService();
  const c = new Ctor(`localhost:${cp.grpcPort}`, grpc.credentials.createSsl(fs.readFileSync(path.join(dataDir, 'grpc-tls', 'ca.pem')))) as unknown as AgentServiceClient;
  const token = (await admin('POST', '/api/admin/agent-tokens', { region: 'EU-Germany' })).data.token as string;
  const reg = await new Promise<RegisterResponse>((resolve, reject) =>
    c.Register({ bootstrap_token: token.split('.')[0], region: 'EU-Germany', hostname: 'skew', version: '0.0.1' }, (err, r) => (err ? reject(err) : resolve(r!))));
  const md = new grpc.Metadata();
  md.set('authorization', `Bearer ${reg.agent_id}.${reg.agent_secret}`);
  // an agent from before the field: the request as it encoded it, without agent_version
  const watch = c.WatchAssignments(sent === undefined ? { known_version: 0 } : { known_version: 0, agent_version: sent }, md);
  await new Promise<void>((resolve, reject) => {
    watch.once('data', () => resolve());
    watch.once('error', reject);
  });
  return { agentId: reg.agent_id, close: () => { watch.cancel(); c.close(); } };
}

const listed = async (agentId: string) => ((await admin('GET', '/api/admin/agents')).data as Array<{ agent_id: string; version: string; outdated: boolean }>).find((a) => a.agent_id === agentId)!;
const warnings = (agentId: string) => logLines.filter((l) => l.agentId === agentId && String(l.msg).startsWith('agent is older than the control plane'));

describe('agent version on connect', () => {
  it('lists the version an agent sends on connect, without a warning for the current release', async () => {
    const a = await connect(CONTROL_PLANE_VERSION);
    try {
      expect(await listed(a.agentId)).toMatchObject({ version: CONTROL_PLANE_VERSION, outdated: false });
      expect(warnings(a.agentId)).toEqual([]);
    } finally {
      a.close();
    }
  });

  it('warns about an older agent and marks it outdated', async () => {
    const a = await connect('0.0.9');
    try {
      expect(await listed(a.agentId)).toMatchObject({ version: '0.0.9', outdated: true });
      expect(warnings(a.agentId)).toHaveLength(1);
      expect(warnings(a.agentId)[0]).toMatchObject({ level: 40, agentVersion: '0.0.9', controlPlaneVersion: CONTROL_PLANE_VERSION });
    } finally {
      a.close();
    }
  });

  it('still serves an agent from before the field (no agent_version): its registered version stays, with a warning', async () => {
    const a = await connect(undefined);
    try {
      expect(await listed(a.agentId)).toMatchObject({ version: '0.0.1', outdated: true });
      expect(warnings(a.agentId)).toHaveLength(1);
    } finally {
      a.close();
    }
  });

  it('orders release numbers numerically, a pre-release before its release', () => {
    expect(compareVersions('0.10.0', '0.9.3')).toBe(1);
    expect(compareVersions('0.1.0', '0.1.0')).toBe(0);
    expect(compareVersions('v0.1.0', '0.1')).toBe(0);
    expect(compareVersions('0.1.0-rc.1', '0.1.0')).toBe(-1);
    expect(compareVersions('0.0.9', '0.1.0')).toBe(-1);
  });
});
