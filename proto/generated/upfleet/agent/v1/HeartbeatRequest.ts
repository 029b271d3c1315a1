// Original file: proto/upfleet/agent/v1/agent_service.proto

import type { Long } from '@grpc/proto-loader';

export interface HeartbeatRequest {
  'checks_owned'?: (number);
  'checks_per_minute'?: (number | string);
  'outbox_depth'?: (number | string | Long);
  'scheduling_lag_ms_p99'?: (number | string);
  'outbox_dropped'?: (number | string | Long);
  /**
   * Whether this agent can run browser checks (a Chromium it can start); false from older agents.
   */
  'browser_checks'?: (boolean);
  /**
   * Why it cannot, in one line ('no Chromium at /usr/bin/chromium'); '' when it can.
   */
  'browser_unavailable'?: (string);
}

export interface HeartbeatRequest__Output {
  'checks_owned': (number);
  'checks_per_minute': (number);
  'outbox_depth': (number);
  'scheduling_lag_ms_p99': (number);
  'outbox_dropped': (number);
  /**
   * Whether this agent can run browser checks (a Chromium it can start); false from older agents.
   */
  'browser_checks': (boolean);
  /**
   * Why it cannot, in one line ('no Chromium at /usr/bin/chromium'); '' when it can.
   */
  'browser_unavailable': (string);
}
