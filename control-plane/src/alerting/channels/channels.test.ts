// Each channel against a local server speaking its provider's wire format (SMTP: a real SMTP server).
import crypto from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { startHttpReceiver, startSmtpReceiver, type HttpReceiver, type SmtpReceiver } from '../../testing/alert-receivers';
import type { AlertEvent, OutgoingMessage } from '../types';
import { createDiscordChannel } from './discord';
import { createEmailChannel, EMAIL_NOT_CONFIGURED } from './email';
import { createHttpSender, TARGET_NOT_ALLOWED } from './http';
import { createPagerDutyChannel } from './pagerduty';
import { createSlackChannel } from './slack';
import { createSmsChannel, SMS_NOT_CONFIGURED } from './sms';
import { createTeamsChannel } from './teams';
import { createTelegramChannel } from './telegram';
import { createSigningSecret, createWebhookChannel } from './webhook';

const opened: AlertEvent = {
  type: 'incident.opened',
  occurred_at: '2026-11-23T10:00:20.000Z',
  incident: { id: 7, condition: 'down', cause: 'HTTP 503 from EU - Germany', regions: ['EU - Germany'], opened_at: '2026-11-23T10:00:20.000Z', resolved_at: null, flapping: false },
  endpoint: { id: 3, name: 'Shop', url: 'https://shop.example.com/' },
};
const resolved: AlertEvent = {
  ...opened, type: 'incident.resolved', occurred_at: '2026-11-23T10:03:40.000Z',
  incident: { ...opened.incident!, resolved_at: '2026-11-23T10:03:40.000Z' },
};
const msg = (event: AlertEvent = opened): OutgoingMessage => ({ id: 'inc7-opened-m1', event });
const PUBLIC_URL = 'https://upfleet.example.com';
const open = createHttpSender({ allowPrivateTargets: true });

let receiver: HttpReceiver | null = null;
let smtp: SmtpReceiver | null = null;
afterEach(async () => {
  await receiver?.close();
  await smtp?.close();
  receiver = null;
  smtp = null;
});

/** Standard Webhooks verification, written from the spec, independent of the sender's code. */
function verifyStandardWebhook(secret: string, headers: Record<string, unknown>, body: string): boolean {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = crypto.createHmac('sha256', key).update(`${String(headers['webhook-id'])}.${String(headers['webhook-timestamp'])}.${body}`).digest('base64');
  return String(headers['webhook-signature']).split(' ').some((s) => s === `v1,${expected}`);
}

describe('webhook channel', () => {
  it('posts { id, type, occurred_at, incident, endpoint } signed per Standard Webhooks', async () => {
    receiver = await startHttpReceiver(() => ({ status: 204 }));
    const secret = createSigningSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    const now = Date.UTC(2026, 10, 23, 10, 0, 21);
    const out = await createWebhookChannel({ http: open, now: () => now }).send(msg(), { webhook_url: `${receiver.url}/hook`, signing_secret: secret });
    expect(out).toEqual({ ok: true });
    const [req] = receiver.requests;
    expect(req.path).toBe('/hook');
    expect(req.headers['webhook-id']).toBe('inc7-opened-m1');
    expect(req.headers['webhook-timestamp']).toBe(String(Math.floor(now / 1000)));
    expect(verifyStandardWebhook(secret, req.headers, req.body)).toBe(true);
    expect(verifyStandardWebhook(createSigningSecret(), req.headers, req.body)).toBe(false);
    expect(JSON.parse(req.body)).toEqual({ id: 'inc7-opened-m1', type: 'incident.opened', occurred_at: opened.occurred_at, incident: opened.incident, endpoint: opened.endpoint });
  });

  it('refuses loopback targets at connect time when private targets are not allowed, by literal and by name', async () => {
    receiver = await startHttpReceiver();
    const guarded = createWebhookChannel({ http: createHttpSender({ allowPrivateTargets: false }) });
    const port = new URL(receiver.url).port;
    for (const url of [`${receiver.url}/x`, `http://localhost:${port}/x`, `http://[::1]:${port}/x`]) {
      expect(await guarded.send(msg(), { webhook_url: url, signing_secret: createSigningSecret() })).toEqual({ ok: false, final: true, error: TARGET_NOT_ALLOWED });
    }
    expect(receiver.requests).toHaveLength(0);
  });

  it('retries on 5xx and connection errors, honours 429 Retry-After, and fails for good on other 4xx', async () => {
    const answers = [{ status: 500 }, { status: 429, headers: { 'retry-after': '30' } }, { status: 410, body: 'gone' }];
    receiver = await startHttpReceiver((_r, n) => answers[n]);
    const ch = createWebhookChannel({ http: open });
    const cfg = { webhook_url: `${receiver.url}/h`, signing_secret: createSigningSecret() };
    expect(await ch.send(msg(), cfg)).toMatchObject({ ok: false, final: false, error: 'HTTP 500' });
    expect(await ch.send(msg(), cfg)).toMatchObject({ ok: false, final: false, retryAfterMs: 30_000 });
    expect(await ch.send(msg(), cfg)).toEqual({ ok: false, final: true, error: 'HTTP 410: gone' });
    await receiver.close();
    expect(await ch.send(msg(), cfg)).toMatchObject({ ok: false, final: false, error: expect.stringMatching(/ECONNREFUSED|UND_ERR_SOCKET/) });
    receiver = null;
  });
});

describe('slack channel', () => {
  it('calls chat.postMessage with the bot token and { channel, text, blocks }', async () => {
    receiver = await startHttpReceiver(() => ({ status: 200, body: { ok: true, channel: 'C1', ts: '1.2' } }));
    const ch = createSlackChannel({ apiUrl: `${receiver.url}/api`, publicUrl: PUBLIC_URL });
    expect(await ch.send(msg(), { bot_token: 'xoxb-123', channel: '#ops' })).toEqual({ ok: true });
    const [req] = receiver.requests;
    expect(req.path).toBe('/api/chat.postMessage');
    expect(req.headers.authorization).toBe('Bearer xoxb-123');
    const body = JSON.parse(req.body);
    expect(body.channel).toBe('#ops');
    expect(body.text).toContain('DOWN: Shop - HTTP 503 from EU - Germany');
    expect(body.text).toContain('https://shop.example.com/');
    expect(body.text).toContain(`${PUBLIC_URL}/dashboard`);
    expect(body.blocks[0]).toEqual({ type: 'header', text: { type: 'plain_text', text: 'DOWN: Shop - HTTP 503 from EU - Germany' } });
  });

  it('treats ok:false invalid_auth / channel_not_found / not_in_channel as final and ratelimited as a retry', async () => {
    const errors = ['invalid_auth', 'channel_not_found', 'not_in_channel', 'ratelimited'];
    const noHeaders: Record<string, string> = {};
    receiver = await startHttpReceiver((_r, n) => ({ status: 200, headers: n === 3 ? { 'retry-after': '7' } : noHeaders, body: { ok: false, error: errors[n] } }));
    const ch = createSlackChannel({ apiUrl: receiver.url, publicUrl: null });
    for (const e of errors.slice(0, 3)) expect(await ch.send(msg(), { bot_token: 'x', channel: 'c' })).toEqual({ ok: false, final: true, error: `Slack: ${e}` });
    expect(await ch.send(msg(), { bot_token: 'x', channel: 'c' })).toEqual({ ok: false, final: false, error: 'Slack: ratelimited', retryAfterMs: 7000 });
  });
});

describe('pagerduty channel (Events API v2)', () => {
  const key = 'R0UT1NGKEY0123456789abcdefABCDEF';
  it('triggers on opening, acknowledges, resolves, each with the incident id as dedup_key', async () => {
    receiver = await startHttpReceiver(() => ({ status: 202, body: { status: 'success', message: 'Event processed', dedup_key: '7' } }));
    const ch = createPagerDutyChannel({ http: open, apiUrl: receiver.url, publicUrl: PUBLIC_URL });
    const acked: AlertEvent = { ...opened, type: 'incident.acknowledged', acknowledged_by: 'ann' };
    for (const e of [opened, acked, resolved]) expect(await ch.send(msg(e), { routing_key: key })).toEqual({ ok: true });
    const bodies = receiver.requests.map((r) => JSON.parse(r.body));
    expect(receiver.requests.map((r) => r.path)).toEqual(['/v2/enqueue', '/v2/enqueue', '/v2/enqueue']);
    expect(bodies.map((b) => [b.routing_key, b.event_action, b.dedup_key])).toEqual([[key, 'trigger', '7'], [key, 'acknowledge', '7'], [key, 'resolve', '7']]);
    expect(bodies[0].payload).toMatchObject({ summary: 'DOWN: Shop - HTTP 503 from EU - Germany', source: 'https://shop.example.com/', severity: 'critical', component: 'Shop' });
    expect(bodies[0].links).toEqual([{ href: `${PUBLIC_URL}/dashboard`, text: 'Open the dashboard' }]);
    expect(bodies[1].payload).toBeUndefined();
  });

  it('an invalid event is final, a 429 waits its Retry-After, a 5xx is retried', async () => {
    receiver = await startHttpReceiver((_r, n) => [
      { status: 400, body: { status: 'invalid event', message: 'Event object is invalid', errors: ['Length of \'routing_key\' is incorrect'] } },
      { status: 429, headers: { 'retry-after': '30' }, body: {} },
      { status: 503, body: {} },
    ][n]);
    const ch = createPagerDutyChannel({ http: open, apiUrl: receiver.url, publicUrl: null });
    expect(await ch.send(msg(), { routing_key: 'short' })).toEqual({ ok: false, final: true, error: 'HTTP 400: Event object is invalid' });
    expect(await ch.send(msg(), { routing_key: key })).toMatchObject({ ok: false, final: false, retryAfterMs: 30_000 });
    expect(await ch.send(msg(), { routing_key: key })).toMatchObject({ ok: false, final: false });
  });
});

describe('telegram channel', () => {
  it('calls /bot{token}/sendMessage with { chat_id, text, parse_mode }', async () => {
    receiver = await startHttpReceiver(() => ({ status: 200, body: { ok: true, result: { message_id: 1 } } }));
    const ch = createTelegramChannel({ http: open, apiUrl: receiver.url, publicUrl: PUBLIC_URL });
    expect(await ch.send(msg(resolved), { bot_token: '123:ABC', chat_id: '-100200' })).toEqual({ ok: true });
    const [req] = receiver.requests;
    expect(req.path).toBe('/bot123:ABC/sendMessage');
    const body = JSON.parse(req.body);
    expect(body).toMatchObject({ chat_id: '-100200', parse_mode: 'HTML' });
    expect(body.text).toContain('<b>RESOLVED: Shop is back after 3 min 20 s</b>');
    expect(body.text).toContain('<b>Lasted:</b> 3 min 20 s');
  });

  it('gives the provider reason: 400 chat not found is final, 429 waits parameters.retry_after', async () => {
    const answers = [
      { status: 400, body: { ok: false, error_code: 400, description: 'Bad Request: chat not found' } },
      { status: 429, body: { ok: false, error_code: 429, description: 'Too Many Requests: retry after 12', parameters: { retry_after: 12 } } },
    ];
    receiver = await startHttpReceiver((_r, n) => answers[n]);
    const ch = createTelegramChannel({ http: open, apiUrl: receiver.url, publicUrl: null });
    expect(await ch.send(msg(), { bot_token: 't', chat_id: '1' })).toEqual({ ok: false, final: true, error: 'HTTP 400: Telegram: Bad Request: chat not found' });
    expect(await ch.send(msg(), { bot_token: 't', chat_id: '1' })).toMatchObject({ ok: false, final: false, retryAfterMs: 12_000 });
  });
});

describe('discord channel', () => {
  it('posts { content, embeds } to the webhook URL', async () => {
    receiver = await startHttpReceiver(() => ({ status: 204 }));
    const ch = createDiscordChannel({ http: open, publicUrl: PUBLIC_URL });
    expect(await ch.send(msg(), { webhook_url: `${receiver.url}/api/webhooks/1/abc` })).toEqual({ ok: true });
    const body = JSON.parse(receiver.requests[0].body);
    expect(body.content).toBe('DOWN: Shop - HTTP 503 from EU - Germany');
    expect(body.embeds[0]).toMatchObject({ title: body.content, url: `${PUBLIC_URL}/dashboard`, color: 0xc0392b });
    expect(body.embeds[0].fields).toContainEqual({ name: 'Regions', value: 'EU - Germany', inline: true });
  });
});

describe('teams channel', () => {
  it('posts an Adaptive Card message', async () => {
    receiver = await startHttpReceiver(() => ({ status: 200, body: '1' }));
    const ch = createTeamsChannel({ http: open, publicUrl: PUBLIC_URL });
    expect(await ch.send(msg(), { webhook_url: `${receiver.url}/webhookb2/x` })).toEqual({ ok: true });
    const body = JSON.parse(receiver.requests[0].body);
    expect(body.type).toBe('message');
    expect(body.attachments[0].contentType).toBe('application/vnd.microsoft.card.adaptive');
    const card = body.attachments[0].content;
    expect(card).toMatchObject({ type: 'AdaptiveCard', version: '1.4' });
    expect(card.body[1].facts).toContainEqual({ title: 'What', value: 'HTTP 503 from EU - Germany' });
    expect(card.actions[0]).toEqual({ type: 'Action.OpenUrl', title: 'Open the dashboard', url: `${PUBLIC_URL}/dashboard` });
  });
});

describe('sms channel (Twilio Messages API)', () => {
  it('posts form-encoded To, From, Body with basic auth to Accounts/{sid}/Messages.json', async () => {
    receiver = await startHttpReceiver(() => ({ status: 201, body: { sid: 'SM1', status: 'queued' } }));
    const ch = createSmsChannel({ http: open, publicUrl: null, twilio: { apiUrl: receiver.url, accountSid: 'AC123', authToken: 'tok', from: '+15550001111' } });
    expect(await ch.send(msg(), { phone_number: '+49 (170) 123-4567' })).toEqual({ ok: true });
    const [req] = receiver.requests;
    expect(req.path).toBe('/2010-04-01/Accounts/AC123/Messages.json');
    expect(req.headers.authorization).toBe(`Basic ${Buffer.from('AC123:tok').toString('base64')}`);
    expect(req.headers['content-type']).toBe('application/x-www-form-urlencoded');
    const form = new URLSearchParams(req.body);
    expect(form.get('To')).toBe('+491701234567');
    expect(form.get('From')).toBe('+15550001111');
    expect(form.get('Body')).toContain('DOWN: Shop - HTTP 503 from EU - Germany');
  });

  it('fails with a clear reason when Twilio is not configured, and with Twilio\'s message on a 400', async () => {
    const none = createSmsChannel({ http: open, publicUrl: null, twilio: { apiUrl: 'http://127.0.0.1:9', accountSid: null, authToken: null, from: null } });
    expect(await none.send(msg(), { phone_number: '+4917012345' })).toEqual({ ok: false, final: true, error: SMS_NOT_CONFIGURED });
    receiver = await startHttpReceiver(() => ({ status: 400, body: { code: 21211, message: "The 'To' number is not a valid phone number.", status: 400 } }));
    const ch = createSmsChannel({ http: open, publicUrl: null, twilio: { apiUrl: receiver.url, accountSid: 'AC1', authToken: 't', from: '+1555' } });
    expect(await ch.send(msg(), { phone_number: '+1' })).toEqual({ ok: false, final: true, error: "HTTP 400: Twilio: The 'To' number is not a valid phone number." });
  });
});

describe('email channel (nodemailer to a real SMTP server)', () => {
  it('sends a text and an HTML part to the method\'s address', async () => {
    smtp = await startSmtpReceiver();
    const ch = createEmailChannel({ smtpUrl: smtp.url, from: 'Upfleet <alerts@upfleet.example.com>', publicUrl: PUBLIC_URL });
    expect(await ch.send(msg(), { email_address: 'ops@example.com' })).toEqual({ ok: true });
    const [mail] = smtp.messages;
    expect(mail.from).toBe('alerts@upfleet.example.com');
    expect(mail.to).toEqual(['ops@example.com']);
    expect(mail.raw).toContain('Subject: DOWN: Shop - HTTP 503 from EU - Germany');
    expect(mail.raw).toContain('Content-Type: text/plain');
    expect(mail.raw).toContain('Content-Type: text/html');
    expect(mail.raw).toContain('X-Upfleet-Idempotency-Key: inc7-opened-m1');
  });

  it('fails for good on a 5xx SMTP answer, retries on 4xx, and says when SMTP is not configured', async () => {
    smtp = await startSmtpReceiver();
    const ch = createEmailChannel({ smtpUrl: smtp.url, from: 'alerts@upfleet.example.com', publicUrl: null });
    smtp.rejectWith = 550;
    expect(await ch.send(msg(), { email_address: 'ops@example.com' })).toMatchObject({ ok: false, final: true, error: expect.stringContaining('550') });
    smtp.rejectWith = 451;
    expect(await ch.send(msg(), { email_address: 'ops@example.com' })).toMatchObject({ ok: false, final: false, error: expect.stringContaining('451') });
    const none = createEmailChannel({ smtpUrl: null, from: null, publicUrl: null });
    expect(await none.send(msg(), { email_address: 'ops@example.com' })).toEqual({ ok: false, final: true, error: EMAIL_NOT_CONFIGURED });
  });
});

describe('acknowledge links', () => {
  const ACK = 'https://upfleet.example.com/ack/7.1.abcdefghijklmnopqrstuvwxyz012345';
  const withAck = (event: AlertEvent = opened): OutgoingMessage => ({ ...msg(event), ack_url: ACK });

  it('every HTTP channel carries the recipient\'s link in an opened incident\'s message, and none on resolve', async () => {
    receiver = await startHttpReceiver((req) => (req.path.includes('sendMessage') || req.path.includes('chat.postMessage') ? { status: 200, body: { ok: true } } : { status: 201, body: {} }));
    const url = receiver.url;
    const twilio = { apiUrl: url, accountSid: 'AC1', authToken: 't', from: '+1555' };
    const sent: Array<[string, () => Promise<unknown>, (e?: AlertEvent) => Promise<unknown>]> = [
      ['webhook', () => createWebhookChannel({ http: open }).send(withAck(), { webhook_url: `${url}/hook`, signing_secret: createSigningSecret() }),
        (e) => createWebhookChannel({ http: open }).send(withAck(e), { webhook_url: `${url}/hook`, signing_secret: createSigningSecret() })],
      ['slack', () => createSlackChannel({ apiUrl: url, publicUrl: PUBLIC_URL }).send(withAck(), { bot_token: 'x', channel: '#ops' }),
        (e) => createSlackChannel({ apiUrl: url, publicUrl: PUBLIC_URL }).send(withAck(e), { bot_token: 'x', channel: '#ops' })],
      ['telegram', () => createTelegramChannel({ http: open, apiUrl: url, publicUrl: PUBLIC_URL }).send(withAck(), { bot_token: 'x', chat_id: '1' }),
        (e) => createTelegramChannel({ http: open, apiUrl: url, publicUrl: PUBLIC_URL }).send(withAck(e), { bot_token: 'x', chat_id: '1' })],
      ['discord', () => createDiscordChannel({ http: open, publicUrl: PUBLIC_URL }).send(withAck(), { webhook_url: `${url}/discord` }),
        (e) => createDiscordChannel({ http: open, publicUrl: PUBLIC_URL }).send(withAck(e), { webhook_url: `${url}/discord` })],
      ['teams', () => createTeamsChannel({ http: open, publicUrl: PUBLIC_URL }).send(withAck(), { webhook_url: `${url}/teams` }),
        (e) => createTeamsChannel({ http: open, publicUrl: PUBLIC_URL }).send(withAck(e), { webhook_url: `${url}/teams` })],
      ['sms', () => createSmsChannel({ http: open, publicUrl: PUBLIC_URL, twilio }).send(withAck(), { phone_number: '+4917012345678' }),
        (e) => createSmsChannel({ http: open, publicUrl: PUBLIC_URL, twilio }).send(withAck(e), { phone_number: '+4917012345678' })],
    ];
    for (const [name, send, sendEvent] of sent) {
      expect(await send(), name).toEqual({ ok: true });
      const body = receiver.requests.at(-1)!.body;
      expect(decodeURIComponent(body.replace(/\+/g, ' ')), name).toContain(ACK);
      expect(await sendEvent(resolved), name).toEqual({ ok: true });
      expect(decodeURIComponent(receiver.requests.at(-1)!.body), `${name} on resolve`).not.toContain('/ack/');
    }
    const hook = JSON.parse(receiver.requests.find((r) => r.path === '/hook')!.body) as Record<string, unknown>;
    expect(hook.ack_url).toBe(ACK);
    const slack = JSON.parse(receiver.requests.find((r) => r.path.endsWith('chat.postMessage'))!.body) as { blocks: Array<{ type: string; elements?: Array<{ text: { text: string }; url: string }> }> };
    expect(slack.blocks.find((b) => b.type === 'actions')!.elements!.map((e) => [e.text.text, e.url])).toEqual([['Acknowledge', ACK], ['Open the dashboard', `${PUBLIC_URL}/dashboard`]]);
  });

  it('an email carries the link in its text and HTML parts', async () => {
    smtp = await startSmtpReceiver();
    const ch = createEmailChannel({ smtpUrl: smtp.url, from: 'Upfleet <alerts@upfleet.example.com>', publicUrl: PUBLIC_URL });
    expect(await ch.send(withAck(), { email_address: 'ops@example.com' })).toEqual({ ok: true });
    const raw = smtp.messages[0].raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
    expect(raw).toMatch(new RegExp(`Acknowledge:\r?\n${ACK.replace(/\./g, '\\.')}\r?\n`));
    expect(smtp.messages[0].raw).toContain('Content-Transfer-Encoding: 7bit');
    expect(raw).toContain(`<a href="${ACK}">Acknowledge</a>`);
  });
});
