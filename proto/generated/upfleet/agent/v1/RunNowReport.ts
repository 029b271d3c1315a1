// Original file: proto/upfleet/agent/v1/agent_service.proto

import type { CheckResult as _upfleet_agent_v1_CheckResult, CheckResult__Output as _upfleet_agent_v1_CheckResult__Output } from '../../../upfleet/agent/v1/CheckResult';

export interface RunNowReport {
  'run_id'?: (string);
  'result'?: (_upfleet_agent_v1_CheckResult | null);
}

export interface RunNowReport__Output {
  'run_id': (string);
  'result': (_upfleet_agent_v1_CheckResult__Output | null);
}
