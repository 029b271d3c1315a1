// Original file: proto/upfleet/agent/v1/agent_service.proto


/**
 * An HTTP check's request (absent: GET, no body, redirects followed).
 */
export interface HttpHeader {
  'name'?: (string);
  'value'?: (string);
}

/**
 * An HTTP check's request (absent: GET, no body, redirects followed).
 */
export interface HttpHeader__Output {
  'name': (string);
  'value': (string);
}
