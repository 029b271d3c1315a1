// Status pages, their subscribers' mail, and maintenance windows (which the public view shows and
// alerting, the live state and the uptime queries read).
import { createTxtLookup } from '../lib/dns-txt';
import { createMaintenanceService } from '../maintenance';
import type { ResultStore } from '../results/clickhouse-store';
import { createStatusPageService } from '../services/status-pages';
import { createStatusSubscribers } from '../services/status-subscribers';
import { createStatusMailRepo } from '../store/status-mail-repo';
import { createStatusPagesRepo } from '../store/status-pages-repo';
import type { Foundation } from './foundation';
import { every, whileLeader, type Feature } from './lifecycle';
import { statusPageOwnerRoutes, statusPagePublicApi, statusPageSite } from '../http/routes/status-pages';

export function createStatusPagesFeature(base: Foundation, results: ResultStore | null, opts: { maintenanceTickMs?: number; domainCheckTickMs?: number }) {
  const { config } = base;
  const repo = createStatusPagesRepo(base.sql.db);
  const subscribers = createStatusSubscribers({
    mail: createStatusMailRepo(base.sql.db), pages: repo, limiter: base.limiter, logger: base.logger,
    smtp: { url: config.alerting.smtpUrl, from: config.alerting.smtpFrom },
    publicUrl: base.publicUrl,
    key: base.key('status-page-unsubscribe'),
  });
  // A failure to queue the mail is logged; the change it is about stands.
  const mailFailed = (err: Error) => base.logger.error({ err: err.message }, 'status mail not queued');
  const maintenance = createMaintenanceService({ repo, windowChanged: (w) => subscribers.windowScheduled(w).catch(mailFailed) });
  const statusPages = createStatusPageService({
    repo,
    maintenance,
    events: { reportChanged: (p, r, kind) => subscribers.reportChanged(p, r, kind).catch(mailFailed) },
    planOf: base.planOf,
    uptime: results ?? undefined,
    cookieKey: base.key('status-page-cookies'),
    lookupTxt: createTxtLookup(config.dnsResolvers),
    ownHost: () => {
      try {
        return new URL(base.publicUrl()).hostname.replace(/^\[|\]$/g, '');
      } catch {
        return null;
      }
    },
    logger: base.logger, now: base.now,
  });
  // Each custom-domain claim is looked up again about a day after its last check; a tick takes a bounded batch.
  let domainCheck: Promise<unknown> = Promise.resolve();
  const domainChecks = every(opts.domainCheckTickMs ?? 3_600_000, () => {
    domainCheck = domainCheck.then(() => statusPages.recheckDomains()).catch((err: Error) => base.logger.warn({ err: err.message }, 'custom domain check failed'));
  });
  // Every process keeps the maintenance spans alerting asks about in memory (maintenance/index.ts).
  const spanRefresh = every(maintenance.refreshEveryMs, () => {
    void maintenance.refresh().catch((err: Error) => base.logger.warn({ err: err.message }, 'maintenance windows not re-read'));
  });
  // The status-mail outbox, maintenance notices and domain rechecks are once-only: on the lease holder.
  const leaderWork = whileLeader(base.leadership, {
    start: () => {
      subscribers.start(opts.maintenanceTickMs);
      domainChecks.start();
    },
    stop: async () => {
      await subscribers.stop();
      domainChecks.stop();
      await domainCheck;
    },
  });
  return {
    name: 'status pages',
    services: { statusPages, subscribers, maintenance },
    routes: (signIn) => ({
      public: [statusPagePublicApi({ statusPages, subscribers, limiter: base.limiter })],
      account: [statusPageOwnerRoutes({ statusPages, maintenance, subscribers, signIn, limiter: base.limiter })],
      pages: [statusPageSite({ statusPages, subscribers, limiter: base.limiter, publicUrl: config.publicUrl })],
    }),
    start: async () => {
      await maintenance.refresh();
      spanRefresh.start();
      await leaderWork.start();
    },
    stop: async () => {
      spanRefresh.stop();
      await leaderWork.stop();
    },
  } satisfies Feature<unknown>;
}
