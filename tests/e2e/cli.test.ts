// The operator's path with the real `upfleet` binary against the real control plane: add a region,
// make a bootstrap token, run an agent with `upfleet agent run`, see it in `upfleet agent list`,
// revoke the token and watch the agent stop for good.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/api';
import { REPO_ROOT, startStack, type Stack } from '../helpers/start-stack';

const BIN = path.join(REPO_ROOT, 'cli/bin/upfleet.js');

describe('upfleet CLI against the real control plane', () => {
  let stack: Stack;
  let agent: ChildProcess | undefined;
  const upfleet = (...args: string[]) => {
    const r = spawnSync(process.execPath, [BIN, ...args, '--server', stack.baseUrl, '--data-dir', stack.dataDir], { encoding: 'utf8', timeout: 60_000 });
    return { code: r.status, out: r.stdout, err: r.stderr };
  };

  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(async () => {
    if (agent && agent.exitCode === null) agent.kill('SIGKILL');
    await stack?.stop();
  });

  it('lists the seeded plans and regions with the token read from DATA_DIR', () => {
    const plans = upfleet('package', 'list', '--json');
    expect(plans.code).toBe(0);
    expect(JSON.parse(plans.out).map((p: { package_name: string }) => p.package_name)).toEqual(['Free', 'Starter', 'Pro', 'Business']);
    const regions = upfleet('region', 'list');
    expect(regions.code).toBe(0);
    expect(regions.out).toContain('Germany');
  });

  it('finds the control plane without --server as the server finds itself: DATA_DIR (the port it wrote at start) or PORT', () => {
    const bare = (env: Record<string, string>, ...args: string[]) => {
      const { UPFLEET_SERVER: _s, PORT: _p, HOST: _h, DATA_DIR: _d, ...rest } = process.env;
      const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 60_000, cwd: os.tmpdir(), env: { ...rest, ...env } });
      return { code: r.status, out: r.stdout, err: r.stderr };
    };
    // PORT=0 picked a free port; the server wrote it to DATA_DIR, where the admin token is too
    const viaDataDir = bare({ DATA_DIR: stack.dataDir }, 'package', 'list', '--json');
    expect(viaDataDir.err).toBe('');
    expect(JSON.parse(viaDataDir.out).map((p: { package_name: string }) => p.package_name)).toContain('Starter');
    const viaPort = bare({ PORT: String(stack.httpPort), HOST: '127.0.0.1', UPFLEET_ADMIN_TOKEN: stack.adminToken }, 'region', 'list');
    expect(viaPort.err).toBe('');
    expect(viaPort.out).toContain('Germany');
  });

  it('adds a region, runs an agent there with a bootstrap token, and stops it for good when the token is revoked', async () => {
    expect(upfleet('region', 'add', '--region', 'SA', '--city', 'Santiago').code).toBe(0);
    const dup = upfleet('region', 'add', '--region', 'SA', '--city', 'Santiago');
    expect(dup.code).toBe(1);
    expect(dup.err).toContain('already exists');

    const created = upfleet('agent', 'token', 'create', '--region', 'SA-Santiago', '--expires', '1h', '--json');
    expect(created.code).toBe(0);
    const token = JSON.parse(created.out) as { token_id: string; token: string };

    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'upfleet-cli-agent-'));
    agent = spawn(process.execPath, [BIN, 'agent', 'run', '--control-plane', `localhost:${stack.grpcPort}`, '--region', 'SA-Santiago',
      '--token', token.token, '--data-dir', dataDir, '--ca-file', path.join(stack.dataDir, 'grpc-tls/ca.pem'), '--metrics-port', '0', '--log-level', 'warn'],
    { stdio: ['ignore', 'pipe', 'pipe'] });
    let agentErr = '';
    agent.stderr!.on('data', (d) => (agentErr += d));
    const exited = new Promise<number | null>((r) => agent!.once('exit', (code) => r(code)));

    const row = await waitFor('the agent listed as live', async () => {
      const list = upfleet('agent', 'list', '--json');
      const agents = JSON.parse(list.out) as Array<{ region: string; status: string }>;
      return agents.find((a) => a.region === 'SA-Santiago' && a.status === 'live');
    }, 30_000, 500);
    expect(row).toMatchObject({ region: 'SA-Santiago', status: 'live' });
    const table = upfleet('agent', 'list');
    expect(table.out).toMatch(/SA-Santiago\s.*live/);

    expect(upfleet('agent', 'token', 'revoke', token.token_id).code).toBe(0);
    // The revoked credential is refused at the next heartbeat: exit 3 with a clear line.
    expect(await exited).toBe(3);
    expect(agentErr).toMatch(/revoked/);
  });

  it('fails with one line and exit 1 on a wrong admin token', () => {
    const r = spawnSync(process.execPath, [BIN, 'user', 'list', '--server', stack.baseUrl, '--token', 'nope'], { encoding: 'utf8' });
    expect(r.status).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^upfleet: /);
  });
});
