import type { Router } from 'express';
import type { AdminService } from '../../services/admin';
import { AppError } from '../../errors';
import { AgentTokenCreateBody, RegionCreateBody, ResultsCountQuery, SetPackageBody, WorkspaceSetPackageBody } from '@upfleet/proto/schemas';
import { parseId, parseInput } from '../../services/validation';
import { notFound } from '../../errors';
import { requireAdmin } from '../middleware/auth';
import { strictRouter } from '../route-table';

export interface ResultCounter {
  countResults(opts?: { endpointId?: number }): Promise<number>;
}

export function adminRoutes(admin: AdminService, adminToken: string, results: ResultCounter | null): Router {
  const r = strictRouter();
  r.use('/admin', requireAdmin(adminToken));
  r.get('/admin/users', async (_req, res) => { res.json({ success: true, data: await admin.listUsers() }); });
  r.post('/admin/users/set-package', async (req, res) => { res.json({ success: true, data: await admin.setPackage(parseInput(SetPackageBody, req.body)) }); });
  r.get('/admin/workspaces', async (_req, res) => { res.json({ success: true, data: await admin.listWorkspaces() }); });
  r.post('/admin/workspaces/:id/set-package', async (req, res) => {
    const id = parseId(req.params.id, 'Workspace not found');
    res.json({ success: true, data: await admin.setWorkspacePackage(id, parseInput(WorkspaceSetPackageBody, req.body)) });
  });
  r.get('/admin/packages', (_req, res) => { res.json({ success: true, data: admin.listPackages() }); });
  r.get('/admin/regions', async (_req, res) => { res.json({ success: true, data: await admin.listRegions() }); });
  r.post('/admin/regions', async (req, res) => { res.status(201).json({ success: true, data: await admin.addRegion(parseInput(RegionCreateBody, req.body)) }); });
  r.get('/admin/agent-tokens', async (_req, res) => { res.json({ success: true, data: await admin.listAgentTokens() }); });
  r.post('/admin/agent-tokens', async (req, res) => { res.status(201).json({ success: true, data: await admin.createAgentToken(parseInput(AgentTokenCreateBody, req.body)) }); });
  r.delete('/admin/agent-tokens/:id', async (req, res) => { res.json({ success: true, data: await admin.revokeAgentToken(String(req.params.id)) }); });
  r.get('/admin/agents', async (_req, res) => { res.json({ success: true, data: await admin.listAgents() }); });
  // Exact stored result count (all, or one endpoint's): lets an operator check ingest end to end.
  r.get('/admin/results/count', async (req, res) => {
    if (!results) throw new AppError('unavailable', 'No results store is configured');
    const q = ResultsCountQuery.safeParse(req.query);
    if (!q.success) throw notFound('Endpoint not found'); // an id that cannot exist, as on every id route
    const endpointId = q.data.endpoint_id;
    res.json({ success: true, data: { endpoint_id: endpointId ?? null, count: await results.countResults({ endpointId }) } });
  });
  return r;
}
