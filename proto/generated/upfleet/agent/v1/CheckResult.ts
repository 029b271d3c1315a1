// Original file: proto/upfleet/agent/v1/agent_service.proto

import type { CheckKind as _upfleet_agent_v1_CheckKind, CheckKind__Output as _upfleet_agent_v1_CheckKind__Output } from '../../../upfleet/agent/v1/CheckKind';
import type { Long } from '@grpc/proto-loader';

export interface CheckResult {
  'check_id'?: (string);
  'endpoint_id'?: (number | string | Long);
  'kind'?: (_upfleet_agent_v1_CheckKind);
  'region'?: (string);
  /**
   * when the check started
   */
  'ts_ms'?: (number | string | Long);
  'ok'?: (boolean);
  /**
   * '' when ok; else dns | connect | tls | http | timeout | assertion (error: its reason)
   */
  'phase'?: (string);
  'error'?: (string);
  /**
   * HTTP status of the final response; 0 when none
   */
  'status_code'?: (number);
  'dns_ms'?: (number | string);
  'connect_ms'?: (number | string);
  'tls_ms'?: (number | string);
  'ttfb_ms'?: (number | string);
  /**
   * HTTP total, TLS handshake, or ping round trip
   */
  'total_ms'?: (number | string);
  'cert_days_left'?: (number | string);
  'cert_not_after_ms'?: (number | string | Long);
  'cert_issuer'?: (string);
  'cert_subject'?: (string);
  /**
   * icmp | tcp
   */
  'ping_method'?: (string);
  'redirects'?: (number);
  'retention_days'?: (number);
  /**
   * unique per result, set by the agent when it is made
   */
  'result_id'?: (string);
}

export interface CheckResult__Output {
  'check_id': (string);
  'endpoint_id': (number);
  'kind': (_upfleet_agent_v1_CheckKind__Output);
  'region': (string);
  /**
   * when the check started
   */
  'ts_ms': (number);
  'ok': (boolean);
  /**
   * '' when ok; else dns | connect | tls | http | timeout | assertion (error: its reason)
   */
  'phase': (string);
  'error': (string);
  /**
   * HTTP status of the final response; 0 when none
   */
  'status_code': (number);
  'dns_ms': (number);
  'connect_ms': (number);
  'tls_ms': (number);
  'ttfb_ms': (number);
  /**
   * HTTP total, TLS handshake, or ping round trip
   */
  'total_ms': (number);
  'cert_days_left': (number);
  'cert_not_after_ms': (number);
  'cert_issuer': (string);
  'cert_subject': (string);
  /**
   * icmp | tcp
   */
  'ping_method': (string);
  'redirects': (number);
  'retention_days': (number);
  /**
   * unique per result, set by the agent when it is made
   */
  'result_id': (string);
}
