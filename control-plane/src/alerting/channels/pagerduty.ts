// PagerDuty Events API v2: POST {PAGERDUTY_API_URL}/v2/enqueue with the service's routing key. An
// incident's opening (and its reminders) trigger, its acknowledgement acknowledges, its recovery
// resolves; dedup_key is the incident's id, so a retried or repeated trigger never pages twice.
// One-way: acknowledging in PagerDuty is not read back.
import { renderMessage } from '../render';
import type { AlertEvent, Channel } from '../types';
import { postJson, type HttpSender } from './http';

const ACTIONS: Record<AlertEvent['type'], 'trigger' | 'acknowledge' | 'resolve'> = {
  'incident.opened': 'trigger', 'incident.reminder': 'trigger', 'incident.acknowledged': 'acknowledge', 'incident.resolved': 'resolve', test: 'trigger',
  // Never sent: PagerDuty hears each incident of a storm on its own (its dedup_key groups on its side).
  'incident.group_opened': 'trigger', 'incident.group_resolved': 'resolve',
};

export function createPagerDutyChannel(deps: { http: HttpSender; apiUrl: string; publicUrl: string | null }): Channel {
  return {
    send(message, config) {
      const { event } = message;
      const m = renderMessage(event, deps.publicUrl);
      const action = ACTIONS[event.type];
      // A test send gets a key of its own: it must not touch a real incident's alert.
      const dedupKey = event.incident ? String(event.incident.id) : message.id;
      const body = {
        routing_key: config.routing_key,
        event_action: action,
        dedup_key: dedupKey,
        ...(action === 'trigger' ? {
          payload: {
            summary: m.title.slice(0, 1024),
            source: event.endpoint?.url ?? 'upfleet',
            severity: event.type === 'test' ? 'info' : 'critical',
            timestamp: event.incident?.opened_at ?? event.occurred_at,
            component: event.endpoint?.name,
            custom_details: Object.fromEntries(m.facts),
          },
          client: 'Upfleet',
          ...(m.link ? { client_url: m.link, links: [{ href: m.link, text: 'Open the dashboard' }] } : {}),
        } : {}),
      };
      return postJson(deps.http, `${deps.apiUrl.replace(/\/+$/, '')}/v2/enqueue`, body, { guarded: false });
    },
  };
}
