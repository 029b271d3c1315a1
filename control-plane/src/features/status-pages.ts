// Status pages, their subscribers' mail, and maintenance windows (which the public view shows and
// alerting, the live state and the uptime queries read).
import { createMaintenanceService } from '../maintenance';
import type { ResultStore } from '../results/clickhouse-store';
import { createStatusPageService } from '../services/status-pages';
import { createStatusSubscribers } from '../services/status-subscribers';
import { createStatusMailRepo } from '../store/status-mail-repo';
import { createStatusPagesRepo } from '../store/status-pages-repo';
import type { Foundation } from './foundation';
import type { Feature } from './lifecycle';

export function createStatusPagesFeature(base: Foundation, results: ResultStore | null, opts: { maintenanceTickMs?: number }) {
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
  });
  return {
    name: 'status pages',
    services: { statusPages, subscribers, maintenance },
    start: () => subscribers.start(opts.maintenanceTickMs),
    stop: () => subscribers.stop(),
  } satisfies Feature<unknown>;
}
