// Reports: SLOs and error budgets per endpoint, the SLA report over a range.
import type { MaintenanceService } from '../maintenance';
import type { ResultStore } from '../results/clickhouse-store';
import type { EndpointService } from '../services/endpoints';
import { planLookup } from '../services/plan-of';
import { createSlaReportService, type ReportIncident } from '../services/reports/sla-report';
import { createSloService } from '../services/reports/slo';
import { DOWN } from '../alerting/conditions';
import type { Foundation } from './foundation';
import type { Feature } from './lifecycle';

export function createReportsFeature(base: Foundation, deps: { results: ResultStore | null; maintenance: MaintenanceService; endpoints: EndpointService }) {
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
    retentionDays: (userId) => planOf(userId).retention_days,
    timezone: (memberId) => base.users.byId(memberId)?.timezone ?? 'UTC',
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
  return {
    name: 'reports',
    services: { reports: { slo, slaReport } },
  } satisfies Feature<unknown>;
}
export type Reports = ReturnType<typeof createReportsFeature>['services']['reports'];
