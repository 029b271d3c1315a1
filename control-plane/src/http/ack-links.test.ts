// The acknowledge link on the real control plane: a heartbeat fails, its webhook message carries
// `ack_url`; GET shows a confirmation page and changes nothing; POST acknowledges once, as "via
// link" by the recipient's method; replayed, tampered, another incident's or a resolved incident's
// link is refused with a page; tries are limited per address.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpReceiver, type HttpReceiver } from '../testing/alert-receivers';
import { startHarness, type Harness } from '../testing/harness';
import { ACK_LINK_TRIES_PER_MINUTE } from './routes/ack-links';

let h: Harness;
let hook: HttpReceiver;
let token: string;
let methodId: number;

beforeAll(async () => {
  hook = await startHttpReceiver(() => ({ status: 204 }));
  h = await startHarness();
  const a = await h.signup();
  await h.setPackage(a.user.email, 'Pro');
  token = a.token;
  methodId = (await h.call('POST', '/api/users/alert-methods', { platform: 'webhook', platform_config: { webhook_url: `${hook.url}/hook` } }, token)).body.data.alert_method_id;
});
afterAll(async () => {
  await h.close();
  await hook.close();
});

async function until<T>(get: () => T | undefined, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = get();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** A heartbeat that fails now: its incident and the ack_url its webhook message carried. */
async function failingHeartbeat(name: string): Promise<{ urlId: number; pingUrl: string; incidentId: number; ackUrl: string }> {
  const r = await h.call('POST', '/api/users/endpoints', { name, kind: 'heartbeat', period_seconds: 3600 }, token);
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  const pingUrl = r.body.data.ping_url as string;
  expect((await fetch(`${pingUrl}/fail`)).status).toBe(200);
  const body = await until(() => hook.requests.map((q) => JSON.parse(q.body) as Record<string, any>).find((b) => b.type === 'incident.opened' && b.endpoint.name === name));
  return { urlId: r.body.data.url_id, pingUrl, incidentId: body.incident.id, ackUrl: body.ack_url };
}

const page = async (url: string, method = 'GET') => {
  const res = await fetch(url, { method, headers: { accept: 'text/html' }, redirect: 'manual' });
  return { status: res.status, type: res.headers.get('content-type') ?? '', cache: res.headers.get('cache-control'), text: await res.text() };
};
const incident = async (id: number) => (await h.call('GET', `/api/users/incidents/${id}`, undefined, token)).body.data;

describe('acknowledge links', () => {
  it('GET shows the incident and a form and changes nothing; POST acknowledges once; a replay is refused', async () => {
    const { incidentId, ackUrl } = await failingHeartbeat('Nightly backup');
    expect(ackUrl).toMatch(new RegExp(`^${h.cp.url}/ack/${incidentId}\\.${methodId}\\.[A-Za-z0-9_-]{32}$`));

    for (let i = 0; i < 2; i++) {
      const shown = await page(ackUrl);
      expect(shown.status).toBe(200);
      expect(shown.type).toContain('text/html');
      expect(shown.cache).toBe('no-store');
      expect(shown.text).toContain('Acknowledge this incident?');
      expect(shown.text).toContain('Nightly backup');
      expect(shown.text).toContain(`<form method="post" action="${new URL(ackUrl).pathname}">`);
    }
    expect((await incident(incidentId)).state).toBe('open');
    expect(await h.cp.db.prepare('SELECT COUNT(*) FROM incident_events WHERE incident_id = ?').pluck().get(incidentId)).toBe(0);

    const done = await page(ackUrl, 'POST');
    expect(done.status).toBe(200);
    expect(done.text).toContain('Incident acknowledged');
    const after = await incident(incidentId);
    expect(after).toMatchObject({ state: 'acknowledged', acknowledged_by: { user_id: null, name: null, email: null, via: 'link' } });
    expect(after.timeline.find((e: any) => e.type === 'acknowledged')).toMatchObject({ alert_method_id: methodId, platform: 'webhook', detail: 'via link' });
    const at = after.acknowledged_at;

    const replay = await page(ackUrl, 'POST');
    expect(replay.status).toBe(409);
    expect(replay.text).toContain('Already acknowledged');
    expect((await page(ackUrl)).status).toBe(409);
    expect((await incident(incidentId)).acknowledged_at).toBe(at);
  });

  it('refuses a tampered token, another incident\'s id under a token, and a resolved incident\'s link, with a page, changing nothing', async () => {
    const a = await failingHeartbeat('Export job');
    const b = await failingHeartbeat('Import job');
    const [prefix, sig] = [a.ackUrl.slice(0, a.ackUrl.lastIndexOf('.') + 1), a.ackUrl.slice(a.ackUrl.lastIndexOf('.') + 1)];
    const tampered = `${prefix}${sig[0] === 'A' ? 'B' : 'A'}${sig.slice(1)}`;
    const otherIncident = a.ackUrl.replace(`/ack/${a.incidentId}.`, `/ack/${b.incidentId}.`);
    for (const url of [tampered, otherIncident, `${h.cp.url}/ack/not-a-token`, `${h.cp.url}/ack/${a.incidentId}.${methodId}`]) {
      for (const method of ['GET', 'POST']) {
        const r = await page(url, method);
        expect(r.status, `${method} ${url}`).toBe(404);
        expect(r.text).toContain('Link not valid');
      }
    }
    expect((await incident(a.incidentId)).state).toBe('open');
    expect((await incident(b.incidentId)).state).toBe('open');

    // b recovers: its link no longer acknowledges anything
    expect((await fetch(b.pingUrl)).status).toBe(200);
    await until(() => ((h.cp.db.prepare('SELECT resolved_at FROM incidents WHERE incident_id = ?').pluck().get(b.incidentId) as number | null) ?? undefined));
    for (const method of ['GET', 'POST']) {
      const r = await page(b.ackUrl, method);
      expect(r.status).toBe(410);
      expect(r.text).toContain('Incident resolved');
    }
    expect(await incident(b.incidentId)).toMatchObject({ state: 'resolved', acknowledged_at: null });
  });

  it('limits tries per address', async () => {
    const statuses: number[] = [];
    for (let i = 0; i <= ACK_LINK_TRIES_PER_MINUTE; i++) statuses.push((await page(`${h.cp.url}/ack/1.1.${'x'.repeat(32)}`)).status);
    expect(statuses).toContain(429);
    expect(statuses.filter((s) => s !== 404 && s !== 429)).toEqual([]);
  });
});
