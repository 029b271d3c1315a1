// Data out of Upfleet: results export (CSV / NDJSON files), a workspace's Prometheus metrics and README badges.
import type { Alerting } from '../alerting';
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
  results: ResultStore | null; endpoints: EndpointService; maintenance: MaintenanceService; alerting: Alerting | null; live: LiveStateService;
}) {
  const resultsExport = createResultsExport({ endpoints: deps.endpoints, source: deps.results, now: base.now });
  const alerting = deps.alerting;
  const workspaceMetrics = createWorkspaceMetrics({
    endpoints: base.endpointsRepo, source: deps.results, maintenance: deps.maintenance, now: base.now,
    openIncidents: alerting ? (userId) => alerting.listIncidents(userId, { endpointId: null, status: 'open' }) : null,
  });
  const badges = createBadges({
    repo: createBadgesRepo(base.sql.db), ownedEndpoint: (userId, urlId) => deps.endpoints.get(userId, urlId),
    endpoints: base.endpointsRepo, uptime: deps.results, maintenance: deps.maintenance, live: deps.live, now: base.now,
  });
  return {
    name: 'data-out',
    services: { resultsExport, workspaceMetrics, badges },
  } satisfies Feature<unknown>;
}
