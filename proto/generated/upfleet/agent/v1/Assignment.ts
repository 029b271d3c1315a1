// Original file: proto/upfleet/agent/v1/agent_service.proto

import type { CheckKind as _upfleet_agent_v1_CheckKind, CheckKind__Output as _upfleet_agent_v1_CheckKind__Output } from '../../../upfleet/agent/v1/CheckKind';
import type { Long } from '@grpc/proto-loader';

export interface Assignment {
  /**
   * '<endpoint_id>:<kind>:<region>', stable across versions
   */
  'check_id'?: (string);
  'endpoint_id'?: (number | string | Long);
  'kind'?: (_upfleet_agent_v1_CheckKind);
  'url'?: (string);
  'interval_seconds'?: (number);
  'timeout_ms'?: (number);
  'region'?: (string);
  /**
   * from the owner's plan; the control plane stores results with it, not with the agent's copy
   */
  'retention_days'?: (number);
  /**
   * The control plane's target policy (ALLOW_PRIVATE_TARGETS=0): the agent refuses private,
   * loopback and link-local addresses for this check even when its own flag allows them.
   */
  'private_targets_denied'?: (boolean);
}

export interface Assignment__Output {
  /**
   * '<endpoint_id>:<kind>:<region>', stable across versions
   */
  'check_id': (string);
  'endpoint_id': (number);
  'kind': (_upfleet_agent_v1_CheckKind__Output);
  'url': (string);
  'interval_seconds': (number);
  'timeout_ms': (number);
  'region': (string);
  /**
   * from the owner's plan; the control plane stores results with it, not with the agent's copy
   */
  'retention_days': (number);
  /**
   * The control plane's target policy (ALLOW_PRIVATE_TARGETS=0): the agent refuses private,
   * loopback and link-local addresses for this check even when its own flag allows them.
   */
  'private_targets_denied': (boolean);
}
