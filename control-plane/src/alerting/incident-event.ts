// The message an incident's event carries: the incident and its endpoint as an alert names them.
// One home, so the escalator, the incident book and storm grouping build the same event.
import type { IncidentRow } from './repo';
import type { AlertEvent, AlertEventType, EndpointView, IncidentView } from './types';

/** The endpoint an incident is about, as an alert names it. */
export interface IncidentOwner extends EndpointView {
  user_id: number;
  escalation_policy_id: number | null;
  depends_on: number | null;
}

export function incidentView(i: IncidentRow): IncidentView {
  return {
    id: i.incident_id, condition: i.condition, cause: i.cause, regions: JSON.parse(i.regions) as string[],
    opened_at: new Date(i.opened_at).toISOString(), resolved_at: i.resolved_at === null ? null : new Date(i.resolved_at).toISOString(),
    flapping: i.flapping === 1,
  };
}

export const endpointView = (owner: EndpointView): EndpointView => ({ id: owner.id, name: owner.name, url: owner.url });

export const incidentEvent = (type: AlertEventType, incident: IncidentRow, owner: EndpointView, at: number, extra: Partial<AlertEvent> = {}): AlertEvent => ({
  type, occurred_at: new Date(at).toISOString(), incident: incidentView(incident), endpoint: endpointView(owner), ...extra,
});
