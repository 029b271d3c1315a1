// The subscribers' outbox over real SQLite and a real local SMTP server: mail enqueued after a quiet
// spell (passes that found nothing due) still leaves within seconds, not at the next restart.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import pino from 'pino';
import { StatusPageBody } from '@upfleet/proto/schemas';
import { createAlertingFixture, type AlertingFixture } from '../testing/alerting';
import { startSmtpReceiver, type SmtpReceiver } from '../testing/alert-receivers';
import { loadedCatalog } from '../testing/catalog';
import { createRateLimitRepo } from '../store/rate-limit-repo';
import { sqliteSql } from '../store/sql/open';
import { createStatusMailRepo } from '../store/status-mail-repo';
import { createStatusPagesRepo } from '../store/status-pages-repo';
import { createRateLimiter, type LimitBucket, type LimitRule } from './rate-limiter';
import { createMaintenanceService } from '../maintenance';
import { createStatusPageService } from './status-pages';
import { createStatusSubscribers, type StatusSubscribers } from './status-subscribers';

const logger = pino({ level: 'silent' });
const roomy: LimitRule = { max: 1000, windowSeconds: 3600 };
const buckets: LimitBucket[] = ['login_ip', 'signup_ip', 'refresh_ip', 'twofa_ip', 'account_fail', 'endpoint_mutation', 'checkout_ip', 'test_send_user',
  'test_send_method', 'verify_email_user', 'status_password', 'subscribe_email', 'subscribe_page', 'invitation_user'];
const rules = Object.fromEntries(buckets.map((b) => [b, roomy])) as Record<LimitBucket, LimitRule>;

async function waitFor<T>(fn: () => T | undefined | null | false, ms = 5_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = fn();
    if (v) return v;
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('status mail outbox', () => {
  let fx: AlertingFixture;
  let smtp: SmtpReceiver;
  let subs: StatusSubscribers;

  beforeEach(async () => {
    fx = createAlertingFixture();
    smtp = await startSmtpReceiver();
  });
  afterEach(async () => {
    await subs?.stop();
    await smtp.close();
    fx.close();
  });

  it('mails a subscription made after a quiet spell within seconds', async () => {
    const catalog = await loadedCatalog(fx.db);
    const pagesRepo = createStatusPagesRepo(sqliteSql(fx.db).db);
    const sp = createStatusPageService({ repo: pagesRepo, maintenance: createMaintenanceService({ repo: pagesRepo }), planOf: () => catalog.packageByName('Business')!, cookieKey: Buffer.alloc(32) });
    const limiter = createRateLimiter(createRateLimitRepo(sqliteSql(fx.db).db), rules);
    subs = createStatusSubscribers({
      mail: createStatusMailRepo(sqliteSql(fx.db).db), pages: pagesRepo, limiter, logger,
      smtp: { url: smtp.url, from: 'status@upfleet.test' }, publicUrl: () => 'http://127.0.0.1:1', key: Buffer.alloc(32),
      // The poll would rescue stuck mail only after a minute: the mail must leave on its own wake-up.
      pollMs: 60_000,
    });
    subs.start(60_000);
    const page = await sp.create(fx.userId, StatusPageBody.parse({ slug: 'quiet', title: 'Quiet', components: [{ name: 'API', endpoint_id: fx.addEndpoint() }], published: true }));
    // A quiet spell: passes that find nothing due, as the poll runs them when no mail is waiting.
    await subs.flush();
    await subs.flush();
    await subs.subscribe(await sp.publicPage({ slug: page.slug }), 'late@example.com');
    const mail = await waitFor(() => smtp.messages.find((m) => m.to.includes('late@example.com')));
    expect(mail.raw).toContain('Please confirm your subscription');
    // marked sent once the SMTP server has taken it (the pass records it right after)
    await subs.flush();
    expect(fx.db.prepare("SELECT status FROM status_mail_outbox WHERE to_email = 'late@example.com'").pluck().get()).toBe('sent');
  });
});
