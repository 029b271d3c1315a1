// The data routes of a workspace (`/api/users/*`, `/api/graphs/*`): a session, or an API key acting
// as its owner (account routes such as /users/profile are matched before this router). Each acts on
// the request's workspace (X-Workspace-Id, or the personal one) within the caller's role there, which
// each feature's table declares per route (route-table.ts).
import type { Router } from 'express';
import type { Alerting } from '../../alerting';
import type { AlertService } from '../../alerting/settings';
import type { EndpointService } from '../../services/endpoints';
import type { ApiKeyService } from '../../services/api-keys';
import type { EventHub } from '../../services/events';
import type { GraphService } from '../../services/graphs';
import type { Heartbeats } from '../../services/heartbeats';
import type { RateLimiter } from '../../services/rate-limiter';
import type { TokenService } from '../../services/tokens';
import type { WorkspaceService } from '../../services/workspaces';
import type { CatalogRepo } from '../../store/catalog-repo';
import { inWorkspace, requireUserOrKey } from '../middleware/auth';
import { mount, strictRouter } from '../route-table';
import { alertMethodRoutes } from './alert-methods';
import { catalogRoutes } from './catalog';
import { endpointRoutes } from './endpoints';
import { eventRoutes } from './events';
import { graphRoutes } from './graphs';
import { incidentRoutes } from './incidents';
import { reportRoutes } from './reports';
import type { Reports } from '../../features/reports';

export { publicRoutes } from './catalog';

export function userRoutes(deps: {
  endpoints: EndpointService; alerts: AlertService; alerting: Alerting | null; catalog: CatalogRepo; tokens: TokenService; limiter: RateLimiter; apiKeys: ApiKeyService;
  workspaces: WorkspaceService; graphs: GraphService; heartbeats?: Heartbeats | null; events?: EventHub | null; eventStreamMaxMs?: number; reports: Reports;
}): Router {
  const r = strictRouter();
  const signedIn = [requireUserOrKey(deps.tokens, deps.apiKeys), inWorkspace(deps.workspaces)];
  r.use('/users', ...signedIn);
  mount(r, [
    ...endpointRoutes(deps),
    ...eventRoutes(deps),
    ...catalogRoutes(deps.catalog),
    ...alertMethodRoutes(deps),
    ...incidentRoutes(deps),
    ...reportRoutes(deps),
  ]);
  mount(r, graphRoutes(deps.graphs), ...signedIn);
  return r;
}
