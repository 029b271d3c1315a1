// SMS through Twilio's Messages API: form-encoded To, From, Body with basic auth (account SID and
// auth token). Twilio's errors are JSON { code, message, status }.
import { renderMessage } from '../render';
import type { Channel, SendOutcome } from '../types';
import { outcomeOf, reasonOf, type HttpSender } from './http';

export interface TwilioSettings {
  apiUrl: string;
  accountSid: string | null;
  authToken: string | null;
  from: string | null;
}

export const SMS_NOT_CONFIGURED = 'SMS is not configured on this server';

export function createSmsChannel(deps: { http: HttpSender; twilio: TwilioSettings; publicUrl: string | null }): Channel {
  const t = deps.twilio;
  return {
    async send(message, config): Promise<SendOutcome> {
      if (!t.accountSid || !t.authToken || !t.from) return { ok: false, final: true, error: SMS_NOT_CONFIGURED };
      const m = renderMessage(message.event, deps.publicUrl, message.ack_url ?? null);
      // A storm: the title, the endpoints by name, the group's link; the rest is on the Incidents page.
      const names = message.event.group?.incidents.map((g) => g.endpoint.name);
      const body = (names ? [m.title, names.length > 5 ? `${names.slice(0, 5).join(', ')} +${names.length - 5} more` : names.join(', '), m.ack ? `Acknowledge all: ${m.ack}` : '', m.link ?? ''] : [m.title, ...m.facts.filter(([k]) => k === 'Regions' || k === 'Lasted').map(([k, v]) => `${k}: ${v}`), m.ack ? `Acknowledge: ${m.ack}` : '', m.link ?? ''])
        .filter(Boolean).join('\n').slice(0, 1600);
      const url = `${t.apiUrl.replace(/\/+$/, '')}/2010-04-01/Accounts/${encodeURIComponent(t.accountSid)}/Messages.json`;
      const a = await deps.http.post(url, {
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${Buffer.from(`${t.accountSid}:${t.authToken}`).toString('base64')}`,
          'i-twilio-idempotency-token': message.id,
        },
        body: new URLSearchParams({ To: config.phone_number.replace(/[\s()-]/g, ''), From: t.from, Body: body }).toString(),
        guarded: false,
      });
      if (!a.ok) return a.outcome;
      return outcomeOf(a.status, a.headers, a.status >= 300 ? `Twilio: ${reasonOf(a.body)}` : '');
    },
  };
}
