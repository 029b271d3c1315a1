// Telegram: POST {TELEGRAM_API_URL}/bot{bot_token}/sendMessage, JSON { chat_id, text, parse_mode }.
// Errors come back as { ok: false, error_code, description, parameters: { retry_after } }.
import { renderHtml, renderMessage } from '../render';
import type { Channel, SendOutcome } from '../types';
import { outcomeOf, type HttpSender } from './http';

export function createTelegramChannel(deps: { http: HttpSender; apiUrl: string; publicUrl: string | null }): Channel {
  return {
    async send(message, config): Promise<SendOutcome> {
      const m = renderMessage(message.event, deps.publicUrl, message.ack_url ?? null);
      const a = await deps.http.post(`${deps.apiUrl.replace(/\/+$/, '')}/bot${config.bot_token}/sendMessage`, {
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ chat_id: config.chat_id, text: renderHtml(m, 'telegram'), parse_mode: 'HTML', disable_web_page_preview: true }),
        guarded: false,
      });
      if (!a.ok) return a.outcome;
      let answer: { ok?: boolean; description?: string; parameters?: { retry_after?: number } } = {};
      try {
        answer = JSON.parse(a.body) as typeof answer;
      } catch {
        /* judged by status below */
      }
      if (a.status === 200 && answer.ok) return { ok: true };
      const outcome = outcomeOf(a.status === 200 ? 502 : a.status, a.headers, `Telegram: ${answer.description ?? 'unknown error'}`);
      if (!outcome.ok && a.status === 429 && answer.parameters?.retry_after) outcome.retryAfterMs = answer.parameters.retry_after * 1000;
      return outcome;
    },
  };
}
