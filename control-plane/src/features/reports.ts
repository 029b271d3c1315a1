// Reports: SLOs and error budgets per endpoint, the SLA report over a range, and each workspace's
// monthly report by mail (a timer looks for due ones every REPORT_TICK_MS and once at start).
import type { MaintenanceService } from '../maintenance';
import type { ResultStore } from '../results/clickhouse-store';
import type { EndpointService } from '../services/endpoints';
import { planLookup } from '../services/plan-of';
import { createSlaReportService, type ReportIncident } from '../services/reports/sla-report';
import { createSloService } from '../services/reports/slo';
import { DOWN } from '../alerting/conditions';
import type { Foundation } from './foundation';
import { every, type Feature } from './lifecycle';
import { createScheduledReports } from '../services/reports/scheduled-reports';
import { createStatusMailRepo } from '../store/status-mail-repo';
import type { StatusSubscribers } from '../services/status-subscribers';
import { reportRoutes } from '../http/routes/reports';

/** How often due monthly reports are looked for (the 1st begins at a zone's midnight). */
export const REPORT_TICK_MS = 10 * 60_000;

export function createReportsFeature(
  base: Foundation,
  deps: { results: ResultStore | null; maintenance: MaintenanceService; endpoints: EndpointService; mailer: Pick<StatusSubscribers, 'flush'> },
  opts: { tickMs?: number } = {},
) {
  const { results, maintenance, endpoints } = deps;
  const now = base.now ?? Date.now;
  const planOf = planLookup(base.users, base.catalog);
  const common = {
    results,
    createdAtMs: (ids: number[]) => base.endpointsRepo.createdAtMs(ids),
    // From SQLite: SLO windows and reports look back further than the in-memory spans.
    maintenance: (ids: number[], fromMs: number, toMs: number) => maintenance.spansSince(ids, fromMs, toMs),
    now,
  };
  const slo = createSloService({ ...common, endpoint: (userId, urlId) => endpoints.get(userId, urlId, { showPingUrl: false }) });
  const slaReport = createSlaReportService({
    ...common,
    list: (userId) => base.endpointsRepo.list(userId),
    retentionDays: async (userId) => (await planOf(userId)).retention_days,
    timezone: async (memberId) => (await base.users.byId(memberId))?.timezone ?? 'UTC',
    // Outages only (threshold incidents are not downtime), of the workspace's own endpoints.
    incidents: async (userId, urlIds, fromMs, toMs): Promise<ReportIncident[]> => {
      const rows = await base.sql.db.selectFrom('incidents')
        .select(['incident_id', 'url_id', 'regions', 'opened_at', 'resolved_at', 'acknowledged_at'])
        .where('user_id', '=', userId).where('url_id', 'in', urlIds).where('condition', '=', DOWN)
        .where('opened_at', '>=', fromMs).where('opened_at', '<', toMs)
        .orderBy('opened_at').execute();
      return rows.map((r) => ({ ...r, regions: JSON.parse(r.regions) as string[] }));
    },
    windows: (ids, fromMs, toMs) => maintenance.windowsForEndpoints(ids, fromMs, toMs, now()),
  });
  const outbox = createStatusMailRepo(base.sql.db);
  const ownerOf = async (workspaceId: number) => {
    const owner = (await base.workspacesRepo.members(workspaceId)).find((m) => m.role === 'owner');
    const person = await base.users.byId(owner?.user_id ?? workspaceId);
    return { memberId: person?.id ?? workspaceId, timezone: person?.timezone ?? 'UTC', name: (await base.workspacesRepo.get(workspaceId))?.name ?? person?.username ?? `workspace ${workspaceId}` };
  };
  const schedule = createScheduledReports({
    sql: base.sql.db,
    // The month's mark and its mails commit together; of two processes marking a month, one queues it.
    queueMonth: (workspaceId, month, mails, at) => outbox.transaction(async (mail, trx) => {
      const marked = await trx.insertInto('report_runs').values({ workspace_id: workspaceId, month, sent_at: at })
        .onConflict((oc) => oc.columns(['workspace_id', 'month']).doNothing())
        .returning('month').executeTakeFirst();
      if (!marked) return false;
      for (const m of mails) await mail.enqueue(m, at);
      return true;
    }),
    mailQueued: () => void deps.mailer.flush(),
    sla: slaReport,
    owner: ownerOf,
    logger: base.logger,
    now,
  });
  const tick = () => void schedule.tick().catch((err: Error) => base.logger.warn({ err: err.message }, 'monthly reports not looked for'));
  const timer = every(opts.tickMs ?? REPORT_TICK_MS, tick);
  return {
    name: 'reports',
    services: { reports: { slo, slaReport, schedule } },
    routes: () => ({ workspace: reportRoutes({ reports: { slo, slaReport, schedule } }) }),
    start: () => {
      tick();
      timer.start();
    },
    stop: () => timer.stop(),
  } satisfies Feature<unknown>;
}
export type { Reports } from '../services/reports/scheduled-reports';
