// Email and SMS alerts go out only for accounts whose email is verified (a real SMTP
// server on loopback, the real alerting service and SQLite).
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSmtpReceiver, type SmtpReceiver } from '../testing/alert-receivers';
import { createAlertingFixture, type AlertingFixture } from '../testing/alerting';
import { createAlertsRepo } from './settings-repo';
import { createChannels } from './channels';
import { createAlerting, UNVERIFIED_DELIVERY } from './index';
import { createAlertingRepo } from './repo';
import type { AlertEvent } from './types';

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

describe('email and SMS deliveries of an unverified account', () => {
  let fx: AlertingFixture;
  let smtp: SmtpReceiver;
  beforeEach(async () => {
    fx = createAlertingFixture();
    smtp = await startSmtpReceiver();
  });
  afterEach(async () => {
    await smtp.close();
    fx.close();
  });

  it('are marked failed with the reason and nothing is sent; once verified they go out', async () => {
    let verified = false;
    const repo = createAlertingRepo(fx.db);
    const alerting = createAlerting({
      repo, alerts: createAlertsRepo(fx.db), box: fx.box, logger: pino({ level: 'silent' }), regionLabel: (k) => k, primaryRegion: () => 'EU-Germany',
      channels: createChannels({
        publicUrl: null, allowPrivateTargets: true, slackApiUrl: 'http://127.0.0.1:9', telegramApiUrl: 'http://127.0.0.1:9',
        twilio: { apiUrl: 'http://127.0.0.1:9', accountSid: null, authToken: null, from: null }, smtp: { url: smtp.url, from: 'Upfleet <a@upfleet.test>' },
      }),
      pollMs: 20, emailVerified: () => verified,
    });
    const methodId = fx.addMethod('email', { email_address: 'ops@example.com' });
    const status = (key: string) => fx.db.prepare('SELECT status, last_error FROM alert_deliveries WHERE idempotency_key = ?').get(key) as { status: string; last_error: string | null } | undefined;
    alerting.start();
    try {
      repo.insertDelivery({ userId: fx.userId, methodId, incidentId: null, event, key: 'unverified', now: Date.now() });
      expect(await until(() => status('unverified')?.status === 'failed' && status('unverified'))).toEqual({ status: 'failed', last_error: UNVERIFIED_DELIVERY });
      expect(smtp.messages).toHaveLength(0);
      verified = true;
      repo.insertDelivery({ userId: fx.userId, methodId, incidentId: null, event, key: 'verified', now: Date.now() });
      await until(() => status('verified')?.status === 'delivered');
      expect(smtp.messages.map((m) => m.to)).toEqual([['ops@example.com']]);
    } finally {
      await alerting.stop();
    }
  });
});
