// Storms over HTTP on the real control plane (real clock, the production hold): six heartbeat
// endpoints failing together reach a webhook as one grouped message; its group link asks on GET
// and acknowledges every open incident of the group on POST; the Incidents API shows the group and
// acknowledges it whole; the group threshold is a workspace's alert setting (admins, 2–100).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpReceiver, type HttpReceiver } from '../testing/alert-receivers';
import { startHarness, type Harness } from '../testing/harness';

let h: Harness;
let receiver: HttpReceiver;
beforeAll(async () => {
  receiver = await startHttpReceiver(() => ({ status: 204 }));
  h = await startHarness({}, { escalationTickMs: 100 });
});
afterAll(async () => {
  await h.close();
  await receiver.close();
});

const until = async (what: string, cond: () => boolean | Promise<boolean>, ms = 20_000) => {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
};

async function stormOf(n: number, path: string) {
  const s = await h.signup();
  await h.setPackage(s.user.email, 'Pro');
  await h.call('POST', '/api/users/alert-methods', { platform: 'webhook', platform_config: { webhook_url: `${receiver.url}/${path}` } }, s.token);
  const endpoints: Array<{ url_id: number; ping_url: string }> = [];
  for (let k = 0; k < n; k++) {
    const r = await h.call('POST', '/api/users/endpoints', { name: `Storm ${k + 1}`, kind: 'heartbeat', period_seconds: 3600 }, s.token);
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    endpoints.push(r.body.data);
  }
  await Promise.all(endpoints.map((e) => fetch(`${e.ping_url}/fail`)));
  const hooks = () => receiver.requests.filter((r) => r.path === `/${path}`).map((r) => JSON.parse(r.body));
  await until('the grouped message', () => hooks().length >= 1);
  return { s, endpoints, hooks };
}

describe('a storm over HTTP', () => {
  it('six failing together: one grouped webhook with each incident\'s link; the group link asks on GET and acknowledges all on POST', async () => {
    const { s, hooks } = await stormOf(6, 'storm-a');
    await new Promise((r) => setTimeout(r, 1500));
    expect(hooks()).toHaveLength(1);
    const [msg] = hooks();
    expect(msg).toMatchObject({ type: 'incident.group_opened', incident: null });
    expect(msg.incidents.map((i: { endpoint: { name: string } }) => i.endpoint.name).sort()).toEqual(['Storm 1', 'Storm 2', 'Storm 3', 'Storm 4', 'Storm 5', 'Storm 6']);
    expect(msg.incidents.every((i: { ack_url: string; incident: { id: number } }) => i.ack_url.includes(`/ack/${i.incident.id}.`))).toBe(true);
    const list = (await h.call('GET', '/api/users/incidents?status=open', undefined, s.token)).body.data as Array<{ incident_id: number; group_id: number; state: string }>;
    expect(list).toHaveLength(6);
    expect(list.every((i) => i.group_id === msg.group_id)).toBe(true);

    const link = (msg.ack_url as string).replace(/^https?:\/\/[^/]+/, h.cp.url);
    expect(link).toMatch(new RegExp(`/ack/g${msg.group_id}\\.`));
    const page = await fetch(link);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('Acknowledge these incidents?');
    expect(html).toContain('Storm 6');
    expect(((await h.call('GET', '/api/users/incidents?state=open', undefined, s.token)).body.data as unknown[]).length).toBe(6);
    // One incident acknowledged alone first: the group link takes the other five.
    expect((await h.call('POST', `/api/users/incidents/${list[0].incident_id}/acknowledge`, undefined, s.token)).status).toBe(200);
    const post = await fetch(link, { method: 'POST' });
    expect(post.status).toBe(200);
    expect(await post.text()).toContain('Incidents acknowledged');
    const after = (await h.call('GET', '/api/users/incidents', undefined, s.token)).body.data as Array<{ state: string; acknowledged_by: { via: string } }>;
    expect(after.map((i) => i.state)).toEqual(Array(6).fill('acknowledged'));
    expect(after.filter((i) => i.acknowledged_by.via === 'link')).toHaveLength(5);
    expect((await fetch(link, { method: 'POST' })).status).toBe(409);
    // The incident's timeline shows the grouped delivery it went out in.
    const detail = (await h.call('GET', `/api/users/incidents/${list[1].incident_id}`, undefined, s.token)).body.data;
    expect(detail.timeline.map((t: { type: string }) => t.type)).toEqual(expect.arrayContaining(['opened', 'grouped', 'delivery', 'acknowledged']));
  }, 60_000);

  it('acknowledges a group whole over the API, for an editor of the workspace only; another workspace\'s group is 404', async () => {
    const { s, hooks } = await stormOf(6, 'storm-b');
    const group = hooks()[0].group_id as number;
    const other = await h.signup();
    expect((await h.call('POST', `/api/users/incidents/groups/${group}/acknowledge`, undefined, other.token)).status).toBe(404);
    expect((await h.call('POST', '/api/users/incidents/groups/abc/acknowledge', undefined, s.token)).status).toBe(404);
    expect(((await h.call('GET', '/api/users/incidents?state=open', undefined, s.token)).body.data as unknown[]).length).toBe(6);
    const r = await h.call('POST', `/api/users/incidents/groups/${group}/acknowledge`, undefined, s.token);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.data.acknowledged).toHaveLength(6);
    expect(r.body.data.skipped).toEqual([]);
    const again = await h.call('POST', `/api/users/incidents/groups/${group}/acknowledge`, undefined, s.token);
    expect(again.body.data.acknowledged).toEqual([]);
    expect(again.body.data.skipped).toHaveLength(6);
  }, 60_000);

  it('the group threshold is an alert setting: default 5, 2–100, admins only; a bad value is 400 and changes nothing', async () => {
    const s = await h.signup();
    expect((await h.call('GET', '/api/users/alert-settings', undefined, s.token)).body).toEqual({ success: true, data: { group_threshold: 5 } });
    for (const bad of [1, 101, 2.5, '7', null]) {
      const r = await h.call('PUT', '/api/users/alert-settings', { group_threshold: bad }, s.token);
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ success: false, error: expect.stringContaining('group_threshold must be a whole number from 2 to 100') });
    }
    expect((await h.call('PUT', '/api/users/alert-settings', { group_threshold: 5, extra: 1 }, s.token)).status).toBe(400);
    expect((await h.call('GET', '/api/users/alert-settings', undefined, s.token)).body.data).toEqual({ group_threshold: 5 });
    const ok = await h.call('PUT', '/api/users/alert-settings', { group_threshold: 12 }, s.token);
    expect(ok.body).toEqual({ success: true, data: { group_threshold: 12 } });
    expect((await h.call('GET', '/api/users/alert-settings', undefined, s.token)).body.data).toEqual({ group_threshold: 12 });
    const other = await h.signup();
    expect((await h.call('GET', '/api/users/alert-settings', undefined, other.token)).body.data).toEqual({ group_threshold: 5 });
  });
});
