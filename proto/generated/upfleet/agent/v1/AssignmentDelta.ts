// Original file: proto/upfleet/agent/v1/agent_service.proto

import type { Assignment as _upfleet_agent_v1_Assignment, Assignment__Output as _upfleet_agent_v1_Assignment__Output } from '../../../upfleet/agent/v1/Assignment';

export interface AssignmentDelta {
  'upserts'?: (_upfleet_agent_v1_Assignment)[];
  'removed_check_ids'?: (string)[];
}

export interface AssignmentDelta__Output {
  'upserts': (_upfleet_agent_v1_Assignment__Output)[];
  'removed_check_ids': (string)[];
}
