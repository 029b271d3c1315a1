import { spawn, type ChildProcess } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Assignment } from '@upfleet/proto';
import { makeCa, makeCert, startTargets, type Targets } from '../../../tests/helpers/targets';
import { openAgentDb } from '../buffer/agent-db';
import { createOutbox } from '../buffer/sqlite-outbox';
import { loadAgentConfig, type AgentConfig } from '../config';
import { startAgent, type AgentHandle } from '../index';
import { startTestControlPlane, waitFor, type TestControlPlane } from '../testing/test-control-plane';

const here = path.dirname(fileURLToPath(import.meta.url));
const mainTs = path.resolve(here, '../main.ts');
const silent = pino({ level: 'silent' });

let targets: Targets;
const cleanups: (() => Promise<void> | void)[] = [];
beforeAll(async () => {
  targets = await startTargets();
});
afterAll(() => targets.close());
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function closedPort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise((r) => s.close(r));
  return port;
}

function tempDir(): string {
  const d = mkdtempSync(path.join(tmpdir(), 'upfleet-agent-link-'));
  cleanups.push(() => rmSync(d, { recursive: true, force: true }));
  return d;
}

function httpCheck(id: string, url: string, interval = 1): Assignment {
  return {
    check_id: id, endpoint_id: 7, kind: 'CHECK_KIND_HTTP', url, interval_seconds: interval, timeout_ms: 2000,
    region: 'EU-Germany', retention_days: 30,
  };
}

async function controlPlane(opts: Parameters<typeof startTestControlPlane>[0] = {}): Promise<TestControlPlane> {
  const cp = await startTestControlPlane(opts);
  cleanups.push(() => cp.close());
  return cp;
}

function config(cp: { address: string }, dataDir: string, over: Record<string, string> = {}): AgentConfig {
  return loadAgentConfig({}, {
    controlPlane: cp.address, region: 'EU-Germany', token: 'bootstrap-token', dataDir, insecure: true,
    metricsPort: 0, flushIntervalMs: 100, batchSize: 50, ...over,
  });
}

async function agent(cfg: AgentConfig, onFatal?: (m: string) => void): Promise<AgentHandle> {
  const a = await startAgent(cfg, silent, { onFatal });
  cleanups.push(() => a.stop());
  return a;
}

function runMain(args: string[]): { child: ChildProcess; exit: Promise<{ code: number | null; stderr: string }> } {
  const child = spawn(process.execPath, ['--import', 'tsx', mainTs, ...args], {
    cwd: path.resolve(here, '../../..'),
    env: { ...process.env, UPFLEET_LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += String(d)));
  const exit = new Promise<{ code: number | null; stderr: string }>((resolve) =>
    child.on('exit', (code) => resolve({ code, stderr })),
  );
  cleanups.push(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });
  return { child, exit };
}

describe('agent link', () => {
  it('registers once, runs the assigned checks and delivers their results, then applies deltas', async () => {
    const cp = await controlPlane({ assignments: [httpCheck('7:CHECK_KIND_HTTP:EU-Germany', targets.http.ok)] });
    const dir = tempDir();
    const a = await agent(config(cp, dir));
    await waitFor(() => cp.stored.size >= 2, 10_000, 'two stored results');
    const r = [...cp.stored.values()][0];
    expect(r).toMatchObject({ check_id: '7:CHECK_KIND_HTTP:EU-Germany', ok: true, status_code: 200, region: 'EU-Germany', retention_days: 30 });
    expect(r.total_ms).toBeGreaterThan(0);
    expect(cp.registrations).toHaveLength(1);
    await waitFor(() => cp.heartbeats.some((h) => h.req.checks_owned === 1), 5000, 'a heartbeat owning the check');

    cp.pushDelta([httpCheck('8:CHECK_KIND_HTTP:EU-Germany', targets.http.serverError)], ['7:CHECK_KIND_HTTP:EU-Germany']);
    await waitFor(() => [...cp.stored.values()].some((x) => x.check_id === '8:CHECK_KIND_HTTP:EU-Germany'), 5000, 'delta check result');
    const failed = [...cp.stored.values()].find((x) => x.check_id === '8:CHECK_KIND_HTTP:EU-Germany')!;
    expect(failed).toMatchObject({ ok: false, status_code: 500, error: 'HTTP 500' });
    expect(a.stats().assignments).toBe(1);
    await waitFor(() => a.stats().outboxDepth === 0 || a.stats().link.resultsAcked > 0, 5000, 'acks');
    expect(a.stats().link.state).toBe('connected');
  });

  it('given several control planes, skips a dead first address, connects to the live one and reports', async () => {
    const dead = await closedPort();
    const cp = await controlPlane({ assignments: [httpCheck('7:CHECK_KIND_HTTP:EU-Germany', targets.http.ok)] });
    const dir = tempDir();
    const cfg = config({ address: `127.0.0.1:${dead}, ${cp.address}` }, dir);
    expect(cfg.controlPlane).toBe(`127.0.0.1:${dead},${cp.address}`);
    const a = await agent(cfg);
    await waitFor(() => cp.stored.size >= 2, 15_000, 'results at the second address');
    expect(cp.registrations).toHaveLength(1);
    expect(a.stats().link.state).toBe('connected');
  });

  it('moves to the next control plane when its own goes away, and back around to the first', async () => {
    const assignments = [httpCheck('7:CHECK_KIND_HTTP:EU-Germany', targets.http.ok)];
    const first = await controlPlane({ assignments });
    const second = await controlPlane({ assignments, agents: first.agents });
    const dir = tempDir();
    const a = await agent(config({ address: `${first.address},${second.address}` }, dir));
    await waitFor(() => first.stored.size >= 1, 15_000, 'results at the first');
    const sessionsBefore = a.stats().link.sessions;

    await first.close();
    await waitFor(() => second.stored.size >= 1, 15_000, 'results at the second after the first went away');
    expect(second.registrations).toHaveLength(0); // the same identity, no new registration
    expect(a.stats().link.sessions).toBeGreaterThan(sessionsBefore);

    const firstAgain = await controlPlane({ port: first.port, assignments, agents: first.agents });
    await second.close();
    await waitFor(() => firstAgain.stored.size >= 1, 20_000, 'results at the first again');
    await waitFor(() => a.stats().outboxDepth === 0, 10_000, 'everything delivered');
    await a.stop();
    // Nothing lost and nothing twice across the three servers.
    const ids = [...first.stored.keys(), ...second.stored.keys(), ...firstAgain.stored.keys()];
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.length).toBe(a.stats().checksRun);
  });

  it('keeps checking on the saved snapshot while the control plane is down and delivers everything afterwards', async () => {
    const cp = await controlPlane({ assignments: [httpCheck('7:CHECK_KIND_HTTP:EU-Germany', targets.http.ok)] });
    const dir = tempDir();
    const a = await agent(config(cp, dir));
    await waitFor(() => cp.stored.size >= 1, 10_000, 'first result');
    await cp.close();
    const before = a.stats().checksRun;
    await waitFor(() => a.stats().checksRun >= before + 2, 10_000, 'checks while disconnected');
    expect(a.stats().outboxDepth).toBeGreaterThan(0);
    expect(a.stats().link.state).not.toBe('connected');

    const again = await controlPlane({
      port: cp.port, agents: cp.agents, assignments: [httpCheck('7:CHECK_KIND_HTTP:EU-Germany', targets.http.ok)],
    });
    await waitFor(() => a.stats().link.state === 'connected' && a.stats().outboxDepth === 0, 15_000, 'catch-up');
    expect(again.registrations).toHaveLength(0); // same identity, no new registration
    await a.stop();
    // every result made while the control plane was away arrived, none twice
    const made = a.stats().checksRun;
    expect(cp.stored.size + again.stored.size).toBe(made);
    const ids = new Set([...cp.stored.keys(), ...again.stored.keys()]);
    expect(ids.size).toBe(made);
  });

  it('a restarted agent checks on its saved snapshot while the control plane is unreachable', async () => {
    const cp = await controlPlane({ assignments: [httpCheck('7:CHECK_KIND_HTTP:EU-Germany', targets.http.ok)] });
    const dir = tempDir();
    const first = await agent(config(cp, dir));
    await waitFor(() => first.stats().assignments === 1, 5000, 'snapshot');
    await first.stop();
    await cp.close();
    const second = await agent(config(cp, dir));
    expect(second.stats().assignments).toBe(1);
    await waitFor(() => second.stats().checksRun >= 1, 5000, 'a check without the control plane');
    expect(second.stats().link.state).not.toBe('connected');
    expect(second.stats().outboxDepth).toBeGreaterThan(0);
  });

  it('stops with a clear fatal message when the control plane revokes the agent credential', async () => {
    const cp = await controlPlane({ assignments: [httpCheck('7:CHECK_KIND_HTTP:EU-Germany', targets.http.ok)] });
    const dir = tempDir();
    let fatal = '';
    const a = await agent(config(cp, dir), (m) => (fatal = m));
    await waitFor(() => cp.heartbeats.length > 0, 5000, 'a heartbeat');
    await cp.close(); // drop the session so the agent has to come back with its credential
    const cp2 = await controlPlane({ port: cp.port, agents: cp.agents });
    cp2.revoked.add(cp.heartbeats[0].agentId);
    await waitFor(() => fatal !== '', 15_000, 'fatal');
    expect(fatal).toMatch(/rejected this agent's credential/);
    expect(a.stats().link.state).toBe('fatal');
  });

  it('treats a rejected bootstrap token as fatal: the process exits non-zero with one clear line', async () => {
    const cp = await controlPlane();
    const dir = tempDir();
    const { exit } = runMain([
      '--control-plane', cp.address, '--region', 'EU-Germany', '--token', 'wrong', '--data-dir', dir,
      '--insecure', '--metrics-port', '0',
    ]);
    const { code, stderr } = await exit;
    expect(code).toBe(3);
    expect(stderr).toMatch(/fatal: the control plane rejected the bootstrap token/);
  });

  it('re-sends the same batch id with the same rows after the agent is SIGKILLed before the ack', async () => {
    const cp = await controlPlane({ assignments: [httpCheck('7:CHECK_KIND_HTTP:EU-Germany', targets.http.ok, 60)] });
    cp.ackMode = 'hold';
    const dir = tempDir();
    const args = [
      '--control-plane', cp.address, '--region', 'EU-Germany', '--token', 'bootstrap-token', '--data-dir', dir,
      '--insecure', '--metrics-port', '0', '--flush-interval-ms', '100',
    ];
    const first = runMain(args);
    await waitFor(() => cp.batches.length >= 1, 20_000, 'a batch from the first process');
    first.child.kill('SIGKILL');
    await first.exit;
    const sent = cp.batches[0];
    expect(cp.stored.size).toBe(0);

    cp.ackMode = 'ack';
    const second = runMain(args);
    await waitFor(() => cp.stored.size >= sent.results.length, 20_000, 'the re-sent batch stored');
    const resent = cp.batches.slice(1).find((b) => b.batch_id === sent.batch_id);
    expect(resent?.results.map((r) => r.result_id)).toEqual(sent.results.map((r) => r.result_id));
    expect(cp.registrations).toHaveLength(1); // the identity survived the kill
    second.child.kill('SIGTERM');
    const { code } = await second.exit;
    expect(code).toBe(0);
    const db = openAgentDb({ dataDir: dir });
    expect(createOutbox(db, { cap: 1000 }).depth()).toBe(0); // SIGTERM flushed what was pending
    db.close();
  });

  it('pins the control plane certificate by SHA-256 fingerprint and refuses a different one', async () => {
    // as the control plane does it: a private CA, a server certificate, the chain sent by the server
    const ca = makeCa('Upfleet control plane CA');
    const leaf = makeCert({ ca, commonName: 'upfleet-control-plane', altNames: ['upfleet-control-plane'] });
    const fp = new X509Certificate(leaf.cert).fingerprint256.replace(/:/g, '').toLowerCase();
    const cp = await controlPlane({
      tls: { cert: leaf.cert + ca.cert, key: leaf.key },
      assignments: [httpCheck('7:CHECK_KIND_HTTP:EU-Germany', targets.http.ok)],
    });
    const cfg = loadAgentConfig({}, {
      controlPlane: cp.address, region: 'EU-Germany', token: 'bootstrap-token', dataDir: tempDir(),
      serverFingerprint: fp, metricsPort: 0, flushIntervalMs: 100,
    });
    await agent(cfg);
    await waitFor(() => cp.stored.size >= 1, 10_000, 'a result over pinned TLS');

    let fatal = '';
    const wrong = { ...cfg, dataDir: tempDir(), tls: { mode: 'pin' as const, fingerprint256: 'AB'.repeat(32) } };
    await agent(wrong, (m) => (fatal = m));
    await waitFor(() => fatal !== '', 5000, 'pin mismatch');
    expect(fatal).toMatch(/does not match the pinned/);
  });

  it('trusts the control plane through a CA file', async () => {
    const dir = tempDir();
    const ca = makeCa('Upfleet control plane CA');
    const leaf = makeCert({ ca, altNames: ['localhost', '127.0.0.1'] });
    writeFileSync(path.join(dir, 'ca.pem'), ca.cert);
    const cp = await controlPlane({ tls: leaf, assignments: [httpCheck('7:CHECK_KIND_HTTP:EU-Germany', targets.http.ok)] });
    const cfg = loadAgentConfig({}, {
      controlPlane: cp.address, region: 'EU-Germany', token: 'bootstrap-token', dataDir: path.join(dir, 'data'),
      caFile: path.join(dir, 'ca.pem'), metricsPort: 0, flushIntervalMs: 100,
    });
    await agent(cfg);
    await waitFor(() => cp.stored.size >= 1, 10_000, 'a result over TLS with a CA file');
  });
});
