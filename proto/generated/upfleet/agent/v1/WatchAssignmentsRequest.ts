// Original file: proto/upfleet/agent/v1/agent_service.proto

import type { Long } from '@grpc/proto-loader';

export interface WatchAssignmentsRequest {
  'known_version'?: (number | string | Long);
}

export interface WatchAssignmentsRequest__Output {
  'known_version': (number);
}
