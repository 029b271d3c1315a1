// A workspace's endpoints as Prometheus metrics, for a Prometheus scraping with an API key
// (`authorization: { credentials: upk_… }`) or a session.
import { AppError } from '../../errors';
import type { WorkspaceMetrics } from '../../services/workspace-metrics';
import { authOf } from '../middleware/auth';
import { route, type RouteDecl } from '../route-table';

export function metricsRoutes(deps: { workspaceMetrics?: WorkspaceMetrics }): RouteDecl[] {
  return [
    route('get', '/users/metrics', 'viewer', async (req, res) => {
      if (!deps.workspaceMetrics) throw new AppError('unavailable', 'Results are not available');
      const out = await deps.workspaceMetrics.render(authOf(req).userId);
      res.type(out.contentType).send(out.text);
    }),
  ];
}
