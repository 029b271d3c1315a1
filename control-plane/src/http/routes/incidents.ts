// Incidents: what alerting opened and resolved, filtered by endpoint, status and state.
import { IncidentsQuery } from '@upfleet/proto/schemas';
import type { IncidentHandling } from '../../alerting/handling';
import { parseInput } from '../../services/validation';
import { authOf } from '../middleware/auth';
import { route, type RouteDecl } from '../route-table';
import { sendIncidentsCsv } from './incidents-csv';

export function incidentRoutes(deps: { incidents: IncidentHandling }): RouteDecl[] {
  return [
    route('get', '/users/incidents', 'viewer', (req, res) => {
      // An empty parameter (endpoint_id=&status=) means "any", as the web app sends it.
      const raw = Object.fromEntries(Object.entries(req.query as Record<string, unknown>).filter(([, v]) => v !== ''));
      const q = parseInput(IncidentsQuery, raw);
      const data = deps.incidents.list(authOf(req).userId, { urlId: q.url_id ?? q.endpoint_id ?? null, status: q.status ?? null, state: q.state ?? null });
      // format=csv: the same rows as a download.
      if (req.query.format === 'csv') return sendIncidentsCsv(res, data);
      res.json({ success: true, data });
    }),
  ];
}
