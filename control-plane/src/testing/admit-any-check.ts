// Tests and benchmarks of ReportResults alone (no assignment engine): every well-formed check id
// counts as assigned, with the retention given. The real wiring asks the engine (agent-service.ts).
import { checkTimeoutMs, parseCheckId } from '../checks';
import { createResultAdmission, type ResultAdmission } from '../grpc/result-admission';

export function admitAnyCheck(retentionDays = 30): ResultAdmission {
  return createResultAdmission({
    assignedTo: (_agentId, _region, checkId) => {
      const c = parseCheckId(checkId);
      return c && {
        check_id: checkId, endpoint_id: c.endpointId, kind: c.kind, url: '', interval_seconds: 60,
        timeout_ms: checkTimeoutMs(60), region: c.region, retention_days: retentionDays,
      };
    },
  });
}
