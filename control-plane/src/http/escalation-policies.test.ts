// Escalation policies and endpoint dependencies over REST on a real control plane: plan gating,
// workspace scoping, validation, endpoints naming a policy and a parent; then a policy run end to
// end with heartbeat endpoints (a failure ping opens the incident) and a fake clock, across
// restarts of the control plane on the same DATA_DIR: no step is skipped or repeated.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MESSAGES } from '@upfleet/proto/rest';
import { startHttpReceiver, type HttpReceiver } from '../testing/alert-receivers';
import { startHarness, type Harness } from '../testing/harness';

const MIN = 60_000;
let clock = Date.parse('2026-06-01T10:00:00Z');
let h: Harness;
let receiver: HttpReceiver;
let token: string;
let other: string;

beforeAll(async () => {
  receiver = await startHttpReceiver(() => ({ status: 200, body: { ok: true, ts: '1700000000.000100', channel: 'C1' } }));
  h = await startHarness({ SLACK_API_URL: `${receiver.url}/api` }, {
    results: null, now: () => clock, alertingNow: () => clock, heartbeatTickMs: 3600_000, escalationTickMs: 50, stormHoldMs: 0,
  });
  const a = await h.signup();
  await h.setPackage(a.user.email, 'Pro');
  token = a.token;
  const b = await h.signup();
  await h.setPackage(b.user.email, 'Pro');
  other = b.token;
});
afterAll(async () => {
  await h.close();
  await receiver.close();
});

const method = async (t: string, platform: string, platform_config: Record<string, string>) =>
  (await h.call('POST', '/api/users/alert-methods', { platform, is_enabled: true, platform_config }, t)).body.data.alert_method_id as number;
const policies = (t = token) => h.call('GET', '/api/users/escalation-policies', undefined, t);
const heartbeat = async (name: string, extra: Record<string, unknown> = {}) => {
  const r = await h.call('POST', '/api/users/endpoints', { name, kind: 'heartbeat', period_seconds: 3600, ...extra }, token);
  expect(r.status).toBe(201);
  return r.body.data as { url_id: number; ping_url: string; escalation_policy_id: number | null; depends_on: number | null };
};
async function until(cond: () => boolean, ms = 8000) {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 25));
  }
}
const settle = () => new Promise((r) => setTimeout(r, 400));

describe('escalation policies over REST', () => {
  let webhook: number;
  let slack: number;
  beforeAll(async () => {
    webhook = await method(token, 'webhook', { webhook_url: `${receiver.url}/hook` });
    slack = await method(token, 'slack', { bot_token: 'xoxb-escalation', channel: '#oncall' });
  });

  it('creates, lists, reads, replaces and deletes a policy', async () => {
    const body = { name: 'Primary on call', steps: [{ wait_minutes: 0, alert_method_ids: [webhook] }, { wait_minutes: 15, alert_method_ids: [slack, webhook] }], repeat: 2, repeat_every_minutes: 30 };
    const created = await h.call('POST', '/api/users/escalation-policies', body, token);
    expect(created.status).toBe(201);
    const id = created.body.data.escalation_policy_id;
    expect(created.body.data).toEqual({ escalation_policy_id: id, ...body, created_at: new Date(clock).toISOString() });
    expect((await policies()).body.data.map((p: any) => p.escalation_policy_id)).toContain(id);
    expect((await h.call('GET', `/api/users/escalation-policies/${id}`, undefined, token)).body.data.name).toBe('Primary on call');
    const put = await h.call('PUT', `/api/users/escalation-policies/${id}`, { name: 'Renamed', steps: [{ wait_minutes: 0, alert_method_ids: [slack] }] }, token);
    expect(put.status).toBe(200);
    expect(put.body.data).toMatchObject({ name: 'Renamed', steps: [{ wait_minutes: 0, alert_method_ids: [slack] }], repeat: 0 });
    expect((await h.call('DELETE', `/api/users/escalation-policies/${id}`, undefined, token)).body).toEqual({ success: true, data: { escalation_policy_id: id } });
    expect((await h.call('GET', `/api/users/escalation-policies/${id}`, undefined, token)).status).toBe(404);
  });

  it('refuses a plan without advanced alerts with 403 in the feature style, and creates nothing', async () => {
    const free = await h.signup();
    const m = await method(free.token, 'webhook', { webhook_url: `${receiver.url}/free` });
    const r = await h.call('POST', '/api/users/escalation-policies', { name: 'x', steps: [{ wait_minutes: 0, alert_method_ids: [m] }] }, free.token);
    expect(r.status).toBe(403);
    expect(r.body).toEqual({ success: false, error: MESSAGES.escalationNotInPlan });
    expect((await policies(free.token)).body.data).toEqual([]);
  });

  it('refuses methods of another workspace with 400, and another workspace cannot see, change or delete a policy', async () => {
    const theirs = await method(other, 'webhook', { webhook_url: `${receiver.url}/theirs` });
    const r = await h.call('POST', '/api/users/escalation-policies', { name: 'x', steps: [{ wait_minutes: 0, alert_method_ids: [webhook, theirs] }] }, token);
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ success: false, error: `Alert method ${theirs} is not an alert method of this workspace` });
    const mine = (await h.call('POST', '/api/users/escalation-policies', { name: 'Mine', steps: [{ wait_minutes: 0, alert_method_ids: [webhook] }] }, token)).body.data;
    const id = mine.escalation_policy_id;
    expect((await h.call('GET', `/api/users/escalation-policies/${id}`, undefined, other)).status).toBe(404);
    expect((await h.call('PUT', `/api/users/escalation-policies/${id}`, { name: 'Stolen', steps: [{ wait_minutes: 0, alert_method_ids: [theirs] }] }, other)).status).toBe(404);
    expect((await h.call('DELETE', `/api/users/escalation-policies/${id}`, undefined, other)).status).toBe(404);
    expect((await policies(other)).body.data).toEqual([]);
    expect((await h.call('GET', `/api/users/escalation-policies/${id}`, undefined, token)).body.data).toEqual(mine);
  });

  it.each([
    [{ name: 'x', steps: [] }, 'A policy needs at least one step'],
    [{ name: 'x', steps: [{ wait_minutes: -1, alert_method_ids: [1] }] }, 'wait_minutes must be a whole number of minutes from 0 to 1440'],
    [{ name: 'x', steps: [{ wait_minutes: 0, alert_method_ids: [] }] }, 'Each step needs at least one alert method'],
    [{ name: 'x', steps: [{ wait_minutes: 0, alert_method_ids: [1] }], repeat: 11, repeat_every_minutes: 5 }, 'repeat must be a whole number from 0 to 10'],
    [{ name: 'x', steps: [{ wait_minutes: 0, alert_method_ids: [1] }], repeat: 2 }, 'repeat_every_minutes is required when repeat is above 0'],
    [{ steps: [{ wait_minutes: 0, alert_method_ids: [1] }] }, 'Name is required'],
  ])('answers 400 for %j', async (body, error) => {
    const before = (await policies()).body.data.length;
    const r = await h.call('POST', '/api/users/escalation-policies', body, token);
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ success: false, error });
    expect((await policies()).body.data).toHaveLength(before);
  });
});

describe('endpoints name a policy and a parent', () => {
  let policyId: number;
  beforeAll(async () => {
    const m = await method(token, 'email', { email_address: 'oncall@example.com' });
    policyId = (await h.call('POST', '/api/users/escalation-policies', { name: 'Links', steps: [{ wait_minutes: 0, alert_method_ids: [m] }] }, token)).body.data.escalation_policy_id;
  });

  it('saves escalation_policy_id on create, keeps it on an update without it, clears it with null or when the policy is deleted', async () => {
    const e = await heartbeat('With policy', { escalation_policy_id: policyId });
    expect(e.escalation_policy_id).toBe(policyId);
    const list = (await h.call('GET', '/api/users/endpoints-with-uptime', undefined, token)).body.data as any[];
    expect(list.find((x) => x.url_id === e.url_id).escalation_policy_id).toBe(policyId);
    const kept = await h.call('PUT', `/api/users/endpoints/${e.url_id}`, { name: 'Renamed', kind: 'heartbeat', period_seconds: 3600 }, token);
    expect(kept.body.data.escalation_policy_id).toBe(policyId);
    const cleared = await h.call('PUT', `/api/users/endpoints/${e.url_id}`, { name: 'Renamed', kind: 'heartbeat', period_seconds: 3600, escalation_policy_id: null }, token);
    expect(cleared.body.data.escalation_policy_id).toBeNull();
    await h.call('PUT', `/api/users/endpoints/${e.url_id}`, { name: 'Renamed', kind: 'heartbeat', period_seconds: 3600, escalation_policy_id: policyId }, token);
    const doomed = (await h.call('POST', '/api/users/escalation-policies', { name: 'Doomed', steps: [{ wait_minutes: 0, alert_method_ids: (await policies()).body.data[0].steps[0].alert_method_ids }] }, token)).body.data.escalation_policy_id;
    await h.call('PUT', `/api/users/endpoints/${e.url_id}`, { name: 'Renamed', kind: 'heartbeat', period_seconds: 3600, escalation_policy_id: doomed }, token);
    await h.call('DELETE', `/api/users/escalation-policies/${doomed}`, undefined, token);
    expect((await h.call('GET', `/api/users/endpoints/${e.url_id}`, undefined, token)).body.data.escalation_policy_id).toBeNull();
  });

  it('refuses another workspace\'s policy with 400 and saves nothing', async () => {
    const theirMethod = await method(other, 'email', { email_address: 'them@example.com' });
    const theirs = (await h.call('POST', '/api/users/escalation-policies', { name: 'Theirs', steps: [{ wait_minutes: 0, alert_method_ids: [theirMethod] }] }, other)).body.data.escalation_policy_id;
    const before = (await h.call('GET', '/api/users/endpoints-with-uptime', undefined, token)).body.data.length;
    const r = await h.call('POST', '/api/users/endpoints', { name: 'Sneaky', kind: 'heartbeat', period_seconds: 3600, escalation_policy_id: theirs }, token);
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ success: false, error: 'escalation_policy_id must be the id of one of your escalation policies, or null' });
    expect((await h.call('GET', '/api/users/endpoints-with-uptime', undefined, token)).body.data).toHaveLength(before);
  });

  it('refuses depending on itself, on another workspace\'s endpoint and a cycle with 400, and accepts a chain', async () => {
    const a = await heartbeat('A');
    const b = await heartbeat('B', { depends_on: a.url_id });
    expect(b.depends_on).toBe(a.url_id);
    const c = await heartbeat('C', { depends_on: b.url_id });
    const put = (id: number, depends_on: number | null) => h.call('PUT', `/api/users/endpoints/${id}`, { name: 'X', kind: 'heartbeat', period_seconds: 3600, depends_on }, token);
    expect((await put(a.url_id, a.url_id)).body).toEqual({ success: false, error: 'An endpoint cannot depend on itself' });
    expect((await put(a.url_id, c.url_id)).body).toEqual({ success: false, error: 'depends_on would make a cycle: that endpoint depends on this one' });
    const theirs = (await h.call('POST', '/api/users/endpoints', { name: 'Theirs', kind: 'heartbeat', period_seconds: 3600 }, other)).body.data.url_id;
    const r = await put(a.url_id, theirs);
    expect(r.status).toBe(400);
    expect(r.body.error).toBe('depends_on must be the url_id of another of your endpoints, or null');
    expect((await h.call('GET', `/api/users/endpoints/${a.url_id}`, undefined, token)).body.data).toMatchObject({ name: 'A', depends_on: null });
    // Deleting the parent leaves its child depending on nothing.
    await h.call('DELETE', `/api/users/endpoints/${b.url_id}`, undefined, token);
    expect((await h.call('GET', `/api/users/endpoints/${c.url_id}`, undefined, token)).body.data.depends_on).toBeNull();
  });

  it('a child failing while its parent is down shows suppressed_by in the incident list and pages nobody', async () => {
    const parent = await heartbeat('Router');
    const child = await heartbeat('Shop', { depends_on: parent.url_id });
    const sentBefore = receiver.requests.length;
    await fetch(`${parent.ping_url}/fail`);
    await fetch(`${child.ping_url}/fail`);
    const list = async (id: number) => (await h.call('GET', `/api/users/incidents?endpoint_id=${id}`, undefined, token)).body.data as any[];
    const [p] = await list(parent.url_id);
    const [c] = await list(child.url_id);
    expect(p.suppressed_by).toBeNull();
    expect(c.suppressed_by).toBe(p.incident_id);
    await until(() => receiver.requests.length > sentBefore);
    await settle();
    // Only the parent's opening went out (to each enabled method of the workspace), none for the child.
    expect(receiver.requests.slice(sentBefore).filter((r) => r.body.includes('Shop'))).toEqual([]);
  });
});

describe('a policy run across restarts', () => {
  it('pages step 1, then step 2 after the wait though the control plane restarted in between, once, then a reminder; acknowledgement stops it', async () => {
    const w = await h.signup();
    await h.setPackage(w.user.email, 'Pro');
    const hook = (await h.call('POST', '/api/users/alert-methods', { platform: 'webhook', is_enabled: true, platform_config: { webhook_url: `${receiver.url}/run-hook` } }, w.token)).body.data.alert_method_id;
    const slack = (await h.call('POST', '/api/users/alert-methods', { platform: 'slack', is_enabled: true, platform_config: { bot_token: 'xoxb-run', channel: '#run' } }, w.token)).body.data.alert_method_id;
    const policy = (await h.call('POST', '/api/users/escalation-policies', {
      name: 'Run', steps: [{ wait_minutes: 0, alert_method_ids: [hook] }, { wait_minutes: 5, alert_method_ids: [slack] }], repeat: 3, repeat_every_minutes: 10,
    }, w.token)).body.data.escalation_policy_id;
    const e = (await h.call('POST', '/api/users/endpoints', { name: 'Checkout', kind: 'heartbeat', period_seconds: 3600, escalation_policy_id: policy }, w.token)).body.data;
    const hooks = () => receiver.requests.filter((r) => r.path === '/run-hook');
    const slacks = () => receiver.requests.filter((r) => r.path === '/api/chat.postMessage' && r.headers.authorization === 'Bearer xoxb-run');

    await fetch(`${e.ping_url}/fail`);
    await until(() => hooks().length === 1);
    await settle();
    expect(slacks()).toHaveLength(0);

    // Down over the wait: step 2 is due when it comes back, and goes out once.
    await h.restart(() => { clock += 5 * MIN; });
    await until(() => slacks().length === 1);
    await h.restart();
    await settle();
    expect(slacks()).toHaveLength(1);
    expect(hooks()).toHaveLength(1);

    clock += 10 * MIN;
    await until(() => slacks().length === 2);
    // The root message's ts was stored before the restarts: the reminder replies in its thread.
    const root = JSON.parse(slacks()[0].body);
    expect(root).toMatchObject({ channel: '#run', attachments: [{ color: '#c0392b' }] });
    expect(root.thread_ts).toBeUndefined();
    expect(JSON.parse(slacks()[1].body)).toMatchObject({ channel: 'C1', thread_ts: '1700000000.000100', text: expect.stringMatching(/^REMINDER: Checkout is still down/) });
    expect(slacks()[1].headers['content-type']).toMatch(/^application\/json/);
    expect(slacks()[1].body).not.toContain('xoxb-run');

    const [incident] = (await h.call('GET', `/api/users/incidents?endpoint_id=${e.url_id}`, undefined, w.token)).body.data;
    expect((await h.call('POST', `/api/users/incidents/${incident.incident_id}/acknowledge`, undefined, w.token)).status).toBe(200);
    await until(() => slacks().length === 3);
    expect(JSON.parse(slacks()[2].body)).toMatchObject({ thread_ts: '1700000000.000100', text: expect.stringMatching(new RegExp(`^Acknowledged by ${w.user.username}: Checkout`)) });
    clock += 60 * MIN;
    await h.restart();
    await settle();
    expect(slacks()).toHaveLength(3);
    expect(hooks()).toHaveLength(1);

    // Recovery: the root message turns green and says resolved, a reply follows; the webhook hears it too.
    expect((await fetch(e.ping_url.replace(/^http:\/\/[^/]+/, h.cp.url))).status).toBe(200);
    const updates = () => receiver.requests.filter((r) => r.path === '/api/chat.update' && r.headers.authorization === 'Bearer xoxb-run');
    await until(() => updates().length === 1 && slacks().length === 4 && hooks().length === 2);
    expect(JSON.parse(updates()[0].body)).toMatchObject({
      channel: 'C1', ts: '1700000000.000100', text: expect.stringMatching(/^RESOLVED: Checkout is back after/), attachments: [{ color: '#1e8449', text: 'Resolved' }],
    });
    expect(JSON.parse(slacks()[3].body)).toMatchObject({ thread_ts: '1700000000.000100', text: expect.stringMatching(/^RESOLVED: Checkout/) });
    const steps = h.cp.db.prepare('SELECT step, event FROM alert_deliveries WHERE incident_id = ? ORDER BY delivery_id').all(incident.incident_id);
    expect(steps).toEqual([
      { step: 1, event: 'opened' }, { step: 2, event: 'opened' }, { step: 2, event: 'reminder' }, { step: null, event: 'acknowledged' },
      { step: null, event: 'resolved' }, { step: null, event: 'resolved' },
    ]);
  });
});
