// Shapes shared by the evaluator, the outbox, the message renderer and the channels.

export type DeliveryEvent = 'opened' | 'resolved' | 'test' | 'reminder' | 'acknowledged';
export type AlertEventType = 'incident.opened' | 'incident.resolved' | 'test' | 'incident.reminder' | 'incident.acknowledged'
  | 'incident.group_opened' | 'incident.group_resolved';

/** One incident of a grouped message (a storm): what it is about, and the recipient's own acknowledge link. */
export interface GroupedIncident {
  incident: IncidentView;
  endpoint: EndpointView;
  /** Set at send time (like a single message's link); resolved messages carry none. */
  ack_url?: string | null;
}

export interface IncidentView {
  id: number;
  /** 'down', or 'threshold:<monitor type>:<region key or any>'. */
  condition: string;
  cause: string;
  /** Region labels ('EU - Germany') confirmed in the condition when it was decided. */
  regions: string[];
  opened_at: string;
  resolved_at: string | null;
  /** Changed state more than 4 times in 30 minutes: held open until it settles. */
  flapping: boolean;
}

export interface EndpointView {
  id: number;
  name: string;
  url: string;
}

/** One event as stored in the outbox and sent, unchanged, by every retry. */
export interface AlertEvent {
  type: AlertEventType;
  occurred_at: string;
  incident: IncidentView | null;
  endpoint: EndpointView | null;
  /** The escalation step (1-based) that sent it; absent without an escalation policy. */
  step?: number;
  /** A reminder: which one, and of how many. */
  reminder?: { n: number; of: number };
  /** incident.acknowledged: who did. */
  acknowledged_by?: string;
  /** incident.group_opened / group_resolved (a storm): the group and the incidents it lists (incident and endpoint are null). */
  group?: { id: number; incidents: GroupedIncident[] };
}

/** What a channel reports after one try. `final` failures are not retried. */
export type SendOutcome =
  | { ok: true }
  | { ok: false; final: boolean; error: string; retryAfterMs?: number };

export interface OutgoingMessage {
  /** Idempotency key of the delivery; the webhook's `webhook-id`. */
  id: string;
  event: AlertEvent;
  /** The recipient's acknowledge link (an opened incident's messages only; a group's: every open incident of it): its page asks, a POST acknowledges. */
  ack_url?: string | null;
}

/** Where an incident's first message to a method went (a Slack channel and message ts): its thread. */
export interface ThreadRef {
  channel: string;
  ts: string;
}

/** An incident's thread at one method: the one stored, and how a channel reports the one it started. */
export interface ThreadContext {
  ref: ThreadRef | null;
  started(ref: ThreadRef): void;
}

export interface Channel {
  /** `thread`: given for an incident's messages to channels that thread them (Slack). */
  send(message: OutgoingMessage, config: Record<string, string>, thread?: ThreadContext): Promise<SendOutcome>;
}
