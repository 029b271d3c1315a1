// Original file: proto/upfleet/agent/v1/agent_service.proto

import type { CheckKind as _upfleet_agent_v1_CheckKind, CheckKind__Output as _upfleet_agent_v1_CheckKind__Output } from '../../../upfleet/agent/v1/CheckKind';
import type { Screenshot as _upfleet_agent_v1_Screenshot, Screenshot__Output as _upfleet_agent_v1_Screenshot__Output } from '../../../upfleet/agent/v1/Screenshot';
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
  /**
   * Fields 23-31: browser checks only (ttfb_ms and total_ms above hold the page's TTFB and the run's time).
   */
  'failed_step'?: (number);
  /**
   * '' when no step failed
   */
  'failed_action'?: (string);
  'dom_content_loaded_ms'?: (number | string);
  'load_ms'?: (number | string);
  /**
   * largest contentful paint; 0 when the page reported none
   */
  'lcp_ms'?: (number | string);
  /**
   * each step's time, in order, as far as the run got
   */
  'step_ms'?: (number | string)[];
  /**
   * first 20, each truncated
   */
  'console_errors'?: (string)[];
  /**
   * first 20: 'GET https://… net::ERR_…'
   */
  'failed_requests'?: (string)[];
  /**
   * on failure and per screenshot step
   */
  'screenshots'?: (_upfleet_agent_v1_Screenshot)[];
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
  /**
   * Fields 23-31: browser checks only (ttfb_ms and total_ms above hold the page's TTFB and the run's time).
   */
  'failed_step': (number);
  /**
   * '' when no step failed
   */
  'failed_action': (string);
  'dom_content_loaded_ms': (number);
  'load_ms': (number);
  /**
   * largest contentful paint; 0 when the page reported none
   */
  'lcp_ms': (number);
  /**
   * each step's time, in order, as far as the run got
   */
  'step_ms': (number)[];
  /**
   * first 20, each truncated
   */
  'console_errors': (string)[];
  /**
   * first 20: 'GET https://… net::ERR_…'
   */
  'failed_requests': (string)[];
  /**
   * on failure and per screenshot step
   */
  'screenshots': (_upfleet_agent_v1_Screenshot__Output)[];
}
