// A storm's grouped message on each channel, against a local server speaking the provider's wire
// format (SMTP: a real SMTP server): every incident listed (endpoint, condition, cause) with its own
// acknowledge link, the group's acknowledge link and the Incidents page; recoveries grouped alike.
import { afterEach, describe, expect, it } from 'vitest';
import { startHttpReceiver, startSmtpReceiver, type HttpReceiver, type SmtpReceiver } from '../../testing/alert-receivers';
import type { AlertEvent, OutgoingMessage } from '../types';
import { createDiscordChannel } from './discord';
import { createEmailChannel } from './email';
import { createHttpSender } from './http';
import { createSlackChannel } from './slack';
import { createSmsChannel } from './sms';
import { createTeamsChannel } from './teams';
import { createTelegramChannel } from './telegram';
import { createWebhookChannel } from './webhook';

const PUBLIC_URL = 'https://upfleet.example.com';
const open = createHttpSender({ allowPrivateTargets: true });
const names = ['Shop', 'API', 'Docs', 'Blog', 'Status', 'Admin'];
const incidents = names.map((name, k) => ({
  incident: { id: 10 + k, condition: k === 5 ? 'threshold:latency:any' : 'down', cause: k === 5 ? 'Latency 2400 ms > 1000 ms' : 'HTTP 503 from EU - Germany', regions: ['EU - Germany'], opened_at: '2026-11-23T10:00:20.000Z', resolved_at: null, flapping: false },
  endpoint: { id: 100 + k, name, url: `https://${name.toLowerCase()}.example.com/` },
  ack_url: `${PUBLIC_URL}/ack/${10 + k}.4.${'a'.repeat(32)}`,
}));
const GROUP_ACK = `${PUBLIC_URL}/ack/g3.4.${'b'.repeat(32)}`;
const grouped: AlertEvent = { type: 'incident.group_opened', occurred_at: '2026-11-23T10:00:23.000Z', incident: null, endpoint: null, group: { id: 3, incidents } };
const recovered: AlertEvent = {
  type: 'incident.group_resolved', occurred_at: '2026-11-23T10:05:00.000Z', incident: null, endpoint: null,
  group: { id: 3, incidents: incidents.slice(0, 2).map(({ incident, endpoint }) => ({ incident: { ...incident, resolved_at: '2026-11-23T10:04:58.000Z' }, endpoint })) },
};
const msg = (event: AlertEvent = grouped): OutgoingMessage => ({ id: 'grp3-opened-m4', event, ...(event === grouped ? { ack_url: GROUP_ACK } : {}) });

let receiver: HttpReceiver | null = null;
let smtp: SmtpReceiver | null = null;
afterEach(async () => {
  await receiver?.close();
  await smtp?.close();
  receiver = null;
  smtp = null;
});

/** Every incident's endpoint, cause and own link, the group's link and the Incidents page are in `text`. */
function listsAll(text: string) {
  for (const g of incidents) {
    expect(text).toContain(g.endpoint.name);
    expect(text).toContain(g.incident.cause);
    expect(text).toContain(g.ack_url);
  }
  expect(text).toContain('latency threshold');
  expect(text).toContain(GROUP_ACK);
  expect(text).toContain(`${PUBLIC_URL}/incidents`);
}

describe('a storm\'s grouped message', () => {
  it('webhook: one payload with an incidents array, each with its ack_url, the group\'s ack_url and the Incidents page', async () => {
    receiver = await startHttpReceiver(() => ({ status: 204 }));
    expect(await createWebhookChannel({ http: open, publicUrl: PUBLIC_URL }).send(msg(), { webhook_url: `${receiver.url}/hook`, signing_secret: 'whsec_YWJj' })).toEqual({ ok: true });
    const body = JSON.parse(receiver.requests[0].body);
    expect(body).toMatchObject({ id: 'grp3-opened-m4', type: 'incident.group_opened', group_id: 3, ack_url: GROUP_ACK, incidents_url: `${PUBLIC_URL}/incidents`, incident: null, endpoint: null });
    expect(body.incidents).toHaveLength(6);
    expect(body.incidents[5]).toEqual({ incident: incidents[5].incident, endpoint: incidents[5].endpoint, ack_url: incidents[5].ack_url });
    await createWebhookChannel({ http: open, publicUrl: PUBLIC_URL }).send(msg(recovered), { webhook_url: `${receiver.url}/hook`, signing_secret: 'whsec_YWJj' });
    const back = JSON.parse(receiver.requests[1].body);
    expect(back).toMatchObject({ type: 'incident.group_resolved', group_id: 3 });
    expect(back.ack_url).toBeUndefined();
    expect(back.incidents.map((i: { endpoint: { name: string }; ack_url?: string }) => [i.endpoint.name, i.ack_url])).toEqual([['Shop', undefined], ['API', undefined]]);
  });

  it('email: the subject counts them; the text and HTML list each with its link, the group link and the Incidents page', async () => {
    smtp = await startSmtpReceiver();
    expect(await createEmailChannel({ smtpUrl: smtp.url, from: 'alerts@upfleet.example.com', publicUrl: PUBLIC_URL }).send(msg(), { email_address: 'ops@example.com' })).toEqual({ ok: true });
    const [mail] = smtp.messages;
    expect(mail.raw).toMatch(/Subject: STORM: 6 incidents opened within a minute/);
    listsAll(mail.raw.replace(/=\r?\n/g, '').replace(/=3D/g, '='));
    expect(mail.raw).toContain('Acknowledge all of them');
  });

  it('slack: one message whose text section lists them, with an Acknowledge all button and the Incidents page', async () => {
    receiver = await startHttpReceiver(() => ({ status: 200, body: { ok: true, channel: 'C1', ts: '1.2' } }));
    expect(await createSlackChannel({ apiUrl: `${receiver.url}/api`, publicUrl: PUBLIC_URL }).send(msg(), { bot_token: 'xoxb-1', channel: '#ops' })).toEqual({ ok: true });
    expect(receiver.requests).toHaveLength(1);
    const body = JSON.parse(receiver.requests[0].body);
    listsAll(body.text);
    expect(body.blocks[1]).toMatchObject({ type: 'section', text: { type: 'mrkdwn' } });
    listsAll(body.blocks[1].text.text);
    expect(body.blocks[2].elements.map((e: { text: { text: string }; url: string }) => [e.text.text, e.url])).toEqual([['Acknowledge all', GROUP_ACK], ['Open the incidents', `${PUBLIC_URL}/incidents`]]);
  });

  it('discord, teams and telegram: a field or line per incident with its link, the group link and the Incidents page', async () => {
    receiver = await startHttpReceiver(() => ({ status: 200, body: { ok: true } }));
    await createDiscordChannel({ http: open, publicUrl: PUBLIC_URL }).send(msg(), { webhook_url: `${receiver.url}/discord` });
    await createTeamsChannel({ http: open, publicUrl: PUBLIC_URL }).send(msg(), { webhook_url: `${receiver.url}/teams` });
    await createTelegramChannel({ http: open, apiUrl: receiver.url, publicUrl: PUBLIC_URL }).send(msg(), { bot_token: '1:x', chat_id: '42' });
    const [discord, teams, telegram] = receiver.requests.map((r) => JSON.parse(r.body));
    expect(discord.embeds[0].fields).toHaveLength(6);
    expect(discord.embeds[0].fields[0]).toMatchObject({ name: 'Shop (https://shop.example.com/)', value: expect.stringContaining(incidents[0].ack_url) });
    listsAll(`${JSON.stringify(discord.embeds[0].fields)} ${discord.embeds[0].description} ${discord.embeds[0].url}`);
    expect(discord.content).toBe('STORM: 6 incidents opened within a minute');
    const card = teams.attachments[0].content;
    expect(card.body[1].facts).toHaveLength(6);
    listsAll(`${JSON.stringify(card.body)} ${JSON.stringify(card.actions)}`);
    expect(telegram.parse_mode).toBe('HTML');
    listsAll(telegram.text.replace(/&gt;/g, '>'));
    expect(telegram.text).toContain(`<a href="${PUBLIC_URL}/incidents">Open the incidents</a>`);
  });

  it('sms: a short text: how many, the endpoints by name, the group link and the Incidents page', async () => {
    receiver = await startHttpReceiver(() => ({ status: 201, body: { sid: 'SM1' } }));
    const ch = createSmsChannel({ http: open, publicUrl: PUBLIC_URL, twilio: { apiUrl: receiver.url, accountSid: 'AC1', authToken: 't', from: '+1555' } });
    expect(await ch.send(msg(), { phone_number: '+15550002222' })).toEqual({ ok: true });
    const text = new URLSearchParams(receiver.requests[0].body).get('Body')!;
    expect(text).toBe([
      'STORM: 6 incidents opened within a minute', 'Shop, API, Docs, Blog, Status +1 more', `Acknowledge all: ${GROUP_ACK}`, `${PUBLIC_URL}/incidents`,
    ].join('\n'));
    await ch.send(msg(recovered), { phone_number: '+15550002222' });
    expect(new URLSearchParams(receiver.requests[1].body).get('Body')).toBe(['RESOLVED: 2 incidents of a storm are back', 'Shop, API', `${PUBLIC_URL}/incidents`].join('\n'));
  });
});
