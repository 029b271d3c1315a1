// Handling an incident: its timeline, acknowledging it (editors and above), and MTTA/MTTR per endpoint.
import { IncidentsAcknowledgeBody, IncidentStatsQuery } from '@upfleet/proto/schemas';
import type { IncidentHandling } from '../../alerting/handling';
import { GROUP_NOT_FOUND, INCIDENT_NOT_FOUND } from '../../alerting/handling';
import { parseId, parseInput } from '../../services/validation';
import { authOf } from '../middleware/auth';
import { route, type RouteDecl } from '../route-table';

export function incidentHandlingRoutes(deps: { incidents: IncidentHandling }): RouteDecl[] {
  const { incidents } = deps;
  const incidentId = (raw: unknown) => parseId(raw, INCIDENT_NOT_FOUND);
  return [
    // Before /users/incidents/:id, which would otherwise take 'stats' for an id.
    route('get', '/users/incidents/stats', 'viewer', (req, res) => {
      const raw = Object.fromEntries(Object.entries(req.query as Record<string, unknown>).filter(([, v]) => v !== ''));
      res.json({ success: true, data: incidents.stats(authOf(req).userId, parseInput(IncidentStatsQuery, raw)) });
    }),
    route('get', '/users/incidents/:id', 'viewer', async (req, res) => {
      res.json({ success: true, data: await incidents.detail(authOf(req).userId, incidentId(req.params.id)) });
    }),
    route('post', '/users/incidents/acknowledge', { role: 'editor', action: 'incident.acknowledge' }, async (req, res) => {
      const a = authOf(req);
      const { incident_ids } = parseInput(IncidentsAcknowledgeBody, req.body);
      res.json({ success: true, data: await incidents.acknowledgeMany(a.userId, incident_ids, a.memberId ?? a.keyCreatedBy ?? a.userId) });
    }),
    // A storm's group whole: every open incident of it (its Incidents page button, its messages' group link).
    route('post', '/users/incidents/groups/:id/acknowledge', { role: 'editor', action: 'incident.acknowledge' }, async (req, res) => {
      const a = authOf(req);
      res.json({ success: true, data: await incidents.acknowledgeGroup(a.userId, parseId(req.params.id, GROUP_NOT_FOUND), a.memberId ?? a.keyCreatedBy ?? a.userId) });
    }),
    route('post', '/users/incidents/:id/acknowledge', { role: 'editor', action: 'incident.acknowledge' }, async (req, res) => {
      const a = authOf(req);
      res.json({ success: true, data: await incidents.acknowledge(a.userId, incidentId(req.params.id), a.memberId ?? a.keyCreatedBy ?? a.userId) });
    }),
  ];
}
