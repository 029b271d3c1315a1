// Alerts end to end with real processes on loopback: the control plane, one agent per region, target
// servers, and local servers speaking the providers' wire formats (Standard Webhooks receivers,
// Slack chat.postMessage, Telegram sendMessage, a real SMTP server). Business plan: 10 s checks.
import crypto from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpReceiver, startSmtpReceiver, type HttpReceiver, type ReceivedRequest, type SmtpReceiver } from '../../control-plane/src/testing/alert-receivers';
import { createAgentToken, startAgentProcess, type AgentProcess } from '../helpers/agent-process';
import { apiFor, sleep, waitFor } from '../helpers/api';
import { startStack, type Stack } from '../helpers/start-stack';
import { closedPort, makeCert } from '../helpers/targets';

const REGIONS = ['EU-Germany', 'US-Virginia', 'AP-Singapore'];

/** A target whose answer per path is set by the test; it records when it first answered a failure. */
interface Behaviour { status: number; delayMs?: number; failRegion?: string }
async function startScriptedTarget() {
  const behaviour = new Map<string, Behaviour>();
  const firstFail = new Map<string, number>();
  const hits: Array<{ path: string; region: string; status: number; at: number }> = [];
  const server = http.createServer((req, res) => {
    const p = (req.url ?? '/').split('?')[0];
    const b = behaviour.get(p) ?? { status: 200 };
    const region = /region ([\w-]+)/.exec(String(req.headers['user-agent']))?.[1] ?? '';
    const status = b.failRegion ? (region === b.failRegion ? 503 : 200) : b.status;
    setTimeout(() => {
      const at = Date.now();
      hits.push({ path: p, region, status, at });
      if (status >= 300 && !firstFail.has(p)) firstFail.set(p, at);
      res.writeHead(status, { 'content-type': 'text/plain', connection: 'close' }).end(String(status));
    }, b.delayMs ?? 0);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: (p: string) => `http://127.0.0.1:${port}${p}`,
    set: (p: string, b: Behaviour) => behaviour.set(p, b),
    firstFail: (p: string) => firstFail.get(p),
    hits: (p: string) => hits.filter((h) => h.path === p),
    close: () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}

function verifySignature(secret: string, req: ReceivedRequest): boolean {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const signed = `${String(req.headers['webhook-id'])}.${String(req.headers['webhook-timestamp'])}.${req.body}`;
  const expected = `v1,${crypto.createHmac('sha256', key).update(signed).digest('base64')}`;
  return String(req.headers['webhook-signature']).split(' ').includes(expected);
}

const ofType = (r: HttpReceiver, type: string) => r.requests.filter((q) => JSON.parse(q.body).type === type);

describe('alerts that reach people', () => {
  let stack: Stack;
  let target: Awaited<ReturnType<typeof startScriptedTarget>>;
  let tlsTarget: https.Server;
  let tlsUrl: string;
  let smtp: SmtpReceiver;
  let slack: HttpReceiver;
  let telegram: HttpReceiver;
  let hook: HttpReceiver;
  let retryHook: HttpReceiver;
  let kindsHook: HttpReceiver;
  const agents: AgentProcess[] = [];
  const api = apiFor(() => stack);
  let env: Record<string, string>;
  const users: Record<string, string> = {};
  const ids: Record<string, number> = {};
  let signingSecret = '';
  let monitorTypes: Record<string, number> = {};

  const addEndpoint = async (user: string, body: Record<string, unknown>) => {
    const r = await api.call('POST', '/api/users/endpoints', body, users[user]);
    if (r.status !== 201) throw new Error(`endpoint: ${JSON.stringify(r.body)}`);
    return r.body.data.url_id as number;
  };
  const addMethod = async (user: string, platform: string, platform_config: Record<string, string>) => {
    const r = await api.call('POST', '/api/users/alert-methods', { platform, is_enabled: true, platform_config }, users[user]);
    if (r.status !== 201) throw new Error(`alert method: ${JSON.stringify(r.body)}`);
    return r.body.data;
  };
  const incidents = async (user: string, query = '') => (await api.call('GET', `/api/users/incidents${query}`, undefined, users[user])).body.data as any[];

  beforeAll(async () => {
    target = await startScriptedTarget();
    const pem = makeCert({ selfSigned: true, daysValid: 5 });
    tlsTarget = https.createServer({ cert: pem.cert, key: pem.key }, (_q, s) => s.writeHead(200).end('ok'));
    await new Promise<void>((r) => tlsTarget.listen(0, '127.0.0.1', r));
    tlsUrl = `https://127.0.0.1:${(tlsTarget.address() as AddressInfo).port}/`;
    smtp = await startSmtpReceiver();
    slack = await startHttpReceiver(() => ({ status: 200, body: { ok: true, channel: 'C1', ts: '1.1' } }));
    telegram = await startHttpReceiver(() => ({ status: 200, body: { ok: true, result: { message_id: 1 } } }));
    hook = await startHttpReceiver(() => ({ status: 204 }));
    retryHook = await startHttpReceiver((_r, n) => ({ status: n < 2 ? 500 : 200 }));
    kindsHook = await startHttpReceiver(() => ({ status: 204 }));
    env = {
      SMTP_URL: smtp.url, SMTP_FROM: 'Upfleet <alerts@upfleet.test>', SLACK_API_URL: `${slack.url}/api`, TELEGRAM_API_URL: telegram.url,
      PUBLIC_URL: 'https://upfleet.example.com', AGENT_LEASE_SECONDS: '6',
    };
    stack = await startStack({ env });
    for (const region of REGIONS) agents.push(startAgentProcess(stack, { token: await createAgentToken(stack, region), region }));
    await waitFor('an agent live in each region', async () =>
      (await api.admin<Array<{ status: string }>>('GET', '/api/admin/agents')).filter((a) => a.status === 'live').length === 3);
    for (const u of ['main', 'retry', 'regions', 'thresholds', 'crash', 'kinds']) users[u] = await api.signup(`alerts-${u}`, 'Business');
    // With SMTP_URL set, email and SMS alerts go out only for verified addresses: each
    // user opens the link mailed at signup.
    for (const u of Object.keys(users)) {
      const mail = await waitFor(`the verification mail of alerts-${u}`, async () => smtp.messages.find((m) => m.to.includes(`alerts-${u}@example.com`)));
      const text = mail.raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
      const link = /\/api\/auth\/verify-email\?token=[A-Za-z0-9_-]+/.exec(text)![0];
      expect((await fetch(`${stack.baseUrl}${link}`, { redirect: 'manual' })).status).toBe(302);
    }
    monitorTypes = Object.fromEntries((await api.call('GET', '/api/users/monitor-types', undefined, users.main)).body.data.map((t: any) => [t.type_code, t.monitor_type_id]));

    // Scenarios that only wait run side by side from here.
    await addMethod('retry', 'webhook', { webhook_url: `${retryHook.url}/retry` });
    target.set('/retry', { status: 503 });
    ids.retry = await addEndpoint('retry', { name: 'Retry', url: target.url('/retry') });
    target.set('/two', { status: 200, failRegion: 'US-Virginia' });
    ids.two = await addEndpoint('regions', { name: 'Two regions', url: target.url('/two'), regions: REGIONS.slice(0, 2), response_time: true });
    target.set('/three', { status: 200, failRegion: 'AP-Singapore' });
    ids.three = await addEndpoint('regions', { name: 'Three regions', url: target.url('/three'), regions: REGIONS, response_time: true });
    target.set('/slow', { status: 200, delayMs: 500 });
    ids.slow = await addEndpoint('thresholds', { name: 'Slow', url: target.url('/slow'), response_time: true });
    ids.cert = await addEndpoint('thresholds', { name: 'Cert', url: tlsUrl, response_code: false, cert_expiry: true });
    // an assertion that fails on a 200 answer, and a tcp check on a closed port
    await addMethod('kinds', 'webhook', { webhook_url: `${kindsHook.url}/kinds` });
    target.set('/assert', { status: 200 });
    ids.assert = await addEndpoint('kinds', { name: 'Asserted', url: target.url('/assert'), assertions: [{ source: 'body', comparison: 'contains', target: 'healthy' }] });
    ids.tcp = await addEndpoint('kinds', { name: 'Closed port', kind: 'tcp', target: `127.0.0.1:${await closedPort()}` });
    const threshold = (type: string, op: string, value: number) => ({ monitor_type_id: monitorTypes[type], threshold_operator: op, threshold_value: value, is_enabled: true, region_id: null });
    for (const [id, t] of [[ids.slow, threshold('response_time', '>', 200)], [ids.cert, threshold('cert_expiry', '<', 14)]] as const) {
      const r = await api.call('PUT', `/api/users/endpoints/${id}/alert-thresholds`, { alert_thresholds: [t] }, users.thresholds);
      expect(r.status).toBe(200);
    }
  });

  afterAll(async () => {
    await Promise.all(agents.map((a) => a.stop()));
    await stack?.stop();
    await Promise.all([target?.close(), smtp?.close(), slack?.close(), telegram?.close(), hook?.close(), retryHook?.close(), kindsHook?.close()]);
    await new Promise<void>((r) => (tlsTarget ? tlsTarget.close(() => r()) : r()));
  });

  it('a target turning to 503 reaches a signed webhook within 20 s of the first failing check, then email, Slack and Telegram; recovery resolves it everywhere', async () => {
    const created = await addMethod('main', 'webhook', { webhook_url: `${hook.url}/hooks/upfleet` });
    signingSecret = created.signing_secret;
    await addMethod('main', 'email', { email_address: 'ops@example.com' });
    await addMethod('main', 'slack', { bot_token: 'xoxb-e2e', channel: '#ops' });
    await addMethod('main', 'telegram', { bot_token: '123:e2e', chat_id: '-1001' });
    target.set('/main', { status: 200 });
    ids.main = await addEndpoint('main', { name: 'Main site', url: target.url('/main') });
    await waitFor('a passing check', async () => target.hits('/main').length >= 1);
    target.set('/main', { status: 503 });

    const [opened] = await waitFor('incident.opened at the webhook', async () => ofType(hook, 'incident.opened').length ? ofType(hook, 'incident.opened') : null, 40_000);
    expect(opened.at - target.firstFail('/main')!).toBeLessThan(20_000);
    expect(verifySignature(signingSecret, opened)).toBe(true);
    const body = JSON.parse(opened.body);
    expect(body).toMatchObject({
      id: opened.headers['webhook-id'], type: 'incident.opened',
      endpoint: { id: ids.main, name: 'Main site', url: target.url('/main') },
      incident: { condition: 'down', cause: 'HTTP 503 from EU - Germany', regions: ['EU - Germany'], resolved_at: null },
    });
    const open = await incidents('main', `?endpoint_id=${ids.main}&status=open`);
    expect(open).toHaveLength(1);
    expect(open[0]).toMatchObject({ incident_id: body.incident.id, cause: 'HTTP 503 from EU - Germany' });

    const mail = await waitFor('the email', async () => smtp.messages.find((m) => m.raw.includes('DOWN: Main site')));
    expect(mail.to).toEqual(['ops@example.com']);
    expect(mail.raw).toContain('https://upfleet.example.com/dashboard');
    const slackMsg = await waitFor('the Slack message', async () => slack.requests.find((r) => r.path === '/api/chat.postMessage'));
    expect(slackMsg.headers.authorization).toBe('Bearer xoxb-e2e');
    expect(JSON.parse(slackMsg.body)).toMatchObject({ channel: '#ops', text: expect.stringContaining('DOWN: Main site - HTTP 503 from EU - Germany') });
    const tg = await waitFor('the Telegram message', async () => telegram.requests.find((r) => r.path === '/bot123:e2e/sendMessage'));
    expect(JSON.parse(tg.body)).toMatchObject({ chat_id: '-1001', parse_mode: 'HTML', text: expect.stringContaining('DOWN: Main site') });

    target.set('/main', { status: 200 });
    const [resolved] = await waitFor('incident.resolved at the webhook', async () => ofType(hook, 'incident.resolved').length ? ofType(hook, 'incident.resolved') : null, 40_000);
    expect(verifySignature(signingSecret, resolved)).toBe(true);
    expect(JSON.parse(resolved.body).incident).toMatchObject({ id: body.incident.id, resolved_at: expect.any(String) });
    await waitFor('resolved by email, Slack and Telegram', async () =>
      smtp.messages.some((m) => m.raw.includes('RESOLVED: Main site')) &&
      slack.requests.some((r) => r.body.includes('RESOLVED: Main site')) &&
      telegram.requests.some((r) => r.body.includes('RESOLVED: Main site')));
    expect(await incidents('main', `?endpoint_id=${ids.main}&status=resolved`)).toHaveLength(1);
    expect(ofType(hook, 'incident.opened')).toHaveLength(1);
  });

  it('a receiver answering 500 twice then 200 gets exactly one delivered message', async () => {
    const methodId = (await api.call('GET', '/api/users/alert-methods', undefined, users.retry)).body.data[0].alert_method_id;
    const delivery = await waitFor('a delivered delivery', async () => {
      const list = (await api.call('GET', `/api/users/alert-methods/${methodId}/deliveries`, undefined, users.retry)).body.data;
      return list.find((d: any) => d.status === 'delivered');
    }, 90_000);
    expect(delivery).toMatchObject({ event: 'opened', attempts: 3, last_error: null });
    expect(retryHook.requests).toHaveLength(3);
    expect(new Set(retryHook.requests.map((r) => r.headers['webhook-id'])).size).toBe(1);
    await sleep(6000);
    expect(retryHook.requests).toHaveLength(3);
  });

  it('a 2-region endpoint failing in one region opens an incident listing that region; a 3-region one failing in 1 of 3 opens none', async () => {
    const two = await waitFor('the 2-region incident', async () => (await incidents('regions', `?endpoint_id=${ids.two}`))[0], 60_000);
    expect(two).toMatchObject({ condition: 'down', regions: ['US - Virginia'], cause: 'HTTP 503 from US - Virginia', resolved_at: null });
    await waitFor('two failed checks from AP in the 3-region endpoint', async () =>
      target.hits('/three').filter((h) => h.region === 'AP-Singapore' && h.status === 503).length >= 3, 60_000);
    expect(await incidents('regions', `?endpoint_id=${ids.three}`)).toEqual([]);
  });

  it('thresholds: response_time > 200 on a 500 ms target and cert_expiry < 14 on a certificate valid 5 more days open incidents', async () => {
    const slow = await waitFor('the response-time incident', async () => (await incidents('thresholds', `?endpoint_id=${ids.slow}`))[0], 60_000);
    expect(slow.condition).toBe('threshold:response_time:any');
    expect(slow.cause).toMatch(/^response time \d{3} ms > 200 ms$/);
    const cert = await waitFor('the certificate incident', async () => (await incidents('thresholds', `?endpoint_id=${ids.cert}`))[0], 60_000);
    expect(cert).toMatchObject({ condition: 'threshold:cert_expiry:any', cause: 'certificate expires in 5 days' });
  });

  it('check kinds: a failed assertion and a closed tcp port open incidents whose alerts say why', async () => {
    await waitFor('two incidents of the kinds scenario', async () => (await incidents('kinds')).length >= 2, 60_000);
    const byId = Object.fromEntries((await incidents('kinds')).map((i) => [i.url_id, i]));
    expect(byId[ids.assert]).toMatchObject({ condition: 'down', cause: 'body does not contain "healthy" from EU - Germany', resolved_at: null });
    expect(byId[ids.tcp]).toMatchObject({ condition: 'down', cause: 'connection refused from EU - Germany', resolved_at: null });
    await waitFor('both webhooks', async () => ofType(kindsHook, 'incident.opened').length >= 2, 30_000);
    const causes = ofType(kindsHook, 'incident.opened').map((q) => JSON.parse(q.body).incident.cause).sort();
    expect(causes).toEqual(['body does not contain "healthy" from EU - Germany', 'connection refused from EU - Germany']);
  });

  it('a control plane SIGKILLed between the incident and its delivery delivers it after restart, once', async () => {
    let answered = 0;
    const crashHook = await startHttpReceiver((_r, n) => {
      if (n === 0) return 'hang';
      answered++;
      return { status: 200 };
    });
    try {
      await addMethod('crash', 'webhook', { webhook_url: `${crashHook.url}/crash` });
      target.set('/crash', { status: 503 });
      const id = await addEndpoint('crash', { name: 'Crash', url: target.url('/crash') });
      await waitFor('the delivery in flight', async () => crashHook.requests.length === 1, 60_000, 50);
      await stack.kill();
      stack = await startStack({ dataDir: stack.dataDir, env: { ...env, PORT: String(stack.httpPort), GRPC_PORT: String(stack.grpcPort) } });
      await waitFor('the delivery after restart', async () => answered === 1, 30_000);
      const [first, second] = crashHook.requests;
      expect(second.headers['webhook-id']).toBe(first.headers['webhook-id']);
      expect(JSON.parse(second.body)).toMatchObject({ type: 'incident.opened', endpoint: { id } });
      await sleep(12_000); // more checks arrive from the reconnected agent; nothing re-opens or re-sends
      expect(answered).toBe(1);
      expect(crashHook.requests).toHaveLength(2);
      expect(await incidents('crash', `?endpoint_id=${id}`)).toHaveLength(1);
    } finally {
      await crashHook.close();
    }
  });
});
