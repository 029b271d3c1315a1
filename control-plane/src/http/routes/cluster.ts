// GET /api/admin/cluster (admin token, like every /api/admin route): the control-plane processes,
// their versions, and which one holds the leader lease since when (`upfleet cluster status`).
import type { Router } from 'express';
import type { ClusterStatusService } from '../../cluster/status';
import { requireAdmin } from '../middleware/auth';
import { strictRouter } from '../route-table';

export function clusterRoutes(cluster: ClusterStatusService, adminToken: string): Router {
  const r = strictRouter();
  r.get('/admin/cluster', requireAdmin(adminToken), async (_req, res) => {
    res.json({ success: true, data: await cluster.status() });
  });
  return r;
}
