// Slack threading through the dispatcher on real SQLite (threads stored with Kysely on the same
// handle) against a local server speaking Slack's Web API: the opening starts the thread, a reminder
// queued while the opening is still being retried waits for it and then replies in its thread.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import pino from 'pino';
import { startHttpReceiver, type HttpReceiver } from '../testing/alert-receivers';
import { createAlertingFixture, type AlertingFixture } from '../testing/alerting';
import { sqliteSql } from '../store/sql/open';
import { createChannels } from './channels';
import { createDispatcher } from './dispatcher';
import { createAlertingRepo } from './repo';
import { createThreadsRepo } from './threads-repo';
import type { AlertEvent } from './types';

const logger = pino({ level: 'silent' });

describe('slack threads through the outbox', () => {
  let fx: AlertingFixture;
  let receiver: HttpReceiver;
  let clock: number;
  let dispatcher: ReturnType<typeof createDispatcher>;

  beforeEach(async () => {
    fx = createAlertingFixture();
    clock = Date.UTC(2026, 10, 23, 10, 0, 0);
    // The first post fails with a 5xx (retried), then every call is answered with the root's ts.
    receiver = await startHttpReceiver((_r, n) => (n === 0 ? { status: 503, body: 'busy' } : { status: 200, body: { ok: true, channel: 'C9', ts: '111.222' } }));
  });
  afterEach(async () => {
    await dispatcher.stop();
    await receiver.close();
    fx.close();
  });

  it('holds a reminder until the opening has started the thread, then replies in it', async () => {
    const repo = createAlertingRepo(fx.db);
    const urlId = fx.addEndpoint({ name: 'Shop' });
    const slack = fx.addMethod('slack', { bot_token: 'xoxb-1', channel: '#ops' });
    const incidentId = repo.insertIncident({ user_id: fx.userId, url_id: urlId, condition: 'down', regions: '[]', cause: 'HTTP 503', flapping: 0, opened_at: clock });
    const base = { occurred_at: new Date(clock).toISOString(), endpoint: { id: urlId, name: 'Shop', url: 'https://shop.example.com/' },
      incident: { id: incidentId, condition: 'down', cause: 'HTTP 503', regions: [], opened_at: new Date(clock).toISOString(), resolved_at: null, flapping: false } };
    const opened: AlertEvent = { ...base, type: 'incident.opened', step: 1 };
    const reminder: AlertEvent = { ...base, type: 'incident.reminder', step: 1, reminder: { n: 1, of: 1 } };
    repo.insertDelivery({ userId: fx.userId, methodId: slack, incidentId, event: opened, key: 'open', now: clock, step: 1 });
    repo.insertDelivery({ userId: fx.userId, methodId: slack, incidentId, event: reminder, key: 'remind', now: clock, step: 1 });
    const channels = createChannels({
      publicUrl: null, allowPrivateTargets: true, slackApiUrl: receiver.url, telegramApiUrl: receiver.url,
      twilio: { apiUrl: receiver.url, accountSid: null, authToken: null, from: null }, smtp: { url: null, from: null },
    });
    dispatcher = createDispatcher({
      repo, channels, logger, now: () => clock, random: () => 0.5, pollMs: 20, threads: createThreadsRepo(sqliteSql(fx.db).db),
      method: () => ({ platform: 'slack', enabled: true, config: { bot_token: 'xoxb-1', channel: '#ops' } }),
    });
    dispatcher.start();
    const status = (key: string) => fx.db.prepare('SELECT status, attempts FROM alert_deliveries WHERE idempotency_key = ?').get(key) as { status: string; attempts: number };
    const end = Date.now() + 8000;
    while (status('open').attempts === 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, 200));
    // The opening failed once and waits for its retry; the reminder has not been sent on its own.
    expect(receiver.requests).toHaveLength(1);
    expect(status('remind')).toEqual({ status: 'pending', attempts: 0 });
    // Time passes: the opening's retry goes out first, the reminder after it.
    while (status('remind').status !== 'delivered' && Date.now() < end) {
      clock += 3_000;
      await new Promise((r) => setTimeout(r, 30));
    }
    const bodies = receiver.requests.map((r) => JSON.parse(r.body === 'busy' ? '{}' : r.body) as Record<string, unknown>);
    expect(bodies.slice(1).map((b) => [b.channel, b.thread_ts ?? null])).toEqual([['#ops', null], ['C9', '111.222']]);
    expect(await createThreadsRepo(sqliteSql(fx.db).db).get(incidentId, slack)).toEqual({ channel: 'C9', ts: '111.222' });
  });
});
