// The agent as one executable (npm run build:agent): copied alone into an empty dir and run with
// a PATH that has no node, it joins a real control plane with a token and its results are stored.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgentToken } from '../helpers/agent-process';
import { agentBinary, agentBinaryAlone, stopAgentExe } from '../helpers/agent-binary';
import { apiFor, waitFor } from '../helpers/api';
import { startCountingTarget, type CountingTarget } from '../helpers/http-target';
import { startStack, type Stack } from '../helpers/start-stack';

describe('the agent executable', () => {
  let stack: Stack;
  let target: CountingTarget;
  let alone: Awaited<ReturnType<typeof agentBinaryAlone>>;
  let agent: ChildProcess | undefined;
  let out = '';
  const api = apiFor(() => stack);

  beforeAll(async () => {
    alone = await agentBinaryAlone();
    target = await startCountingTarget();
    stack = await startStack();
  }, 240_000);
  afterAll(async () => {
    await stopAgentExe(agent);
    await stack?.stop();
    await target?.close();
    if (alone) fs.rmSync(alone.dir, { recursive: true, force: true });
  });

  it('is written with its sha256 and carries the agent in one file', async () => {
    const built = await agentBinary();
    expect(fs.readFileSync(built.sha256File, 'utf8')).toBe(`${built.sha256}  upfleet-agent-linux-x64\n`);
    expect(fs.readdirSync(alone.dir).sort()).toEqual(['bin', 'upfleet-agent']);
    expect(spawnSync('sh', ['-c', 'command -v node'], { env: alone.env }).status).not.toBe(0);
  });

  it('answers --version and --help without node on PATH', () => {
    const version = spawnSync(alone.exe, ['--version'], { env: alone.env, cwd: alone.dir, encoding: 'utf8' });
    expect(version.status).toBe(0);
    expect(version.stdout).toMatch(/^upfleet-agent \d+\.\d+\.\d+ /);
    const help = spawnSync(alone.exe, ['--help'], { env: alone.env, cwd: alone.dir, encoding: 'utf8' });
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('usage: upfleet-agent --control-plane HOST:PORT --region REGION-City --token TOKEN');
    expect(help.stdout).toContain('UPFLEET_CONTROL_PLANE');
    const bad = spawnSync(alone.exe, ['--no-such-flag'], { env: alone.env, cwd: alone.dir, encoding: 'utf8' });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('--no-such-flag');
  });

  it('joins a control plane with a token (flags and UPFLEET_* variables) and its results are stored', async () => {
    const token = await createAgentToken(stack);
    agent = spawn(alone.exe, ['--control-plane', `localhost:${stack.grpcPort}`, '--data-dir', path.join(alone.dir, 'data'), '--metrics-port', '0'], {
      cwd: alone.dir,
      // the region and token as the installer's env file gives them
      env: { ...alone.env, UPFLEET_REGION: 'EU-Germany', UPFLEET_TOKEN: token, UPFLEET_FLUSH_INTERVAL_MS: '200', UPFLEET_LOG_LEVEL: 'warn', UPFLEET_PROBE_THREADS: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    agent.stdout!.on('data', (d) => (out += d));
    agent.stderr!.on('data', (d) => (out += d));
    const live = await waitFor('the executable to be live', async () => {
      const agents = await api.admin<Array<{ status: string; region: string; version?: string }>>('GET', '/api/admin/agents');
      return agents.find((a) => a.status === 'live');
    }, 30_000).catch((err: Error) => {
      throw new Error(`${err.message}\nagent output:\n${out}`);
    });
    expect(live.region).toBe('EU-Germany');

    const user = await api.signup('exe', 'Business');
    const e = await api.call('POST', '/api/users/endpoints', { name: 'Exe', url: target.url('/exe'), response_code: true, response_time: true }, user);
    expect(e.status).toBe(201);
    const id = e.body.data.url_id as number;
    const code = await waitFor('a stored result in the graphs', async () => {
      const g = await api.call('GET', `/api/graphs/endpoint/${id}?hours=1`, undefined, user);
      const s = (g.body.data as { graphs: Array<{ function: string; data: Array<[number, number]> }> }).graphs.find((x) => x.function === 'response_code');
      return s && s.data.length > 0 ? s : null;
    }, 30_000);
    expect(code.data[0][1]).toBe(200);
    expect(target.total('/exe')).toBeGreaterThanOrEqual(1);
    // the SQLite addon came out of the executable into a private cache dir under its HOME
    const cache = path.join(alone.dir, '.cache/upfleet-agent');
    expect(fs.statSync(cache).mode & 0o777).toBe(0o700);
    expect(fs.existsSync(path.join(alone.dir, 'data/agent.db'))).toBe(true);
  });
});
