import { Router } from 'express';
import type { AdminService } from '../../services/admin';
import { asBody } from '../../services/validation';
import { requireAdmin } from '../middleware/auth';

export function adminRoutes(admin: AdminService, adminToken: string): Router {
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
  return r;
}
