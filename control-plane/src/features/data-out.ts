// Data out of Upfleet: results export (CSV / NDJSON files), a workspace's Prometheus metrics and README badges.
import type { IncidentHandling } from '../alerting/handling';
import { badgeRoutes, badgeSite } from '../http/routes/badges';
import { exportRoutes } from '../http/routes/exports';
import { metricsRoutes } from '../http/routes/metrics';
import type { MaintenanceService } from '../maintenance';
import type { ResultStore } from '../results/clickhouse-store';
import type { EndpointService } from '../services/endpoints';
import { createBadges } from '../services/badges';
import type { LiveStateService } from '../services/live-state';
import { createBadgesRepo } from '../store/badges-repo';
import { createResultsExport } from '../services/results-export';
import { createWorkspaceMetrics } from '../services/workspace-metrics';
import type { Foundation } from './foundation';
import type { Feature } from './lifecycle';

export function createDataOutFeature(base: Foundation, deps: {
  results: ResultStore | null; endpoints: EndpointService; maintenance: MaintenanceService; incidents: IncidentHandling; live: LiveStateService;
}) {
  const resultsExport = createResultsExport({ endpoints: deps.endpoints, source: deps.results, now: base.now });
  const workspaceMetrics = createWorkspaceMetrics({
    endpoints: base.endpointsRepo, source: deps.results, maintenance: deps.maintenance, now: base.now,
    openIncidents: (userId) => deps.incidents.list(userId, { urlId: null, status: 'open', state: null }),
  });
  const badges = createBadges({
    repo: createBadgesRepo(base.sql.db), ownedEndpoint: (userId, urlId) => deps.endpoints.get(userId, urlId),
    endpoints: base.endpointsRepo, uptime: deps.results, maintenance: deps.maintenance, live: deps.live, now: base.now,
  });
  return {
    name: 'data-out',
    services: { resultsExport, workspaceMetrics, badges },
    routes: () => ({
      // A badge's token is its credential: outside /api, for READMEs anywhere.
      outside: [badgeSite({ badges, publicPerMinute: base.config.rateLimits.publicPerMinute })],
      workspace: [
        ...exportRoutes({ resultsExport, logger: base.logger }),
        ...metricsRoutes({ workspaceMetrics }),
        ...badgeRoutes({ badges, publicUrl: base.config.publicUrl }),
      ],
    }),
  } satisfies Feature<unknown>;
}
