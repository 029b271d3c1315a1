// Original file: proto/upfleet/agent/v1/agent_service.proto

import type { Assignment as _upfleet_agent_v1_Assignment, Assignment__Output as _upfleet_agent_v1_Assignment__Output } from '../../../upfleet/agent/v1/Assignment';

/**
 * "Run now" from the endpoint form: run this check once, outside the schedule (same prober, same
 * private-target rule, same concurrency cap), and answer with ReportRunNow. Never scheduled or saved.
 */
export interface RunNowRequest {
  'run_id'?: (string);
  /**
   * check_id '' and endpoint_id 0 for an unsaved check
   */
  'check'?: (_upfleet_agent_v1_Assignment | null);
}

/**
 * "Run now" from the endpoint form: run this check once, outside the schedule (same prober, same
 * private-target rule, same concurrency cap), and answer with ReportRunNow. Never scheduled or saved.
 */
export interface RunNowRequest__Output {
  'run_id': (string);
  /**
   * check_id '' and endpoint_id 0 for an unsaved check
   */
  'check': (_upfleet_agent_v1_Assignment__Output | null);
}
