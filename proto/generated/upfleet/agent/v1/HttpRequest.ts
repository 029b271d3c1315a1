// Original file: proto/upfleet/agent/v1/agent_service.proto

import type { HttpHeader as _upfleet_agent_v1_HttpHeader, HttpHeader__Output as _upfleet_agent_v1_HttpHeader__Output } from '../../../upfleet/agent/v1/HttpHeader';

export interface HttpRequest {
  /**
   * GET HEAD POST PUT PATCH DELETE OPTIONS
   */
  'method'?: (string);
  'headers'?: (_upfleet_agent_v1_HttpHeader)[];
  /**
   * at most 64 kB
   */
  'body'?: (string);
  /**
   * always set when the message is sent
   */
  'follow_redirects'?: (boolean);
}

export interface HttpRequest__Output {
  /**
   * GET HEAD POST PUT PATCH DELETE OPTIONS
   */
  'method': (string);
  'headers': (_upfleet_agent_v1_HttpHeader__Output)[];
  /**
   * at most 64 kB
   */
  'body': (string);
  /**
   * always set when the message is sent
   */
  'follow_redirects': (boolean);
}
