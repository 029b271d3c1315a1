// Generic webhook, signed as the Standard Webhooks spec says: webhook-id, webhook-timestamp and
// webhook-signature = 'v1,' + base64(HMAC-SHA256(secret, `${id}.${timestamp}.${body}`)).
import crypto from 'node:crypto';
import type { Channel } from '../types';
import { postJson, type HttpSender } from './http';

export const SIGNING_SECRET_PREFIX = 'whsec_';

export const createSigningSecret = () => `${SIGNING_SECRET_PREFIX}${crypto.randomBytes(24).toString('base64')}`;

export function signWebhook(secret: string, id: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(secret.startsWith(SIGNING_SECRET_PREFIX) ? secret.slice(SIGNING_SECRET_PREFIX.length) : secret, 'base64');
  return `v1,${crypto.createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`).digest('base64')}`;
}

export function createWebhookChannel(deps: { http: HttpSender; now?: () => number; publicUrl?: string | null }): Channel {
  const now = deps.now ?? Date.now;
  return {
    send(message, config) {
      const { event } = message;
      const payload = {
        id: message.id, type: event.type, occurred_at: event.occurred_at, incident: event.incident, endpoint: event.endpoint,
        ...(message.ack_url && event.type === 'incident.opened' ? { ack_url: message.ack_url } : {}),
        step: event.step, reminder: event.reminder, acknowledged_by: event.acknowledged_by,
        // A storm: the group, its incidents (each with the recipient's acknowledge link) and the group's link.
        ...(event.group ? {
          group_id: event.group.id,
          incidents: event.group.incidents.map((g) => ({ incident: g.incident, endpoint: g.endpoint, ...(g.ack_url ? { ack_url: g.ack_url } : {}) })),
          ...(message.ack_url && event.type === 'incident.group_opened' ? { ack_url: message.ack_url } : {}),
          ...(deps.publicUrl ? { incidents_url: `${deps.publicUrl.replace(/\/+$/, '')}/incidents` } : {}),
        } : {}),
      };
      const ts = Math.floor(now() / 1000);
      const signature = signWebhook(config.signing_secret ?? '', message.id, ts, JSON.stringify(payload));
      return postJson(deps.http, config.webhook_url, payload, {
        guarded: true,
        headers: { 'webhook-id': message.id, 'webhook-timestamp': String(ts), 'webhook-signature': signature, 'user-agent': 'Upfleet-Webhooks/1' },
      });
    },
  };
}
