// A storm end to end with real processes on loopback: the control plane, an agent, one target
// server behind seven endpoints and a local webhook receiver. All seven turning to 503 together
// reach the webhook as one grouped message listing them (no message of their own); their
// recovery as one grouped recovery. The hold covers the agent's spread of checks over the
// Business plan's 10 s interval (ALERT_GROUP_HOLD_SECONDS), so the whole storm is one group.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpReceiver, type HttpReceiver } from '../../control-plane/src/testing/alert-receivers';
import { createAgentToken, startAgentProcess, type AgentProcess } from '../helpers/agent-process';
import { apiFor, sleep, waitFor } from '../helpers/api';
import { startStack, type Stack } from '../helpers/start-stack';

const N = 7;

describe('a storm across processes', () => {
  let stack: Stack;
  let agent: AgentProcess;
  let hook: HttpReceiver;
  let target: http.Server;
  let status = 200;
  let token: string;
  const api = apiFor(() => stack);

  beforeAll(async () => {
    hook = await startHttpReceiver(() => ({ status: 204 }));
    target = http.createServer((_req, res) => res.writeHead(status, { connection: 'close' }).end(String(status)));
    await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
    stack = await startStack({ env: { PUBLIC_URL: 'https://upfleet.example.com', ALERT_GROUP_HOLD_SECONDS: '15' } });
    agent = startAgentProcess(stack, { token: await createAgentToken(stack, 'EU-Germany'), region: 'EU-Germany' });
    await waitFor('a live agent', async () => (await api.admin<Array<{ status: string }>>('GET', '/api/admin/agents')).some((a) => a.status === 'live'));
    token = await api.signup('storm-e2e', 'Business');
  }, 90_000);
  afterAll(async () => {
    await agent?.stop();
    await stack?.stop();
    await hook?.close();
    await new Promise<void>((r) => (target ? target.close(() => r()) : r()));
  });

  it('seven endpoints down together: one grouped webhook listing them all; their recovery: one grouped recovery', async () => {
    expect((await api.call('POST', '/api/users/alert-methods', { platform: 'webhook', platform_config: { webhook_url: `${hook.url}/storm` } }, token)).status).toBe(201);
    const port = (target.address() as AddressInfo).port;
    const names: string[] = [];
    for (let k = 1; k <= N; k++) {
      const r = await api.call('POST', '/api/users/endpoints', { name: `Storm ${k}`, url: `http://127.0.0.1:${port}/s${k}`, regions: ['EU-Germany'] }, token);
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      names.push(`Storm ${k}`);
    }
    await sleep(12_000); // every endpoint checked and up once
    status = 503;
    const bodies = () => hook.requests.map((r) => JSON.parse(r.body) as { type: string; group_id?: number; incidents?: Array<{ endpoint: { name: string }; ack_url?: string }>; ack_url?: string });
    const [opened] = await waitFor('the grouped message', async () => (bodies().length ? bodies() : null), 90_000);
    await sleep(20_000); // nothing else follows: no single message, no second group
    expect(bodies().map((b) => b.type)).toEqual(['incident.group_opened']);
    expect(opened.incidents!.map((i) => i.endpoint.name).sort()).toEqual(names.sort());
    expect(opened.incidents!.every((i) => i.ack_url?.startsWith('https://upfleet.example.com/ack/'))).toBe(true);
    expect(opened.ack_url).toMatch(new RegExp(`^https://upfleet.example.com/ack/g${opened.group_id}\\.`));
    const open = (await api.call('GET', '/api/users/incidents?status=open', undefined, token)).body.data as Array<{ group_id: number }>;
    expect(open).toHaveLength(N);
    expect(open.every((i) => i.group_id === opened.group_id)).toBe(true);

    status = 200;
    const [, recovered] = await waitFor('the grouped recovery', async () => (bodies().length >= 2 ? bodies() : null), 90_000);
    await sleep(20_000);
    expect(bodies().map((b) => b.type)).toEqual(['incident.group_opened', 'incident.group_resolved']);
    expect(recovered.group_id).toBe(opened.group_id);
    expect(recovered.incidents!.map((i) => i.endpoint.name).sort()).toEqual(names.sort());
  }, 300_000);
});
