// Original file: proto/upfleet/agent/v1/agent_service.proto


export interface RunNowAck {
  /**
   * false when no request waits for this run any more (it timed out, or came from another agent)
   */
  'accepted'?: (boolean);
}

export interface RunNowAck__Output {
  /**
   * false when no request waits for this run any more (it timed out, or came from another agent)
   */
  'accepted': (boolean);
}
