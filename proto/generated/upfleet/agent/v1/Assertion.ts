// Original file: proto/upfleet/agent/v1/agent_service.proto


/**
 * One expectation on a check's answer; the check is down with a readable reason when one fails.
 */
export interface Assertion {
  /**
   * status_code | response_time | body | json_body | header | cert_days_left (dns: answer)
   */
  'source'?: (string);
  /**
   * JSON path for json_body, header name for header
   */
  'property'?: (string);
  /**
   * equals | not_equals | contains | not_contains | less_than | greater_than | matches
   */
  'comparison'?: (string);
  'target'?: (string);
}

/**
 * One expectation on a check's answer; the check is down with a readable reason when one fails.
 */
export interface Assertion__Output {
  /**
   * status_code | response_time | body | json_body | header | cert_days_left (dns: answer)
   */
  'source': (string);
  /**
   * JSON path for json_body, header name for header
   */
  'property': (string);
  /**
   * equals | not_equals | contains | not_contains | less_than | greater_than | matches
   */
  'comparison': (string);
  'target': (string);
}
