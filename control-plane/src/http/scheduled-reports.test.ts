// The monthly SLA report by mail, with a fake clock and a restart: admins choose plain mailboxes;
// on the 1st in the owner's zone (not UTC's) last month's report is queued in the durable outbox,
// once per workspace and month however often the timer runs or the control plane restarts.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromZonedLocal, zonedDate } from '@upfleet/proto/time-zone';
import { createLogger } from '../logger';
import { createResultStore, type ClickHouseResultStore } from '../results/clickhouse-store';
import { startHarness, type Harness } from '../testing/harness';
import { httpResult } from '../testing/alerting';

const ZONE = 'America/New_York';
let clock = Date.now();
let h: Harness;
let store: ClickHouseResultStore;
let dir: string;
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'upfleet-results-'));
  store = createResultStore({ clickhouseUrl: null, dataDir: dir, logger: createLogger('silent') });
  await store.init();
  h = await startHarness({}, { results: store, now: () => clock });
});
afterAll(async () => {
  await h.close();
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const outbox = () => h.cp.db.prepare("SELECT page_id, to_email, subject, body, idempotency_key, status FROM status_mail_outbox WHERE idempotency_key LIKE 'sla-report-%' ORDER BY mail_id")
  .all() as Array<{ page_id: number | null; to_email: string; subject: string; body: string; idempotency_key: string; status: string }>;

describe('monthly SLA report by mail', () => {
  it('is queued on the 1st in the owner\'s zone for last month, once, even across restarts', async () => {
    const { token, user } = await h.signup();
    h.cp.db.prepare('UPDATE users SET timezone = ? WHERE id = ?').run(ZONE, user.id);
    const month = zonedDate(clock, ZONE).slice(0, 7);
    const [y, m] = month.split('-').map(Number) as [number, number];
    const next = `${m === 12 ? y + 1 : y}-${String(m === 12 ? 1 : m + 1).padStart(2, '0')}`;
    const firstOfNext = fromZonedLocal(`${next}-01T00:00`, ZONE);

    const ep = await h.call('POST', '/api/users/endpoints', { name: 'Shop', url: 'https://example.com/shop', regions: ['EU-Germany'], response_code: true }, token);
    expect(ep.status).toBe(201);
    const id = ep.body.data.url_id as number;
    h.cp.db.prepare('UPDATE endpoints SET created_at = ? WHERE url_id = ?').run(new Date(fromZonedLocal(`${month}-01T00:00`, ZONE) - 86_400_000).toISOString(), id);
    await store.insertBatch(`sched-${id}`, 'agent-1', [httpResult(id, clock - 60_000), httpResult(id, clock - 120_000, { ok: false, phase: 'http', status_code: 503, error: 'HTTP 503' })]);

    // Plain mailboxes only; nothing changes on a refusal.
    const refused = await h.call('PUT', '/api/users/reports/schedule', { enabled: true, recipients: ['ops@example.com; victim@example.com'] }, token);
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ success: false, error: 'Please enter a valid email address' });
    expect((await h.call('PUT', '/api/users/reports/schedule', { enabled: true, recipients: [] }, token)).body.error).toBe('Add at least one recipient to send the monthly report');
    expect((await h.call('GET', '/api/users/reports/schedule', undefined, token)).body.data).toEqual({ enabled: false, recipients: [], timezone: ZONE, next_send_at: null });
    const put = await h.call('PUT', '/api/users/reports/schedule', { enabled: true, recipients: ['Ops@Example.com', 'cfo@example.com', 'ops@example.com'] }, token);
    expect(put.status).toBe(200);
    expect(put.body.data).toEqual({ enabled: true, recipients: ['ops@example.com', 'cfo@example.com'], timezone: ZONE, next_send_at: new Date(firstOfNext).toISOString() });

    // Switched on this month: nothing for it yet.
    expect(await h.cp.tickReports()).toBe(0);
    // Already the 1st in UTC, still the last day in New York.
    clock = firstOfNext - 2 * 3600_000;
    expect(zonedDate(clock, 'UTC').slice(8)).toBe('01');
    expect(await h.cp.tickReports()).toBe(0);
    expect(outbox()).toEqual([]);

    clock = firstOfNext + 30 * 60_000;
    expect(await h.cp.tickReports()).toBe(1);
    const mails = outbox();
    expect(mails.map((x) => [x.to_email, x.idempotency_key, x.page_id])).toEqual([
      ['ops@example.com', `sla-report-${user.id}-${month}-ops@example.com`, null],
      ['cfo@example.com', `sla-report-${user.id}-${month}-cfo@example.com`, null],
    ]);
    expect(mails[0].subject).toBe(`[Upfleet] SLA report ${month}: Personal`);
    expect(mails[0].body).toContain(`SLA report for Personal, ${month} (${ZONE})`);
    expect(mails[0].body).toContain('Shop: uptime 50.00 %');

    // The timer again, then a restart (whose start looks for due reports too): still once.
    expect(await h.cp.tickReports()).toBe(0);
    await h.restart();
    expect(await h.cp.tickReports()).toBe(0);
    expect(outbox()).toHaveLength(2);
    expect(h.cp.db.prepare('SELECT month FROM report_runs WHERE workspace_id = ?').pluck().all(user.id)).toEqual([month]);

    // The month after: its own report; switched off: none.
    clock = fromZonedLocal(`${next.slice(0, 4)}-${next.slice(5)}-28T12:00`, ZONE) + 5 * 86_400_000;
    expect(await h.cp.tickReports()).toBe(1);
    expect(outbox()).toHaveLength(4);
    const off = await h.call('PUT', '/api/users/reports/schedule', { enabled: false, recipients: ['ops@example.com'] }, token);
    expect(off.body.data).toMatchObject({ enabled: false, next_send_at: null });
    clock += 40 * 86_400_000;
    expect(await h.cp.tickReports()).toBe(0);
  });
});
