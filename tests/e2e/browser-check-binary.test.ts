// A saved browser check run by the agent executable (npm run build:agent, alone in an empty dir,
// Debian's Chromium) against a loopback login page: it passes, then the page's bundle breaks and an
// incident opens whose cause names the failing step.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgentToken } from '../helpers/agent-process';
import { agentBinaryAlone, stopAgentExe } from '../helpers/agent-binary';
import { apiFor, waitFor } from '../helpers/api';
import { LOGIN_STEPS, startLoginPage, type LoginPage } from '../helpers/login-page';
import { startStack, type Stack } from '../helpers/start-stack';

describe('a browser check on the agent executable', () => {
  let stack: Stack;
  let page: LoginPage;
  let alone: Awaited<ReturnType<typeof agentBinaryAlone>>;
  let agent: ChildProcess | undefined;
  let out = '';
  const api = apiFor(() => stack);

  beforeAll(async () => {
    [alone, page, stack] = await Promise.all([agentBinaryAlone(), startLoginPage(), startStack()]);
  }, 300_000);
  afterAll(async () => {
    await stopAgentExe(agent);
    await stack?.stop();
    await page?.close();
    if (alone) fs.rmSync(alone.dir, { recursive: true, force: true });
  });

  it('passes on the working page, then opens an incident naming the failing step when the page breaks', async () => {
    const token = await createAgentToken(stack);
    agent = spawn(alone.exe, ['--control-plane', `localhost:${stack.grpcPort}`, '--data-dir', path.join(alone.dir, 'data'), '--metrics-port', '0',
      '--ca-file', path.join(stack.dataDir, 'grpc-tls/ca.pem')], {
      cwd: alone.dir,
      env: { ...alone.env, UPFLEET_REGION: 'EU-Germany', UPFLEET_TOKEN: token, UPFLEET_FLUSH_INTERVAL_MS: '200', UPFLEET_LOG_LEVEL: 'warn', UPFLEET_CHROMIUM_PATH: '/usr/bin/chromium' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    agent.stdout!.on('data', (d) => (out += d));
    agent.stderr!.on('data', (d) => (out += d));
    await waitFor('the executable to be live and able to run browser checks', async () => {
      const agents = await api.admin<Array<{ status: string; browser_checks?: boolean }>>('GET', '/api/admin/agents');
      return agents.find((a) => a.status === 'live' && a.browser_checks === true);
    }, 60_000).catch((err: Error) => {
      throw new Error(`${err.message}\nagent output:\n${out}`);
    });

    const user = await api.signup('browserexe', 'Business');
    const saved = await api.call('POST', '/api/users/endpoints', {
      name: 'Login', kind: 'browser', url: `${page.url}/login`, steps: LOGIN_STEPS, check_frequency_seconds: 300, timeout_seconds: 30,
    }, user);
    expect(saved.status, JSON.stringify(saved.body)).toBe(201);
    const id = saved.body.data.url_id as number;
    const endpoint = async () => ((await api.call('GET', '/api/users/endpoints-with-uptime', undefined, user)).body.data as Array<{ url_id: number; status: string; last_error: string | null }>)
      .find((e) => e.url_id === id)!;
    // a new check runs at once
    let seen: unknown;
    const up = await waitFor('a passing run', async () => {
      const e = await endpoint();
      seen = e;
      return e.status === 'up' ? e : undefined;
    }, 90_000).catch((err: Error) => {
      throw new Error(`${err.message}\nlast seen: ${JSON.stringify(seen)}\nagent output:\n${out}`);
    });
    expect(up.last_error ?? '').toBe('');

    // The bundle breaks. Paused and resumed, the check is new to the agent and runs at once; a
    // failure is confirmed 10 s later instead of at the next 5-minute slot.
    page.broken = true;
    expect((await api.call('PATCH', `/api/users/endpoints/${id}/toggle`, { monitoring_enabled: false }, user)).status).toBe(200);
    expect((await api.call('PATCH', `/api/users/endpoints/${id}/toggle`, { monitoring_enabled: true }, user)).status).toBe(200);
    const incident = await waitFor('the incident', async () => {
      const list = (await api.call('GET', `/api/users/incidents?endpoint_id=${id}&status=open`, undefined, user)).body.data as Array<{ cause: string; condition: string }>;
      return list[0];
    }, 120_000, 1000).catch((err: Error) => {
      throw new Error(`${err.message}\nagent output:\n${out}`);
    });
    expect(incident.condition).toBe('down');
    expect(incident.cause).toMatch(/step 4 \(expect_text/);
  }, 400_000);
});
