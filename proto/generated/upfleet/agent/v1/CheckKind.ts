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

export type CheckKind__Output = typeof CheckKind[keyof typeof CheckKind]
