// Original file: proto/upfleet/agent/v1/agent_service.proto

import type { Long } from '@grpc/proto-loader';

export interface WatchAssignmentsRequest {
  'known_version'?: (number | string | Long);
  /**
   * The agent's release (e.g. '0.1.0'), sent on every connect so the control plane lists what
   * runs now and warns about older agents. Added after 0.1.0 agents shipped: an older agent leaves
   * it empty (proto3 default), so a new field is always optional and never renumbered.
   */
  'agent_version'?: (string);
  /**
   * Set by agents that assemble a snapshot sent in chunks (AssignmentSnapshot.more). Absent (older
   * agents): every snapshot comes as one message, as before, since such an agent would take the
   * first chunk for the whole and drop the rest.
   */
  'accepts_snapshot_chunks'?: (boolean);
  /**
   * Whether this agent can run browser checks; placement gives browser checks only to those that
   * can (an older agent leaves it false and gets none).
   */
  'browser_checks'?: (boolean);
  /**
   * Set by agents that run a RunNowRequest sent on this stream; others are never sent one.
   */
  'accepts_run_now'?: (boolean);
}

export interface WatchAssignmentsRequest__Output {
  'known_version': (number);
  /**
   * The agent's release (e.g. '0.1.0'), sent on every connect so the control plane lists what
   * runs now and warns about older agents. Added after 0.1.0 agents shipped: an older agent leaves
   * it empty (proto3 default), so a new field is always optional and never renumbered.
   */
  'agent_version': (string);
  /**
   * Set by agents that assemble a snapshot sent in chunks (AssignmentSnapshot.more). Absent (older
   * agents): every snapshot comes as one message, as before, since such an agent would take the
   * first chunk for the whole and drop the rest.
   */
  'accepts_snapshot_chunks': (boolean);
  /**
   * Whether this agent can run browser checks; placement gives browser checks only to those that
   * can (an older agent leaves it false and gets none).
   */
  'browser_checks': (boolean);
  /**
   * Set by agents that run a RunNowRequest sent on this stream; others are never sent one.
   */
  'accepts_run_now': (boolean);
}
