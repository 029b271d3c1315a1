// Original file: proto/upfleet/agent/v1/agent_service.proto


export interface BatchAck {
  'batch_id'?: (string);
  'ok'?: (boolean);
  'error'?: (string);
}

export interface BatchAck__Output {
  'batch_id': (string);
  'ok': (boolean);
  'error': (string);
}
