// Original file: proto/upfleet/agent/v1/agent_service.proto

import type { AssignmentSnapshot as _upfleet_agent_v1_AssignmentSnapshot, AssignmentSnapshot__Output as _upfleet_agent_v1_AssignmentSnapshot__Output } from '../../../upfleet/agent/v1/AssignmentSnapshot';
import type { AssignmentDelta as _upfleet_agent_v1_AssignmentDelta, AssignmentDelta__Output as _upfleet_agent_v1_AssignmentDelta__Output } from '../../../upfleet/agent/v1/AssignmentDelta';
import type { Long } from '@grpc/proto-loader';

export interface AssignmentUpdate {
  'version'?: (number | string | Long);
  'snapshot'?: (_upfleet_agent_v1_AssignmentSnapshot | null);
  'delta'?: (_upfleet_agent_v1_AssignmentDelta | null);
  'update'?: "snapshot"|"delta";
}

export interface AssignmentUpdate__Output {
  'version': (number);
  'snapshot'?: (_upfleet_agent_v1_AssignmentSnapshot__Output | null);
  'delta'?: (_upfleet_agent_v1_AssignmentDelta__Output | null);
  'update'?: "snapshot"|"delta";
}
