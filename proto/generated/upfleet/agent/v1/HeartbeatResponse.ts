// Original file: proto/upfleet/agent/v1/agent_service.proto


export interface HeartbeatResponse {
  'lease_seconds'?: (number);
}

export interface HeartbeatResponse__Output {
  'lease_seconds': (number);
}
