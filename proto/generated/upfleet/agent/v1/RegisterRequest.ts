// Original file: proto/upfleet/agent/v1/agent_service.proto


export interface RegisterRequest {
  'bootstrap_token'?: (string);
  /**
   * 'REGION-City', e.g. 'EU-Germany'; must match the token's region
   */
  'region'?: (string);
  'hostname'?: (string);
  'version'?: (string);
}

export interface RegisterRequest__Output {
  'bootstrap_token': (string);
  /**
   * 'REGION-City', e.g. 'EU-Germany'; must match the token's region
   */
  'region': (string);
  'hostname': (string);
  'version': (string);
}
