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
  const repo = createStatusPagesRepo(base.db);
  const subscribers = createStatusSubscribers({
    mail: createStatusMailRepo(base.db), pages: repo, limiter: base.limiter, logger: base.logger,
    smtp: { url: config.alerting.smtpUrl, from: config.alerting.smtpFrom },
    publicUrl: base.publicUrl,
    key: base.key('status-page-unsubscribe'),
  });
  const maintenance = createMaintenanceService({ repo, windowChanged: (w) => subscribers.windowScheduled(w) });
  const statusPages = createStatusPageService({
    repo,
    maintenance,
    events: { reportChanged: (p, r, kind) => subscribers.reportChanged(p, r, kind) },
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
  return {
    name: 'status pages',
    services: { statusPages, subscribers, maintenance },
    routes: (signIn) => ({
      public: [statusPagePublicApi({ statusPages, subscribers, limiter: base.limiter })],
      account: [statusPageOwnerRoutes({ statusPages, maintenance, subscribers, signIn, limiter: base.limiter })],
      pages: [statusPageSite({ statusPages, subscribers, limiter: base.limiter, publicUrl: config.publicUrl })],
    }),
    // The status-mail outbox, maintenance notices and domain rechecks are once-only: on the lease holder.
    ...whileLeader(base.leadership, {
      start: () => {
        subscribers.start(opts.maintenanceTickMs);
        domainChecks.start();
      },
      stop: async () => {
        await subscribers.stop();
        domainChecks.stop();
        await domainCheck;
      },
    }),
  } satisfies Feature<unknown>;
}
