// Slack: POST {SLACK_API_URL}/chat.postMessage with the bot token. Slack answers 200 with
// `ok: false` on errors; auth and channel errors are final, `ratelimited` is retried.
import { renderMessage } from '../render';
import type { Channel, SendOutcome } from '../types';
import { outcomeOf, retryAfterMs, type HttpSender } from './http';

const FINAL_ERRORS = new Set([
  'invalid_auth', 'not_authed', 'account_inactive', 'token_revoked', 'token_expired', 'channel_not_found', 'not_in_channel',
  'is_archived', 'msg_too_long', 'no_text', 'invalid_blocks', 'missing_scope', 'restricted_action',
]);

export function createSlackChannel(deps: { http: HttpSender; apiUrl: string; publicUrl: string | null }): Channel {
  return {
    async send(message, config): Promise<SendOutcome> {
      const m = renderMessage(message.event, deps.publicUrl, message.ack_url ?? null);
      const fields = m.facts.map(([k, v]) => ({ type: 'mrkdwn', text: `*${k}*\n${v}` }));
      const blocks = [
        { type: 'header', text: { type: 'plain_text', text: m.title.slice(0, 150) } },
        ...(fields.length ? [{ type: 'section', fields: fields.slice(0, 10) }] : [{ type: 'section', text: { type: 'mrkdwn', text: m.text } }]),
        ...(m.link || m.ack
          ? [{ type: 'actions', elements: [
            ...(m.ack ? [{ type: 'button', text: { type: 'plain_text', text: 'Acknowledge' }, url: m.ack, style: 'primary' }] : []),
            ...(m.link ? [{ type: 'button', text: { type: 'plain_text', text: 'Open the dashboard' }, url: m.link }] : []),
          ] }]
          : []),
      ];
      const a = await deps.http.post(`${deps.apiUrl.replace(/\/+$/, '')}/chat.postMessage`, {
        headers: { 'content-type': 'application/json; charset=utf-8', authorization: `Bearer ${config.bot_token}` },
        body: JSON.stringify({ channel: config.channel, text: m.text, blocks }),
        guarded: false,
      });
      if (!a.ok) return a.outcome;
      if (a.status !== 200) return outcomeOf(a.status, a.headers, a.body.slice(0, 200));
      let answer: { ok?: boolean; error?: string };
      try {
        answer = JSON.parse(a.body) as typeof answer;
      } catch {
        return { ok: false, final: false, error: 'Slack answered with something other than JSON' };
      }
      if (answer.ok) return { ok: true };
      const error = `Slack: ${answer.error ?? 'unknown error'}`;
      if (answer.error === 'ratelimited') return { ok: false, final: false, error, retryAfterMs: retryAfterMs(a.headers['retry-after']) };
      return { ok: false, final: FINAL_ERRORS.has(answer.error ?? ''), error };
    },
  };
}
