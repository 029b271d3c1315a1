// Original file: proto/upfleet/agent/v1/agent_service.proto

import type { CheckKind as _upfleet_agent_v1_CheckKind, CheckKind__Output as _upfleet_agent_v1_CheckKind__Output } from '../../../upfleet/agent/v1/CheckKind';
import type { HttpRequest as _upfleet_agent_v1_HttpRequest, HttpRequest__Output as _upfleet_agent_v1_HttpRequest__Output } from '../../../upfleet/agent/v1/HttpRequest';
import type { Assertion as _upfleet_agent_v1_Assertion, Assertion__Output as _upfleet_agent_v1_Assertion__Output } from '../../../upfleet/agent/v1/Assertion';
import type { BrowserStep as _upfleet_agent_v1_BrowserStep, BrowserStep__Output as _upfleet_agent_v1_BrowserStep__Output } from '../../../upfleet/agent/v1/BrowserStep';
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
  /**
   * Fields 10-14: an older agent ignores them and runs its HTTP check as a GET.
   */
  'request'?: (_upfleet_agent_v1_HttpRequest | null);
  'assertions'?: (_upfleet_agent_v1_Assertion)[];
  /**
   * tcp: host:port; dns: the name looked up
   */
  'target'?: (string);
  /**
   * dns: A AAAA CNAME MX TXT NS
   */
  'record_type'?: (string);
  /**
   * dns: ip or ip:port of the server asked; '' = default_resolvers, else the system's
   */
  'resolver'?: (string);
  /**
   * dns with resolver '': the servers the operator chose (DNS_RESOLVERS, ip or ip:port), sent with
   * private_targets_denied so a check never reaches the agent's private system resolver.
   */
  'default_resolvers'?: (string)[];
  /**
   * browser: the steps run after loading url (an older agent has no browser prober and gets none).
   */
  'steps'?: (_upfleet_agent_v1_BrowserStep)[];
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
  /**
   * Fields 10-14: an older agent ignores them and runs its HTTP check as a GET.
   */
  'request': (_upfleet_agent_v1_HttpRequest__Output | null);
  'assertions': (_upfleet_agent_v1_Assertion__Output)[];
  /**
   * tcp: host:port; dns: the name looked up
   */
  'target': (string);
  /**
   * dns: A AAAA CNAME MX TXT NS
   */
  'record_type': (string);
  /**
   * dns: ip or ip:port of the server asked; '' = default_resolvers, else the system's
   */
  'resolver': (string);
  /**
   * dns with resolver '': the servers the operator chose (DNS_RESOLVERS, ip or ip:port), sent with
   * private_targets_denied so a check never reaches the agent's private system resolver.
   */
  'default_resolvers': (string)[];
  /**
   * browser: the steps run after loading url (an older agent has no browser prober and gets none).
   */
  'steps': (_upfleet_agent_v1_BrowserStep__Output)[];
}
