// Original file: proto/upfleet/agent/v1/agent_service.proto

import type { CheckResult as _upfleet_agent_v1_CheckResult, CheckResult__Output as _upfleet_agent_v1_CheckResult__Output } from '../../../upfleet/agent/v1/CheckResult';

export interface ResultBatch {
  /**
   * stable across re-sends; the ClickHouse insert deduplication token
   */
  'batch_id'?: (string);
  'results'?: (_upfleet_agent_v1_CheckResult)[];
}

export interface ResultBatch__Output {
  /**
   * stable across re-sends; the ClickHouse insert deduplication token
   */
  'batch_id': (string);
  'results': (_upfleet_agent_v1_CheckResult__Output)[];
}
