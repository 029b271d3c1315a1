// How each alert platform is named and how its fields are typed and hinted in forms, and the
// short, non-secret summary of a method's target shown in the list.
import type { AlertMethod, AlertPlatform } from '@upfleet/proto/rest';

export const PLATFORM_LABELS: Record<AlertPlatform, string> = {
  email: 'Email',
  slack: 'Slack',
  telegram: 'Telegram',
  webhook: 'Webhook',
  sms: 'SMS',
  discord: 'Discord',
  teams: 'Microsoft Teams',
  pagerduty: 'PagerDuty',
};

export const FIELD_TYPES: Record<string, string> = { email_address: 'email', webhook_url: 'url', phone_number: 'tel' };
export const FIELD_PLACEHOLDERS: Record<string, string> = {
  email_address: 'alerts@example.com',
  bot_token: 'xoxb-… or 123456:ABC…',
  channel: '#alerts',
  chat_id: '-1001234567890',
  webhook_url: 'https://…',
  phone_number: '+49 151 23456789',
  routing_key: '32-character integration key (Events API v2)',
};

/** Short, non-secret summary of a method's target for the list. */
export function summary(m: AlertMethod): string {
  const c = m.platform_config ?? {};
  return c.email_address || c.channel || c.chat_id || c.phone_number || c.routing_key || (c.webhook_url ? c.webhook_url.replace(/^(https?:\/\/[^/]+).*/, '$1/…') : '') || '';
}
