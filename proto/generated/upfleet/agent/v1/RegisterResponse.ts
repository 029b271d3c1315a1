// Original file: proto/upfleet/agent/v1/agent_service.proto


export interface RegisterResponse {
  'agent_id'?: (string);
  'agent_secret'?: (string);
  'region'?: (string);
  'lease_seconds'?: (number);
  'heartbeat_interval_seconds'?: (number);
}

export interface RegisterResponse__Output {
  'agent_id': (string);
  'agent_secret': (string);
  'region': (string);
  'lease_seconds': (number);
  'heartbeat_interval_seconds': (number);
}
