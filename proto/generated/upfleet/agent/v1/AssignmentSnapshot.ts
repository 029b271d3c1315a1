// Original file: proto/upfleet/agent/v1/agent_service.proto

import type { Assignment as _upfleet_agent_v1_Assignment, Assignment__Output as _upfleet_agent_v1_Assignment__Output } from '../../../upfleet/agent/v1/Assignment';

export interface AssignmentSnapshot {
  'assignments'?: (_upfleet_agent_v1_Assignment)[];
  /**
   * More chunks of this snapshot (same version) follow: the agent applies the snapshot only once
   * the chunk with more = false arrives, and drops a partial one when the stream ends before it.
   */
  'more'?: (boolean);
}

export interface AssignmentSnapshot__Output {
  'assignments': (_upfleet_agent_v1_Assignment__Output)[];
  /**
   * More chunks of this snapshot (same version) follow: the agent applies the snapshot only once
   * the chunk with more = false arrives, and drops a partial one when the stream ends before it.
   */
  'more': (boolean);
}
