// Original file: proto/upfleet/agent/v1/agent_service.proto

export const CheckKind = {
  CHECK_KIND_UNSPECIFIED: 'CHECK_KIND_UNSPECIFIED',
  /**
   * response_code and response_time come from one HTTP request
   */
  CHECK_KIND_HTTP: 'CHECK_KIND_HTTP',
  /**
   * cert_expiry
   */
  CHECK_KIND_TLS: 'CHECK_KIND_TLS',
  /**
   * ping_host
   */
  CHECK_KIND_PING: 'CHECK_KIND_PING',
  /**
   * a tcp endpoint: connect to target host:port
   */
  CHECK_KIND_TCP: 'CHECK_KIND_TCP',
  /**
   * a dns endpoint: look up target's record_type records
   */
  CHECK_KIND_DNS: 'CHECK_KIND_DNS',
  /**
   * a browser endpoint: Chromium loads url, then runs the steps
   */
  CHECK_KIND_BROWSER: 'CHECK_KIND_BROWSER',
} as const;

export type CheckKind =
  | 'CHECK_KIND_UNSPECIFIED'
  | 0
  /**
   * response_code and response_time come from one HTTP request
   */
  | 'CHECK_KIND_HTTP'
  | 1
  /**
   * cert_expiry
   */
  | 'CHECK_KIND_TLS'
  | 2
  /**
   * ping_host
   */
  | 'CHECK_KIND_PING'
  | 3
  /**
   * a tcp endpoint: connect to target host:port
   */
  | 'CHECK_KIND_TCP'
  | 4
  /**
   * a dns endpoint: look up target's record_type records
   */
  | 'CHECK_KIND_DNS'
  | 5
  /**
   * a browser endpoint: Chromium loads url, then runs the steps
   */
  | 'CHECK_KIND_BROWSER'
  | 6

export type CheckKind__Output = typeof CheckKind[keyof typeof CheckKind]
