import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import pino from 'pino';
import { startHttpReceiver, type HttpReceiver } from '../testing/alert-receivers';
import { createAlertingFixture, type AlertingFixture } from '../testing/alerting';
import { createChannels } from './channels';
import { backoffMs, createDispatcher, GIVE_UP_AFTER_MS, RETRY_MAX_MS, RETRY_MIN_MS } from './dispatcher';
import { createAlertingRepo, type AlertingRepo } from './repo';
import type { AlertEvent } from './types';

const logger = pino({ level: 'silent' });
const event: AlertEvent = {
  type: 'incident.opened', occurred_at: '2026-11-23T10:00:00.000Z', endpoint: { id: 1, name: 'Shop', url: 'https://shop.example.com/' },
  incident: { id: 1, condition: 'down', cause: 'HTTP 503 from EU - Germany', regions: ['EU - Germany'], opened_at: '2026-11-23T10:00:00.000Z', resolved_at: null, flapping: false },
};

async function until<T>(fn: () => T | undefined | null | false, ms = 5000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = fn();
    if (v) return v;
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('delivery dispatcher', () => {
  let fx: AlertingFixture;
  let repo: AlertingRepo;
  let receiver: HttpReceiver;
  let clock: number;
  let dispatcher: ReturnType<typeof createDispatcher>;
  let methodId: number;
  const row = () => fx.db.prepare('SELECT * FROM alert_deliveries').get() as Record<string, any>;

  beforeEach(async () => {
    fx = createAlertingFixture();
    repo = createAlertingRepo(fx.db);
    clock = Date.UTC(2026, 10, 23, 10, 0, 0);
    receiver = await startHttpReceiver();
    methodId = fx.addMethod('webhook', { webhook_url: `${receiver.url}/hook`, signing_secret: 'whsec_AAAA' });
    const channels = createChannels({
      publicUrl: null, allowPrivateTargets: true, slackApiUrl: receiver.url, telegramApiUrl: receiver.url,
      twilio: { apiUrl: receiver.url, accountSid: null, authToken: null, from: null }, smtp: { url: null, from: null },
    });
    dispatcher = createDispatcher({
      repo, channels, logger, now: () => clock, random: () => 0.5, pollMs: 20,
      method: (userId, id) => {
        const m = fx.db.prepare('SELECT * FROM alert_methods WHERE user_id = ? AND alert_method_id = ?').get(userId, id) as any;
        return m ? { platform: m.platform, enabled: m.is_enabled === 1, config: JSON.parse(fx.box.open(m.config_enc)) } : null;
      },
    });
    repo.insertDelivery({ userId: fx.userId, methodId, incidentId: null, event, key: 'inc1-opened-m1', now: clock });
  });
  afterEach(async () => {
    await dispatcher.stop();
    await receiver.close();
    fx.close();
  });

  it('delivers exactly once to a receiver answering 500 twice then 200, backing off at least 5 s between tries', async () => {
    receiver.script = (_r, n) => ({ status: n < 2 ? 500 : 200 });
    dispatcher.start();
    await until(() => row().attempts === 1);
    expect(row()).toMatchObject({ status: 'pending', last_error: 'HTTP 500', next_attempt_at: clock + RETRY_MIN_MS });
    clock += RETRY_MIN_MS - 1;
    await new Promise((r) => setTimeout(r, 150));
    expect(receiver.requests).toHaveLength(1); // not due yet
    clock += 1;
    await until(() => row().attempts === 2);
    expect(row().next_attempt_at).toBe(clock + 2 * RETRY_MIN_MS);
    clock += 2 * RETRY_MIN_MS;
    await until(() => row().status === 'delivered');
    await new Promise((r) => setTimeout(r, 150));
    expect(receiver.requests).toHaveLength(3);
    expect(new Set(receiver.requests.map((r) => r.headers['webhook-id']))).toEqual(new Set(['inc1-opened-m1']));
    expect(row()).toMatchObject({ status: 'delivered', attempts: 3, last_error: null, delivered_at: clock });
  });

  it('waits as long as a 429 Retry-After says', async () => {
    receiver.script = () => ({ status: 429, headers: { 'retry-after': '120' } });
    dispatcher.start();
    await until(() => row().attempts === 1);
    expect(row()).toMatchObject({ status: 'pending', next_attempt_at: clock + 120_000 });
  });

  it('fails for good on a 4xx other than 429 and keeps the provider\'s answer as the last error', async () => {
    receiver.script = () => ({ status: 404, body: { message: 'Unknown Webhook' } });
    dispatcher.start();
    await until(() => row().status === 'failed');
    expect(row()).toMatchObject({ attempts: 1, last_error: 'HTTP 404: Unknown Webhook' });
    clock += RETRY_MAX_MS;
    await new Promise((r) => setTimeout(r, 150));
    expect(receiver.requests).toHaveLength(1);
  });

  it('gives up after 24 h of failed tries', async () => {
    receiver.script = () => ({ status: 503 });
    clock += GIVE_UP_AFTER_MS - 1000;
    dispatcher.start();
    await until(() => row().status === 'failed');
    expect(row().last_error).toBe('gave up after 24 h: HTTP 503');
  });

  it('does not send for a method disabled after the event', async () => {
    fx.db.prepare('UPDATE alert_methods SET is_enabled = 0').run();
    dispatcher.start();
    await until(() => row().status === 'failed');
    expect(row().last_error).toBe('Alert method is disabled');
    expect(receiver.requests).toHaveLength(0);
  });
});

describe('backoffMs', () => {
  it('doubles from 5 s to at most 10 min, with jitter inside those bounds', () => {
    expect([1, 2, 3, 4].map((n) => backoffMs(n, () => 0.5))).toEqual([5000, 10_000, 20_000, 40_000]);
    expect(backoffMs(20, () => 0.5)).toBe(RETRY_MAX_MS);
    for (const r of [0, 0.999]) {
      for (let n = 1; n < 12; n++) {
        const d = backoffMs(n, () => r);
        expect(d).toBeGreaterThanOrEqual(RETRY_MIN_MS);
        expect(d).toBeLessThanOrEqual(RETRY_MAX_MS);
      }
    }
    expect(backoffMs(3, () => 0)).toBe(15_000);
    expect(backoffMs(3, () => 0.999)).toBeGreaterThan(24_000);
  });
});
