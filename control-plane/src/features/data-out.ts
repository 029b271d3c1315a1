// Data out of Upfleet: results export (CSV / NDJSON files) and a workspace's Prometheus metrics.
import type { Alerting } from '../alerting';
import type { MaintenanceService } from '../maintenance';
import type { ResultStore } from '../results/clickhouse-store';
import type { EndpointService } from '../services/endpoints';
import { createResultsExport } from '../services/results-export';
import { createWorkspaceMetrics } from '../services/workspace-metrics';
import type { Foundation } from './foundation';
import type { Feature } from './lifecycle';

export function createDataOutFeature(base: Foundation, deps: { results: ResultStore | null; endpoints: EndpointService; maintenance: MaintenanceService; alerting: Alerting | null }) {
  const resultsExport = createResultsExport({ endpoints: deps.endpoints, source: deps.results, now: base.now });
  const alerting = deps.alerting;
  const workspaceMetrics = createWorkspaceMetrics({
    endpoints: base.endpointsRepo, source: deps.results, maintenance: deps.maintenance, now: base.now,
    openIncidents: alerting ? (userId) => alerting.listIncidents(userId, { endpointId: null, status: 'open' }) : null,
  });
  return {
    name: 'data-out',
    services: { resultsExport, workspaceMetrics },
  } satisfies Feature<unknown>;
}
