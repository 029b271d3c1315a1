// Original file: proto/upfleet/agent/v1/agent_service.proto

import type { AssignmentSnapshot as _upfleet_agent_v1_AssignmentSnapshot, AssignmentSnapshot__Output as _upfleet_agent_v1_AssignmentSnapshot__Output } from '../../../upfleet/agent/v1/AssignmentSnapshot';
import type { AssignmentDelta as _upfleet_agent_v1_AssignmentDelta, AssignmentDelta__Output as _upfleet_agent_v1_AssignmentDelta__Output } from '../../../upfleet/agent/v1/AssignmentDelta';
import type { RunNowRequest as _upfleet_agent_v1_RunNowRequest, RunNowRequest__Output as _upfleet_agent_v1_RunNowRequest__Output } from '../../../upfleet/agent/v1/RunNowRequest';
import type { Long } from '@grpc/proto-loader';

export interface AssignmentUpdate {
  'version'?: (number | string | Long);
  'snapshot'?: (_upfleet_agent_v1_AssignmentSnapshot | null);
  'delta'?: (_upfleet_agent_v1_AssignmentDelta | null);
  'run_now'?: (_upfleet_agent_v1_RunNowRequest | null);
  'update'?: "snapshot"|"delta"|"run_now";
}

export interface AssignmentUpdate__Output {
  'version': (number);
  'snapshot'?: (_upfleet_agent_v1_AssignmentSnapshot__Output | null);
  'delta'?: (_upfleet_agent_v1_AssignmentDelta__Output | null);
  'run_now'?: (_upfleet_agent_v1_RunNowRequest__Output | null);
  'update'?: "snapshot"|"delta"|"run_now";
}
