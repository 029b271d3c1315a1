// Incidents: what alerting opened and resolved, filtered by endpoint and status.
import { IncidentsQuery } from '@upfleet/proto/schemas';
import type { Alerting } from '../../alerting';
import { parseInput } from '../../services/validation';
import { authOf } from '../middleware/auth';
import { route, type RouteDecl } from '../route-table';
import { alertingOf } from './alert-methods';
import { sendIncidentsCsv } from './incidents-csv';

export function incidentRoutes(deps: { alerting: Alerting | null }): RouteDecl[] {
  const alerting = alertingOf(deps.alerting);
  return [
    route('get', '/users/incidents', 'viewer', (req, res) => {
      // An empty parameter (endpoint_id=&status=) means "any", as the web app sends it.
      const raw = Object.fromEntries(Object.entries(req.query as Record<string, unknown>).filter(([, v]) => v !== ''));
      const q = parseInput(IncidentsQuery, raw);
      // format=csv: the same rows as a download.
      if (req.query.format === 'csv') return sendIncidentsCsv(res, alerting().listIncidents(authOf(req).userId, { endpointId: q.endpoint_id ?? null, status: q.status ?? null }));
      res.json({ success: true, data: alerting().listIncidents(authOf(req).userId, { endpointId: q.endpoint_id ?? null, status: q.status ?? null }) });
    }),
  ];
}
