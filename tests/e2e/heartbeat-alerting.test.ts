// Heartbeat monitors end to end with real processes on loopback: a control plane (its
// own process), a job that pings over HTTP, and a local Standard Webhooks receiver. The heartbeat
// misses its deadline and the alert arrives; the control plane is killed and restarted while it is
// down (no second alert for the same miss); the next ping resolves it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpReceiver, type HttpReceiver } from '../../control-plane/src/testing/alert-receivers';
import { apiFor, sleep, waitFor } from '../helpers/api';
import { startStack, type Stack } from '../helpers/start-stack';

describe('a heartbeat that misses its deadline', () => {
  let stack: Stack;
  let hook: HttpReceiver;
  let token: string;
  const api = apiFor(() => stack);
  const ofType = (type: string) => hook.requests.filter((q) => JSON.parse(q.body).type === type);

  beforeAll(async () => {
    hook = await startHttpReceiver(() => ({ status: 204 }));
    stack = await startStack();
    token = await api.signup('heartbeat-e2e');
    const m = await api.call('POST', '/api/users/alert-methods', { platform: 'webhook', is_enabled: true, platform_config: { webhook_url: `${hook.url}/hook` } }, token);
    expect(m.status).toBe(201);
  }, 60_000);
  afterAll(async () => {
    await stack?.stop();
    await hook?.close();
  });

  it('alerts at a local webhook receiver once, across a restart, and a ping resolves it', async () => {
    // every minute, no grace: pinged late in a minute, it is due at the next minute's start
    const created = await api.call('POST', '/api/users/endpoints', { name: 'Minutely job', kind: 'heartbeat', cron: '* * * * *', timezone: 'UTC', grace_seconds: 0 }, token);
    expect(created.status).toBe(201);
    const id = created.body.data.url_id as number;
    const sec = new Date().getUTCSeconds();
    if (sec < 45) await sleep((45 - sec) * 1000);
    const ping = await fetch(created.body.data.ping_url as string, { method: 'POST', body: 'run 1 ok' });
    expect([ping.status, await ping.text()]).toEqual([200, 'OK\n']);
    expect((await api.call('GET', `/api/users/endpoints/${id}`, undefined, token)).body.data.heartbeat_state).toBe('up');

    const opened = await waitFor('the incident.opened webhook', async () => ofType('incident.opened')[0], 40_000);
    const event = JSON.parse(opened.body);
    expect(event.endpoint).toMatchObject({ id, name: 'Minutely job' });
    expect(event.incident.cause).toMatch(/^no ping since /);
    expect((await api.call('GET', `/api/users/endpoints/${id}`, undefined, token)).body.data.heartbeat_state).toBe('down');

    // killed while down, started again on the same data: the miss is already counted
    const dataDir = stack.dataDir;
    await stack.kill();
    stack = await startStack({ dataDir });
    await sleep(7000); // more than one deadline check (every 5 s)
    expect(ofType('incident.opened')).toHaveLength(1);
    const open = (await api.call('GET', `/api/users/incidents?endpoint_id=${id}&status=open`, undefined, token)).body.data as unknown[];
    expect(open).toHaveLength(1);

    const url = (await api.call('GET', `/api/users/endpoints/${id}`, undefined, token)).body.data.ping_url as string;
    expect((await fetch(url)).status).toBe(200);
    await waitFor('the incident.resolved webhook', async () => ofType('incident.resolved')[0], 20_000);
    expect((await api.call('GET', `/api/users/incidents?endpoint_id=${id}&status=open`, undefined, token)).body.data).toHaveLength(0);
  }, 150_000);
});
