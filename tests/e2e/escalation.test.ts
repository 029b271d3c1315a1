// On-call escalation end to end with real processes on loopback: a control plane (its own
// process, killed and restarted during the wait), a heartbeat endpoint whose failure ping opens
// the incident, a local webhook receiver and a local server speaking Slack's Web API. A two-step
// policy pages the webhook at once, Slack after a minute (across the restart), then a reminder in
// the Slack thread; the acknowledge link of a delivered message (GET asks, POST acknowledges) stops
// it and is told in the thread; the recovery updates
// the Slack root message and replies.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpReceiver, type HttpReceiver } from '../../control-plane/src/testing/alert-receivers';
import { apiFor, sleep, waitFor } from '../helpers/api';
import { startStack, type Stack } from '../helpers/start-stack';

const ROOT_TS = '1700000000.000200';

describe('an escalation policy across processes', () => {
  let stack: Stack;
  let hook: HttpReceiver;
  let slack: HttpReceiver;
  let token: string;
  const api = apiFor(() => stack);
  const env = () => ({ SLACK_API_URL: `${slack.url}/api` });

  beforeAll(async () => {
    hook = await startHttpReceiver(() => ({ status: 204 }));
    slack = await startHttpReceiver(() => ({ status: 200, body: { ok: true, channel: 'C0NCALL', ts: ROOT_TS } }));
    stack = await startStack({ env: env() });
    token = await api.signup('escalation-e2e', 'Pro');
  }, 60_000);
  afterAll(async () => {
    await stack?.stop();
    await hook?.close();
    await slack?.close();
  });

  it('pages the webhook, then Slack after the wait despite a restart, reminds in the thread, stops on acknowledgement, and resolves the root', async () => {
    const webhook = (await api.call('POST', '/api/users/alert-methods', { platform: 'webhook', platform_config: { webhook_url: `${hook.url}/hook` } }, token)).body.data.alert_method_id;
    const bot = (await api.call('POST', '/api/users/alert-methods', { platform: 'slack', platform_config: { bot_token: 'xoxb-e2e', channel: '#oncall' } }, token)).body.data.alert_method_id;
    const policy = await api.call('POST', '/api/users/escalation-policies', {
      name: 'Primary', steps: [{ wait_minutes: 0, alert_method_ids: [webhook] }, { wait_minutes: 1, alert_method_ids: [bot] }], repeat: 2, repeat_every_minutes: 1,
    }, token);
    expect(policy.status).toBe(201);
    const e = (await api.call('POST', '/api/users/endpoints', { name: 'Checkout', kind: 'heartbeat', period_seconds: 3600, escalation_policy_id: policy.body.data.escalation_policy_id }, token)).body.data;
    const posts = () => slack.requests.filter((r) => r.path === '/api/chat.postMessage').map((r) => JSON.parse(r.body) as Record<string, string>);

    expect((await fetch(`${e.ping_url}/fail`)).status).toBe(200);
    await waitFor('the webhook page', async () => hook.requests.length === 1, 20_000);
    const opened = Date.now();
    expect(JSON.parse(hook.requests[0].body)).toMatchObject({ type: 'incident.opened', step: 1, endpoint: { name: 'Checkout' } });

    // Killed during the wait: the step is still due when it comes back, and goes out once. (Killed
    // once the webhook's delivery is recorded: one killed between the send and its record is sent
    // again after the restart, at least once by design, which alerting.test.ts covers.)
    const [first] = (await api.call('GET', `/api/users/incidents?endpoint_id=${e.url_id}&status=open`, undefined, token)).body.data as Array<{ incident_id: number }>;
    await waitFor('the webhook delivery recorded', async () =>
      ((await api.call('GET', `/api/users/incidents/${first.incident_id}`, undefined, token)).body.data.timeline as Array<{ delivery: { status: string } | null }>)
        .some((t) => t.delivery?.status === 'delivered'), 10_000);
    const dataDir = stack.dataDir;
    await stack.kill();
    stack = await startStack({ dataDir, env: env() });
    await waitFor('Slack after the wait', async () => posts().length === 1, 90_000);
    expect(Date.now() - opened).toBeGreaterThanOrEqual(55_000);
    expect(posts()[0]).toMatchObject({ channel: '#oncall', text: expect.stringMatching(/^DOWN: Checkout/) });
    expect(posts()[0].thread_ts).toBeUndefined();

    await waitFor('a reminder in the thread', async () => posts().length === 2, 90_000);
    expect(posts()[1]).toMatchObject({ channel: 'C0NCALL', thread_ts: ROOT_TS, text: expect.stringMatching(/^REMINDER: Checkout is still down/) });
    expect(hook.requests).toHaveLength(1);

    // Acknowledged through the link of a delivered message (the Slack root's Acknowledge button):
    // a GET (what a link preview or a mail scanner does) shows the confirmation and changes nothing.
    const reminded = Date.now();
    const [incident] = (await api.call('GET', `/api/users/incidents?endpoint_id=${e.url_id}&status=open`, undefined, token)).body.data as Array<{ incident_id: number }>;
    const actions = (posts()[0] as unknown as { blocks: Array<{ type: string; elements?: Array<{ url?: string }> }> }).blocks.find((b) => b.type === 'actions')!;
    const link = actions.elements!.find((el) => el.url?.includes('/ack/'))!.url!;
    expect(link).toMatch(new RegExp(`/ack/${incident.incident_id}\\.${bot}\\.`));
    const ackUrl = link.replace(/^http:\/\/[^/]+/, stack.baseUrl);
    const page = await fetch(ackUrl);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Acknowledge this incident?');
    const state = async () => (await api.call('GET', `/api/users/incidents/${incident.incident_id}`, undefined, token)).body.data as { state: string; timeline: Array<{ type: string; detail: string }> };
    expect((await state()).state).toBe('open');
    const acked = await fetch(ackUrl, { method: 'POST' });
    expect(acked.status).toBe(200);
    expect(await acked.text()).toContain('Incident acknowledged');
    expect((await fetch(ackUrl, { method: 'POST' })).status).toBe(409);
    const detail = await state();
    expect(detail.state).toBe('acknowledged');
    expect(detail.timeline.filter((t) => t.type === 'acknowledged')).toEqual([expect.objectContaining({ detail: 'via link' })]);
    await waitFor('the acknowledgement in the thread', async () => posts().length === 3, 20_000);
    expect(posts()[2]).toMatchObject({ thread_ts: ROOT_TS, text: expect.stringMatching(/^Acknowledged by a member: Checkout/) });
    // Reminder 2 of 2 was due a minute after the first: past that, nothing more went out.
    await sleep(Math.max(0, reminded + 65_000 - Date.now()));
    expect(posts()).toHaveLength(3);
    expect(hook.requests).toHaveLength(1);
    expect((await state()).timeline.filter((t) => t.type === 'reminder')).toHaveLength(1);

    expect((await fetch(e.ping_url.replace(/^http:\/\/[^/]+/, stack.baseUrl))).status).toBe(200);
    await waitFor('the root message updated', async () => slack.requests.some((r) => r.path === '/api/chat.update'), 20_000);
    const update = JSON.parse(slack.requests.find((r) => r.path === '/api/chat.update')!.body);
    expect(update).toMatchObject({ channel: 'C0NCALL', ts: ROOT_TS, text: expect.stringMatching(/^RESOLVED: Checkout/), attachments: [{ color: '#1e8449', text: 'Resolved' }] });
    await waitFor('the resolve reply and webhook', async () => posts().length === 4 && hook.requests.length === 2, 20_000);
    expect(posts()[3]).toMatchObject({ thread_ts: ROOT_TS, text: expect.stringMatching(/^RESOLVED: Checkout/) });
    expect(JSON.parse(hook.requests[1].body).type).toBe('incident.resolved');
  }, 420_000);
});
