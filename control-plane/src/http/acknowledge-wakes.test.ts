// One acknowledge path that ends the escalation at once: with the escalation worker polling only
// once a minute, an acknowledgement in the app, through a message's link, or a race of two still
// reaches PagerDuty within seconds and once, and records one timeline entry.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpReceiver, type HttpReceiver } from '../testing/alert-receivers';
import { startHarness, type Harness } from '../testing/harness';

let h: Harness;
let pd: HttpReceiver;
beforeAll(async () => {
  pd = await startHttpReceiver(() => ({ status: 202, body: { status: 'success' } }));
  h = await startHarness({ PAGERDUTY_API_URL: pd.url }, { heartbeatTickMs: 3600_000, escalationTickMs: 60_000, stormHoldMs: 0 });
});
afterAll(async () => {
  await h.close();
  await pd.close();
});

async function until(cond: () => boolean, ms: number) {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function pagedIncident(name: string) {
  const s = await h.signup();
  await h.call('POST', '/api/users/alert-methods', { platform: 'pagerduty', platform_config: { routing_key: 'abcdEFGH0123456789abcdEFGH01wxyz' } }, s.token);
  await h.call('POST', '/api/users/alert-methods', { platform: 'webhook', platform_config: { webhook_url: `${pd.url}/hook/${name}` } }, s.token);
  const e = (await h.call('POST', '/api/users/endpoints', { name, kind: 'heartbeat', period_seconds: 3600 }, s.token)).body.data;
  await fetch(`${e.ping_url}/fail`);
  const [incident] = (await h.call('GET', `/api/users/incidents?endpoint_id=${e.url_id}`, undefined, s.token)).body.data as Array<{ incident_id: number }>;
  const events = () => pd.requests.filter((r) => r.path === '/v2/enqueue').map((r) => JSON.parse(r.body)).filter((b) => b.dedup_key === String(incident.incident_id)).map((b) => b.event_action as string);
  const hooks = () => pd.requests.filter((r) => r.path === `/hook/${name}`).map((r) => JSON.parse(r.body) as { type: string; ack_url?: string });
  await until(() => events().length === 1 && hooks().length === 1, 8000);
  return { s, incident, events, hooks };
}

describe('acknowledging wakes the escalation worker', () => {
  it('two acknowledgements racing in the app: one wins, PagerDuty hears acknowledge once within 2 s, one timeline entry', async () => {
    const { s, incident, events } = await pagedIncident('Race');
    const t = Date.now();
    const answers = await Promise.all([0, 1, 2].map(() => h.call('POST', `/api/users/incidents/${incident.incident_id}/acknowledge`, undefined, s.token)));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409, 409]);
    await until(() => events().length === 2, 2000);
    expect(Date.now() - t).toBeLessThan(2000);
    await new Promise((r) => setTimeout(r, 500));
    expect(events()).toEqual(['trigger', 'acknowledge']);
    const detail = (await h.call('GET', `/api/users/incidents/${incident.incident_id}`, undefined, s.token)).body.data;
    expect(detail.timeline.filter((e: { type: string }) => e.type === 'acknowledged')).toHaveLength(1);
  });

  it('the link of the delivered message, POSTed twice at once: acknowledged once, told once, at once', async () => {
    const { incident, events, hooks } = await pagedIncident('Linked');
    const url = hooks()[0].ack_url!.replace(/^https?:\/\/[^/]+/, h.cp.url);
    expect(url).toContain(`/ack/${incident.incident_id}.`);
    const posts = await Promise.all([0, 1].map(() => fetch(url, { method: 'POST' })));
    expect(posts.map((p) => p.status).sort()).toEqual([200, 409]);
    await until(() => events().length === 2, 2000);
    expect(events()).toEqual(['trigger', 'acknowledge']);
  });
});
