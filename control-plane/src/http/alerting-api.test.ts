// REST for alerting: test sends, deliveries, incidents, write-only secrets, webhook signing secrets.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpReceiver, type HttpReceiver } from '../testing/alert-receivers';
import { startHarness, type Harness } from '../testing/harness';
import { SMS_TEST_NEEDS_PLAN, TEST_SEND_LIMITED } from '../alerting/settings';

let h: Harness;
let receiver: HttpReceiver;
beforeAll(async () => {
  receiver = await startHttpReceiver();
  h = await startHarness({
    SLACK_API_URL: receiver.url,
    TWILIO_API_URL: receiver.url, TWILIO_ACCOUNT_SID: 'AC123', TWILIO_AUTH_TOKEN: 'twilio-token', TWILIO_FROM: '+15550001111',
  });
});
afterAll(async () => {
  await h.close();
  await receiver.close();
});

const create = (token: string, platform: string, platform_config: Record<string, string>) =>
  h.call('POST', '/api/users/alert-methods', { platform, is_enabled: true, platform_config }, token);

describe('alert method secrets', () => {
  it('masks bot tokens, webhook URL paths and phone numbers in GET, all but the last 4 characters', async () => {
    const { token } = await h.signup();
    await create(token, 'slack', { bot_token: 'xoxb-1234567890', channel: '#ops' });
    await create(token, 'discord', { webhook_url: 'https://discord.com/api/webhooks/1/secret-part-wxyz' });
    await create(token, 'sms', { phone_number: '+4917012345678' });
    await create(token, 'email', { email_address: 'ops@example.com' });
    const list = (await h.call('GET', '/api/users/alert-methods', undefined, token)).body.data;
    const cfg = Object.fromEntries(list.map((m: any) => [m.platform, m.platform_config]));
    expect(cfg.slack).toEqual({ bot_token: `${'•'.repeat(11)}7890`, channel: '#ops' });
    expect(cfg.discord.webhook_url).toBe(`https://discord.com/${'•'.repeat(27)}wxyz`);
    expect(cfg.sms.phone_number).toBe(`${'•'.repeat(10)}5678`);
    expect(cfg.email).toEqual({ email_address: 'ops@example.com' });
    expect(JSON.stringify(list)).not.toContain('secret-part');
  });

  it('keeps the stored secret when a PUT sends the masked value back, and replaces it when a new one is sent', async () => {
    const { token } = await h.signup();
    const created = await create(token, 'slack', { bot_token: 'xoxb-original-token', channel: '#ops' });
    const id = created.body.data.alert_method_id;
    const masked = created.body.data.platform_config.bot_token;
    const put = await h.call('PUT', `/api/users/alert-methods/${id}`, { platform: 'slack', is_enabled: true, platform_config: { bot_token: masked, channel: '#alerts' } }, token);
    expect(put.status).toBe(200);
    expect(put.body.data.platform_config).toEqual({ bot_token: masked, channel: '#alerts' });
    // The stored token still works: a test send carries the original.
    receiver.script = () => ({ status: 200, body: { ok: true } });
    expect((await h.call('POST', `/api/users/alert-methods/${id}/test`, undefined, token)).body).toEqual({ success: true, data: { delivered: true } });
    expect(receiver.requests.at(-1)!.headers.authorization).toBe('Bearer xoxb-original-token');
    await h.call('PUT', `/api/users/alert-methods/${id}`, { platform: 'slack', is_enabled: true, platform_config: { bot_token: 'xoxb-replaced', channel: '#alerts' } }, token);
    await h.call('POST', `/api/users/alert-methods/${id}/test`, undefined, token);
    expect(receiver.requests.at(-1)!.headers.authorization).toBe('Bearer xoxb-replaced');
  });

  it('returns a webhook signing secret once on create and again on request, never in the list', async () => {
    const { token } = await h.signup();
    const created = await create(token, 'webhook', { webhook_url: `${receiver.url}/hook` });
    expect(created.status).toBe(201);
    const secret = created.body.data.signing_secret;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    const id = created.body.data.alert_method_id;
    const list = await h.call('GET', '/api/users/alert-methods', undefined, token);
    expect(JSON.stringify(list.body)).not.toContain(secret.slice(6));
    const shown = await h.call('GET', `/api/users/alert-methods/${id}/signing-secret`, undefined, token);
    expect(shown.body).toEqual({ success: true, data: { signing_secret: secret } });
    // Editing the URL keeps the secret.
    await h.call('PUT', `/api/users/alert-methods/${id}`, { platform: 'webhook', is_enabled: true, platform_config: { webhook_url: `${receiver.url}/other` } }, token);
    expect((await h.call('GET', `/api/users/alert-methods/${id}/signing-secret`, undefined, token)).body.data.signing_secret).toBe(secret);
    const other = await h.signup();
    expect((await h.call('GET', `/api/users/alert-methods/${id}/signing-secret`, undefined, other.token)).status).toBe(404);
  });
});

describe('test sends and deliveries', () => {
  it('answers delivered: true, or the provider\'s reason, and lists both in the method\'s deliveries', async () => {
    const { token } = await h.signup();
    const id = (await create(token, 'slack', { bot_token: 'xoxb-t', channel: '#ops' })).body.data.alert_method_id;
    receiver.script = () => ({ status: 200, body: { ok: true } });
    const good = await h.call('POST', `/api/users/alert-methods/${id}/test`, undefined, token);
    expect(good.body).toEqual({ success: true, data: { delivered: true } });
    expect(JSON.parse(receiver.requests.at(-1)!.body).text).toContain('test message from Upfleet');
    receiver.script = () => ({ status: 200, body: { ok: false, error: 'channel_not_found' } });
    const bad = await h.call('POST', `/api/users/alert-methods/${id}/test`, undefined, token);
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ success: false, error: 'Slack: channel_not_found' });
    const deliveries = await h.call('GET', `/api/users/alert-methods/${id}/deliveries`, undefined, token);
    expect(deliveries.body.data.map((d: any) => [d.event, d.status, d.attempts, d.last_error])).toEqual([
      ['test', 'failed', 1, 'Slack: channel_not_found'],
      ['test', 'delivered', 1, null],
    ]);
  });

  it('says when email is not configured on this server', async () => {
    const { token } = await h.signup();
    const id = (await create(token, 'email', { email_address: 'ops@example.com' })).body.data.alert_method_id;
    const r = await h.call('POST', `/api/users/alert-methods/${id}/test`, undefined, token);
    expect(r.body).toEqual({ success: false, error: 'Email is not configured on this server' });
  });

  it('answers 404 for another user\'s method', async () => {
    const a = await h.signup();
    const b = await h.signup();
    const id = (await create(a.token, 'slack', { bot_token: 'x', channel: 'c' })).body.data.alert_method_id;
    expect((await h.call('POST', `/api/users/alert-methods/${id}/test`, undefined, b.token)).status).toBe(404);
    expect((await h.call('GET', `/api/users/alert-methods/${id}/deliveries`, undefined, b.token)).status).toBe(404);
  });
});

describe('test send limits (25 back-to-back test sends must not be 25 SMS at the operator\'s cost)', () => {
  it('sends SMS tests only on a plan with advanced alerts, 5 per method and per user in 10 minutes, then 429 with Retry-After', async () => {
    receiver.script = () => ({ status: 201, body: { sid: 'SM1' } });
    const s = await h.signup();
    const sms = (await create(s.token, 'sms', { phone_number: '+4917012345678' })).body.data.alert_method_id;
    const texts = () => receiver.requests.filter((r) => r.path.endsWith('/Messages.json')).length;
    const before = texts();
    const free = await h.call('POST', `/api/users/alert-methods/${sms}/test`, undefined, s.token);
    expect([free.status, free.body]).toEqual([403, { success: false, error: SMS_TEST_NEEDS_PLAN }]);
    await h.setPackage(s.user.email, 'Pro');
    const answers = [];
    for (let i = 0; i < 25; i++) answers.push(await h.call('POST', `/api/users/alert-methods/${sms}/test`, undefined, s.token));
    expect(answers.map((a) => a.status)).toEqual([...Array(5).fill(200), ...Array(20).fill(429)]);
    expect(answers[5].body).toEqual({ success: false, error: TEST_SEND_LIMITED });
    const retry = Number(answers[5].headers.get('retry-after'));
    expect(retry).toBeGreaterThan(0);
    expect(retry).toBeLessThanOrEqual(600);
    expect(texts()).toBe(before + 5);
    // the user's allowance is spent for their other methods too; another user's is untouched
    receiver.script = () => ({ status: 200, body: { ok: true } });
    const slack = (await create(s.token, 'slack', { bot_token: 'xoxb-s', channel: '#ops' })).body.data.alert_method_id;
    expect((await h.call('POST', `/api/users/alert-methods/${slack}/test`, undefined, s.token)).status).toBe(429);
    const o = await h.signup();
    const theirs = (await create(o.token, 'slack', { bot_token: 'xoxb-o', channel: '#ops' })).body.data.alert_method_id;
    expect((await h.call('POST', `/api/users/alert-methods/${theirs}/test`, undefined, o.token)).status).toBe(200);
  });
});

describe('incidents', () => {
  it('lists the owner\'s incidents newest first, filtered by endpoint and status, and rejects bad filters', async () => {
    const a = await h.signup();
    const b = await h.signup();
    const e1 = (await h.call('POST', '/api/users/endpoints', { name: 'One', url: 'https://one.example.com/' }, a.token)).body.data.url_id;
    const e2 = (await h.call('POST', '/api/users/endpoints', { name: 'Two', url: 'https://two.example.com/' }, a.token)).body.data.url_id;
    const ins = h.cp.db.prepare('INSERT INTO incidents (user_id, url_id, condition, regions, cause, opened_at, resolved_at) VALUES (?, ?, ?, ?, ?, ?, ?)');
    ins.run(a.user.id, e1, 'down', '["EU - Germany"]', 'HTTP 503 from EU - Germany', 1000, 5000);
    ins.run(a.user.id, e1, 'down', '["EU - Germany"]', 'HTTP 500 from EU - Germany', 9000, null);
    ins.run(a.user.id, e2, 'down', '["EU - Germany"]', 'timeout after 9 s from EU - Germany', 7000, null);
    const all = await h.call('GET', '/api/users/incidents', undefined, a.token);
    expect(all.body.data.map((i: any) => i.cause)).toEqual(['HTTP 500 from EU - Germany', 'timeout after 9 s from EU - Germany', 'HTTP 503 from EU - Germany']);
    expect(all.body.data[0]).toMatchObject({ url_id: e1, condition: 'down', regions: ['EU - Germany'], resolved_at: null, opened_at: new Date(9000).toISOString(), flapping: false });
    const open = await h.call('GET', `/api/users/incidents?endpoint_id=${e1}&status=open`, undefined, a.token);
    expect(open.body.data.map((i: any) => i.cause)).toEqual(['HTTP 500 from EU - Germany']);
    const resolved = await h.call('GET', `/api/users/incidents?endpoint_id=${e1}&status=resolved`, undefined, a.token);
    expect(resolved.body.data.map((i: any) => i.resolved_at)).toEqual([new Date(5000).toISOString()]);
    expect((await h.call('GET', '/api/users/incidents', undefined, b.token)).body.data).toEqual([]);
    expect((await h.call('GET', `/api/users/incidents?endpoint_id=${e1}`, undefined, b.token)).body.data).toEqual([]);
    for (const q of ['status=closed', 'endpoint_id=abc', 'endpoint_id=-1']) {
      const r = await h.call('GET', `/api/users/incidents?${q}`, undefined, a.token);
      expect(r.status, q).toBe(400);
      expect(r.body.success).toBe(false);
    }
  });

  it('resolves an endpoint\'s open incidents without notifying when its monitoring is disabled or it is deleted', async () => {
    const { token, user } = await h.signup();
    await create(token, 'slack', { bot_token: 'x', channel: 'c' });
    const e1 = (await h.call('POST', '/api/users/endpoints', { name: 'One', url: 'https://one.example.com/' }, token)).body.data.url_id;
    const e2 = (await h.call('POST', '/api/users/endpoints', { name: 'Two', url: 'https://two.example.com/' }, token)).body.data.url_id;
    const ins = h.cp.db.prepare('INSERT INTO incidents (user_id, url_id, condition, regions, cause, opened_at) VALUES (?, ?, ?, ?, ?, ?)');
    ins.run(user.id, e1, 'down', '[]', 'HTTP 503 from EU - Germany', 1000);
    ins.run(user.id, e2, 'down', '[]', 'HTTP 503 from EU - Germany', 1000);
    const before = receiver.requests.length;
    await h.call('PATCH', `/api/users/endpoints/${e1}/toggle`, { monitoring_enabled: false }, token);
    await h.call('DELETE', `/api/users/endpoints/${e2}`, undefined, token);
    const list = (await h.call('GET', '/api/users/incidents?status=open', undefined, token)).body.data;
    expect(list).toEqual([]);
    expect(h.cp.db.prepare("SELECT COUNT(*) FROM alert_deliveries WHERE event != 'test'").pluck().get()).toBe(0);
    expect(receiver.requests.length).toBe(before);
  });
});
