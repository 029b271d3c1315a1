// Original file: proto/upfleet/agent/v1/agent_service.proto


/**
 * An HTTP check's request (absent: GET, no body, redirects followed).
 */
export interface HttpHeader {
  'name'?: (string);
  'value'?: (string);
  /**
   * Marked secret by its owner (write-only in the API): the agent drops it, as it does Authorization
   * and Cookie, when a redirect leaves the check's origin or goes from https to http.
   */
  'secret'?: (boolean);
}

/**
 * An HTTP check's request (absent: GET, no body, redirects followed).
 */
export interface HttpHeader__Output {
  'name': (string);
  'value': (string);
  /**
   * Marked secret by its owner (write-only in the API): the agent drops it, as it does Authorization
   * and Cookie, when a redirect leaves the check's origin or goes from https to http.
   */
  'secret': (boolean);
}
