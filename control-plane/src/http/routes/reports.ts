// Reports: an endpoint's SLO and error budget, and the SLA report (JSON or CSV) of the request's workspace.
import { ReportScheduleBody, SlaReportQuery } from '@upfleet/proto/schemas';
import { slaReportCsv } from '@upfleet/proto/sla-csv';
import type { Reports } from '../../services/reports/scheduled-reports';
import { parseId, parseInput } from '../../services/validation';
import { authOf } from '../middleware/auth';
import { route, type RouteDecl } from '../route-table';

export function reportRoutes(deps: { reports: Reports }): RouteDecl[] {
  // Read per request: the route table is also built without services (the OpenAPI walk).
  const reports = () => deps.reports;
  return [
    route('get', '/users/endpoints/:id/slo', 'viewer', async (req, res) => {
      const id = parseId(req.params.id, 'Endpoint not found');
      res.json({ success: true, data: await reports().slo.status(authOf(req).userId, id) });
    }),
    route('get', '/users/reports/sla', 'viewer', async (req, res) => {
      const q = parseInput(SlaReportQuery, req.query);
      const auth = authOf(req);
      const report = await reports().slaReport.report({ userId: auth.userId, memberId: auth.memberId }, q);
      if (q.format === 'csv') {
        const name = `sla-report-${report.from.slice(0, 10)}-${report.to.slice(0, 10)}.csv`;
        res.type('text/csv; charset=utf-8').set('Content-Disposition', `attachment; filename="${name}"`).send(slaReportCsv(report));
        return;
      }
      res.json({ success: true, data: report });
    }),
    // The recipients are addresses: admins and owners read and change them.
    route('get', '/users/reports/schedule', 'admin', async (req, res) => {
      res.json({ success: true, data: await reports().schedule.get(authOf(req).userId) });
    }),
    route('put', '/users/reports/schedule', { role: 'admin', action: 'report_schedule.update' }, async (req, res) => {
      const body = parseInput(ReportScheduleBody, req.body);
      res.json({ success: true, data: await reports().schedule.put(authOf(req).userId, body) });
    }),
  ];
}
