import { Router } from 'express';
import type { AdminService } from '../../services/admin';
import { AppError } from '../../errors';
import { asBody, parseId } from '../../services/validation';
import { requireAdmin } from '../middleware/auth';

export interface ResultCounter {
  countResults(opts?: { endpointId?: number }): Promise<number>;
}

export function adminRoutes(admin: AdminService, adminToken: string, results: ResultCounter | null): Router {
  const r = Router();
  r.use('/admin', requireAdmin(adminToken));
  r.get('/admin/users', (_req, res) => { res.json({ success: true, data: admin.listUsers() }); });
  r.post('/admin/users/set-package', (req, res) => { res.json({ success: true, data: admin.setPackage(asBody(req.body)) }); });
  r.get('/admin/packages', (_req, res) => { res.json({ success: true, data: admin.listPackages() }); });
  r.get('/admin/regions', (_req, res) => { res.json({ success: true, data: admin.listRegions() }); });
  r.post('/admin/regions', (req, res) => { res.status(201).json({ success: true, data: admin.addRegion(asBody(req.body)) }); });
  r.get('/admin/agent-tokens', (_req, res) => { res.json({ success: true, data: admin.listAgentTokens() }); });
  r.post('/admin/agent-tokens', (req, res) => { res.status(201).json({ success: true, data: admin.createAgentToken(asBody(req.body)) }); });
  r.delete('/admin/agent-tokens/:id', (req, res) => { res.json({ success: true, data: admin.revokeAgentToken(String(req.params.id)) }); });
  r.get('/admin/agents', (_req, res) => { res.json({ success: true, data: admin.listAgents() }); });
  // Exact stored result count (all, or one endpoint's): lets an operator check ingest end to end.
  r.get('/admin/results/count', async (req, res) => {
    if (!results) throw new AppError('unavailable', 'No results store is configured');
    const raw = req.query.endpoint_id;
    const endpointId = raw === undefined ? undefined : parseId(raw, 'Endpoint not found');
    res.json({ success: true, data: { endpoint_id: endpointId ?? null, count: await results.countResults({ endpointId }) } });
  });
  return r;
}
