// PagerDuty as an alert platform on a real control plane: the routing key is a secret (encrypted at
// rest, masked in answers), and an incident triggers, acknowledges and resolves one PagerDuty alert
// through the Events API v2 of a local server, retried with the same dedup_key.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpReceiver, type HttpReceiver } from '../testing/alert-receivers';
import { startHarness, type Harness } from '../testing/harness';

const KEY = 'abcdEFGH0123456789abcdEFGH01wxyz';
let clock = Date.parse('2026-06-01T10:00:00Z');
let h: Harness;
let pd: HttpReceiver;

beforeAll(async () => {
  pd = await startHttpReceiver(() => ({ status: 202, body: { status: 'success', message: 'Event processed' } }));
  h = await startHarness({ PAGERDUTY_API_URL: pd.url }, { results: null, now: () => clock, alertingNow: () => clock, heartbeatTickMs: 3600_000, escalationTickMs: 50, stormHoldMs: 0 });
});
afterAll(async () => {
  await h.close();
  await pd.close();
});

async function until(cond: () => boolean, ms = 8000) {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('pagerduty alert method', () => {
  it('refuses a malformed routing key with 400, stores a good one encrypted and answers it masked', async () => {
    const { token } = await h.signup();
    const bad = await h.call('POST', '/api/users/alert-methods', { platform: 'pagerduty', platform_config: { routing_key: 'not-a-key' } }, token);
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ success: false, error: 'routing_key must be the 32-character integration key of a PagerDuty service (Events API v2)' });
    expect((await h.call('GET', '/api/users/alert-methods', undefined, token)).body.data).toEqual([]);
    const made = await h.call('POST', '/api/users/alert-methods', { platform: 'pagerduty', platform_config: { routing_key: KEY } }, token);
    expect(made.status).toBe(201);
    expect(made.body.data.platform_config).toEqual({ routing_key: `${'•'.repeat(28)}wxyz` });
    expect(JSON.stringify((await h.call('GET', '/api/users/alert-methods', undefined, token)).body)).not.toContain(KEY);
    const stored = h.cp.db.prepare('SELECT config_enc FROM alert_methods WHERE alert_method_id = ?').pluck().get(made.body.data.alert_method_id) as string;
    expect(stored).not.toContain(KEY);
  });

  it('triggers once per incident (a retry keeps the dedup_key), acknowledges when acknowledged, resolves on recovery', async () => {
    const s = await h.signup();
    await h.call('POST', '/api/users/alert-methods', { platform: 'pagerduty', platform_config: { routing_key: KEY } }, s.token);
    const e = (await h.call('POST', '/api/users/endpoints', { name: 'Payments', kind: 'heartbeat', period_seconds: 3600 }, s.token)).body.data;
    const mine = () => pd.requests.map((r) => JSON.parse(r.body)).filter((b) => b.payload?.component === 'Payments' || b.event_action !== 'trigger');
    // The first trigger fails: the outbox retries it.
    pd.script = () => (mine().length === 1 ? { status: 500, body: { status: 'error' } } : { status: 202, body: { status: 'success' } });
    await fetch(`${e.ping_url}/fail`);
    const [incident] = (await h.call('GET', `/api/users/incidents?endpoint_id=${e.url_id}`, undefined, s.token)).body.data;
    await until(() => mine().length === 1);
    pd.script = () => ({ status: 202, body: { status: 'success' } });
    clock += 15_000; // past the first retry's backoff
    await until(() => mine().length === 2);
    // Two members acknowledge at once: one wins, the other hears 409, and PagerDuty hears it once.
    const acks = await Promise.all([0, 1].map(() => h.call('POST', `/api/users/incidents/${incident.incident_id}/acknowledge`, undefined, s.token)));
    expect(acks.map((a) => a.status).sort()).toEqual([200, 409]);
    await until(() => mine().length === 3);
    expect((await fetch(e.ping_url)).status).toBe(200);
    await until(() => mine().length === 4);
    expect(mine().map((b) => [b.event_action, b.dedup_key, b.routing_key])).toEqual([
      ['trigger', String(incident.incident_id), KEY], ['trigger', String(incident.incident_id), KEY],
      ['acknowledge', String(incident.incident_id), KEY], ['resolve', String(incident.incident_id), KEY],
    ]);
  });
});
