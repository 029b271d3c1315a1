// Heartbeat (cron job) monitors over REST and the ping routes, on a real control plane
// with a fake clock: validation and plan gating; the ping URL and its answers; new → up → late →
// down after the grace, an incident whose webhook reaches a local receiver, resolved by the next
// ping; a control-plane restart in between (a miss while it was away is found, and no second
// incident opens for the same miss); failure pings and exit codes; the ping log; rate limiting.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nextDue, nextRuns } from '../services/heartbeats';
import { startHttpReceiver, type HttpReceiver } from '../testing/alert-receivers';
import { startHarness, type Harness } from '../testing/harness';

let clock = Date.parse('2026-06-01T10:00:00Z');
let h: Harness;
let token: string;
let freeToken: string;
let hook: HttpReceiver;

beforeAll(async () => {
  hook = await startHttpReceiver();
  h = await startHarness({}, { results: null, now: () => clock, heartbeatTickMs: 3600_000 });
  const a = await h.signup('hb_owner');
  await h.setPackage(a.user.email, 'Pro');
  token = a.token;
  freeToken = (await h.signup('hb_free')).token;
  const m = await h.call('POST', '/api/users/alert-methods', { platform: 'webhook', is_enabled: true, platform_config: { webhook_url: `${hook.url}/hook` } }, token);
  expect(m.status).toBe(201);
});
afterAll(async () => {
  await h.close();
  await hook.close();
});

const create = (body: Record<string, unknown>, t = token) => h.call('POST', '/api/users/endpoints', { name: 'Nightly backup', kind: 'heartbeat', ...body }, t);
const ping = async (url: string, method = 'GET', body?: string) => {
  const res = await fetch(url, { method, body });
  return { status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text() };
};
const get = async (id: number) => (await h.call('GET', `/api/users/endpoints/${id}`, undefined, token)).body.data;
const incidents = async (id: number) => ((await h.call('GET', `/api/users/incidents?endpoint_id=${id}`, undefined, token)).body.data as Array<{ resolved_at: string | null; cause: string }>);
const hooksFor = (id: number, type: string) => hook.requests.filter((r) => r.path === '/hook' && r.body.includes(`"type":"${type}"`) && r.body.includes(`"id":${id},`));
async function until(cond: () => boolean, ms = 5000) {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('heartbeat schedule (pure, croner)', () => {
  it('a period is due that long after the last ping', () => {
    expect(nextDue({ period_seconds: 3600 }, Date.parse('2026-01-01T00:00:00Z'))).toBe(Date.parse('2026-01-01T01:00:00Z'));
  });

  it('a cron runs in its time zone, across a DST change (Berlin: 23 h between two 09:00 runs on 29 March 2026)', () => {
    const before = Date.parse('2026-03-28T08:00:00Z'); // 09:00 CET
    expect(new Date(nextDue({ cron: '0 9 * * *', timezone: 'Europe/Berlin' }, before)!).toISOString()).toBe('2026-03-29T07:00:00.000Z'); // 09:00 CEST
    expect(new Date(nextDue({ cron: '0 9 * * *', timezone: 'America/New_York' }, Date.parse('2026-03-07T14:00:00Z'))!).toISOString()).toBe('2026-03-08T13:00:00.000Z');
    expect(nextRuns('*/15 * * * *', 'UTC', Date.parse('2026-01-01T00:01:00Z'))!.map((t) => new Date(t).toISOString().slice(11, 16))).toEqual(['00:15', '00:30', '00:45', '01:00', '01:15']);
  });
});

describe('heartbeat endpoints over the API', () => {
  it('refuses bad schedules with a 400 and stores nothing', async () => {
    const before = (await h.call('GET', '/api/users/endpoints-with-uptime', undefined, token)).body.data.length;
    const cases: Array<[Record<string, unknown>, string]> = [
      [{}, 'A heartbeat needs period_seconds or cron'],
      [{ period_seconds: 60, cron: '* * * * *' }, 'Give either period_seconds or cron, not both'],
      [{ period_seconds: 59 }, 'period_seconds must be a whole number from 60 to 2678400 (31 days)'],
      [{ period_seconds: 31 * 86400 + 1 }, 'period_seconds must be a whole number from 60 to 2678400 (31 days)'],
      [{ cron: '* * * *' }, 'cron must have five fields: minute hour day-of-month month day-of-week'],
      [{ cron: '0 9 * * *', timezone: 'Mars/Olympus' }, 'timezone must be an IANA time zone such as Europe/Berlin'],
      [{ period_seconds: 60, url: 'https://example.com/' }, 'A heartbeat has no target: it is pinged at its ping URL'],
      [{ period_seconds: 60, grace_seconds: -1 }, 'grace_seconds must be a whole number from 0 to 2678400 (31 days)'],
    ];
    for (const [body, error] of cases) {
      const r = await create(body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body).toMatchObject({ success: false, error });
    }
    const bad = await create({ cron: '99 * * * *' });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/^cron does not parse/);
    const http = await h.call('POST', '/api/users/endpoints', { name: 'x', url: 'https://example.com/', period_seconds: 60 }, token);
    expect(http.body.error).toBe('period_seconds, cron, timezone and grace_seconds are for heartbeats');
    expect((await h.call('GET', '/api/users/endpoints-with-uptime', undefined, token)).body.data.length).toBe(before);
  });

  it('is sold on every plan: Free creates one; its owner sees the ping URL again, nobody else does', async () => {
    const r = await create({ cron: '0 3 * * *', timezone: 'Europe/Berlin', grace_seconds: 600 }, freeToken);
    expect(r.status).toBe(201);
    expect(r.body.data).toMatchObject({ kind: 'heartbeat', cron: '0 3 * * *', timezone: 'Europe/Berlin', grace_seconds: 600, heartbeat_state: 'new' });
    expect(r.body.data.ping_url).toMatch(new RegExp(`^${h.cp.url}/ping/[A-Za-z0-9_-]{32}$`));
    const again = await h.call('GET', `/api/users/endpoints/${r.body.data.url_id}`, undefined, freeToken);
    expect(again.body.data.ping_url).toBe(r.body.data.ping_url);
    expect((await h.call('GET', `/api/users/endpoints/${r.body.data.url_id}`, undefined, token)).status).toBe(404);
    expect((await h.call('GET', `/api/users/endpoints/${r.body.data.url_id}/pings`, undefined, token)).status).toBe(404);
    // the token is not stored in clear
    const raw = JSON.stringify(h.cp.db.prepare('SELECT * FROM heartbeats').all());
    expect(raw).not.toContain(r.body.data.ping_url.split('/').pop());
  });

  it('answers pings in plain text: unknown tokens 404, a bad exit code 400', async () => {
    expect(await ping(`${h.cp.url}/ping/not-a-token`)).toMatchObject({ status: 404, type: expect.stringContaining('text/plain') });
    const r = await create({ period_seconds: 60 });
    expect(await ping(`${r.body.data.ping_url}/256`)).toMatchObject({ status: 400 });
    expect(await ping(r.body.data.ping_url, 'HEAD')).toMatchObject({ status: 200 });
    expect(await ping(r.body.data.ping_url, 'POST', 'done')).toMatchObject({ status: 200, text: 'OK\n', type: expect.stringContaining('text/plain') });
  });

  it('goes new → up → late → down after the grace, alerts once across a restart, and the next ping resolves', async () => {
    const r = await create({ period_seconds: 60, grace_seconds: 30 });
    const id = r.body.data.url_id as number;
    const url = r.body.data.ping_url as string;
    expect((await get(id)).heartbeat_state).toBe('new');
    h.cp.tickHeartbeats();
    expect((await get(id)).heartbeat_state).toBe('new'); // never pinged: never late

    expect((await ping(url)).status).toBe(200);
    expect((await get(id)).heartbeat_state).toBe('up');
    clock += 61_000;
    expect(h.cp.tickHeartbeats()).toBe(0);
    expect((await get(id)).heartbeat_state).toBe('late');
    clock += 30_000;
    expect(h.cp.tickHeartbeats()).toBe(1);
    expect((await get(id)).heartbeat_state).toBe('down');
    await until(() => hooksFor(id, 'incident.opened').length === 1);
    expect((await incidents(id))[0].cause).toMatch(/^no ping since .* \(expected by .*\)$/);

    await h.restart(); // ticks at start: the miss is already counted
    clock += 600_000;
    h.cp.tickHeartbeats();
    expect((await incidents(id)).filter((i) => i.resolved_at === null)).toHaveLength(1);
    expect(hooksFor(id, 'incident.opened')).toHaveLength(1);

    const url2 = (await get(id)).ping_url as string;
    expect(url2).toBe(url.replace(/^http:\/\/[^/]+/, h.cp.url)); // same token after a restart
    expect((await ping(url2)).status).toBe(200);
    expect((await get(id)).heartbeat_state).toBe('up');
    await until(() => hooksFor(id, 'incident.resolved').length === 1);
    expect((await incidents(id)).every((i) => i.resolved_at !== null)).toBe(true);
  });

  it('finds a deadline missed while the control plane was stopped', async () => {
    const r = await create({ period_seconds: 120, grace_seconds: 0 });
    const id = r.body.data.url_id as number;
    await ping(r.body.data.ping_url);
    clock += 300_000; // while it restarts (its own timer ticks hourly here: only the start's tick can see the miss)
    await h.restart();
    expect((await get(id)).heartbeat_state).toBe('down');
    expect((await incidents(id)).filter((i) => i.resolved_at === null)).toHaveLength(1);
  });

  it('a failure ping or a non-zero exit code is down at once; /start then a success records the run time in the ping log', async () => {
    const r = await create({ period_seconds: 3600 });
    const id = r.body.data.url_id as number;
    const url = r.body.data.ping_url as string;
    await ping(`${url}/start`);
    clock += 4_200;
    await ping(url, 'POST', 'backup ok: 12 files');
    expect((await get(id)).heartbeat_state).toBe('up');
    await ping(`${url}/3`, 'POST', 'disk full');
    expect((await get(id)).heartbeat_state).toBe('down');
    expect((await incidents(id))[0].cause).toBe('failure ping (exit code 3)');
    await ping(`${url}/0`);
    expect((await get(id)).heartbeat_state).toBe('up');
    await ping(`${url}/fail`);
    expect((await get(id)).heartbeat_state).toBe('down');
    const log = (await h.call('GET', `/api/users/endpoints/${id}/pings`, undefined, token)).body.data as Array<Record<string, unknown>>;
    expect(log.map((p) => p.kind)).toEqual(['fail', 'success', 'fail', 'success', 'start']);
    expect(log[3]).toMatchObject({ body: 'backup ok: 12 files', run_ms: 4200, source: expect.stringMatching(/127\.0\.0\.1/) });
  });

  it('keeps the last 100 pings and limits pings per token (429 past 60 a minute)', async () => {
    const r = await create({ period_seconds: 60 });
    const statuses: number[] = [];
    for (let i = 0; i < 61; i++) statuses.push((await ping(r.body.data.ping_url)).status);
    expect(statuses.slice(0, 60).every((s) => s === 200)).toBe(true);
    expect(statuses[60]).toBe(429);
    clock += 60_000;
    for (let i = 0; i < 45; i++) await ping(r.body.data.ping_url);
    expect((await h.call('GET', `/api/users/endpoints/${r.body.data.url_id}/pings`, undefined, token)).body.data).toHaveLength(100);
  });

  it('a paused heartbeat is paused and does not go down; switched back on it is new until its next ping', async () => {
    const r = await create({ period_seconds: 60, grace_seconds: 0 });
    const id = r.body.data.url_id as number;
    await ping(r.body.data.ping_url);
    await h.call('PATCH', `/api/users/endpoints/${id}/toggle`, { monitoring_enabled: false }, token);
    clock += 120_000;
    h.cp.tickHeartbeats();
    expect((await get(id)).heartbeat_state).toBe('paused');
    expect(await incidents(id)).toHaveLength(0);
    await h.call('PATCH', `/api/users/endpoints/${id}/toggle`, { monitoring_enabled: true }, token);
    h.cp.tickHeartbeats();
    expect((await get(id)).heartbeat_state).toBe('new'); // waits for its next ping
    expect(await incidents(id)).toHaveLength(0);
  });
});

describe('the ping URL is a write credential', () => {
  it('a viewer never sees it; an editor rotates it (the old URL answers 404 at once), a viewer may not', async () => {
    const owner = await h.signup();
    const ws = (await h.call('POST', '/api/workspaces', { name: 'Cron team' }, owner.token)).body.data.id as number;
    const list = (await h.call('GET', '/api/admin/workspaces', undefined, h.cp.adminToken)).body.data as Array<{ id: number; account_email: string }>;
    await h.setPackage(list.find((w) => w.id === ws)!.account_email, 'Pro');
    const inWs = { 'x-workspace-id': String(ws) };
    const members = {} as Record<'editor' | 'viewer', string>;
    for (const role of ['editor', 'viewer'] as const) {
      const m = await h.signup();
      const inv = await h.call('POST', `/api/workspaces/${ws}/invitations`, { email: m.user.email, role }, owner.token);
      expect((await h.call('POST', `/api/invitations/${/\/invitations\/([A-Za-z0-9_-]+)$/.exec(inv.body.data.link)![1]}/accept`, undefined, m.token)).status).toBe(200);
      members[role] = m.token;
    }
    const made = await h.call('POST', '/api/users/endpoints', { name: 'Backup', kind: 'heartbeat', period_seconds: 3600 }, members.editor, inWs);
    expect(made.status).toBe(201);
    const id = made.body.data.url_id as number;
    const first = made.body.data.ping_url as string;
    expect(first).toMatch(/\/ping\/[A-Za-z0-9_-]{20,}$/);

    const seen = await h.call('GET', `/api/users/endpoints/${id}`, undefined, members.viewer, inWs);
    expect(seen.status).toBe(200);
    expect(seen.body.data).toMatchObject({ url_id: id, kind: 'heartbeat', heartbeat_state: 'new' });
    expect(seen.body.data).not.toHaveProperty('ping_url');
    expect(JSON.stringify(seen.body)).not.toContain(first.split('/ping/')[1]);
    expect((await h.call('GET', `/api/users/endpoints/${id}`, undefined, members.editor, inWs)).body.data.ping_url).toBe(first);

    const refused = await h.call('POST', `/api/users/endpoints/${id}/rotate-ping-url`, undefined, members.viewer, inWs);
    expect(refused.status).toBe(403);
    expect((await ping(first)).status).toBe(200);
    const rotated = await h.call('POST', `/api/users/endpoints/${id}/rotate-ping-url`, undefined, members.editor, inWs);
    expect(rotated.status).toBe(200);
    const second = rotated.body.data.ping_url as string;
    expect(second).toMatch(/\/ping\/[A-Za-z0-9_-]{20,}$/);
    expect(second).not.toBe(first);
    expect((await ping(first)).status).toBe(404);
    expect((await ping(second)).status).toBe(200);
    expect((await h.call('GET', `/api/users/endpoints/${id}`, undefined, owner.token, inWs)).body.data.ping_url).toBe(second);
    // only a heartbeat has one; the rotation is in the audit log
    const web = await h.call('POST', '/api/users/endpoints', { name: 'Web', url: 'https://example.com/', regions: ['EU-Germany'], response_code: true }, members.editor, inWs);
    expect((await h.call('POST', `/api/users/endpoints/${web.body.data.url_id}/rotate-ping-url`, undefined, members.editor, inWs)).status).toBe(400);
    const log = (await h.call('GET', `/api/workspaces/${ws}/audit-log?action=endpoint.rotate_ping_url`, undefined, owner.token)).body.data;
    expect(log).toEqual([expect.objectContaining({ action: 'endpoint.rotate_ping_url', target_id: String(id) })]);
    expect(JSON.stringify(log)).not.toContain(second.split('/ping/')[1]);
  });
});
