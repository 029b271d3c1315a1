// Slack through its official SDK (@slack/web-api) with the bot token. An incident's first message
// is posted with chat.postMessage and its ts kept (the dispatcher stores it per incident and
// method); later steps, reminders and the acknowledgement are replies in its thread (thread_ts); on
// resolve the root message is updated (chat.update: green, resolved) and a reply is posted. The
// SDK does not retry (the outbox does) and rejects rate-limited calls with their Retry-After.
// Slack answers 200 with `ok: false` on errors; auth and channel errors are final.
import { WebAPIPlatformError, WebAPIRateLimitedError, WebAPIHTTPError, WebClient, LogLevel } from '@slack/web-api';
import { renderMessage, type RenderedMessage } from '../render';
import type { Channel, SendOutcome, ThreadRef } from '../types';

const FINAL_ERRORS = new Set([
  'invalid_auth', 'not_authed', 'account_inactive', 'token_revoked', 'token_expired', 'channel_not_found', 'not_in_channel',
  'is_archived', 'msg_too_long', 'no_text', 'invalid_blocks', 'missing_scope', 'restricted_action', 'cant_update_message', 'message_not_found',
]);
const TIMEOUT_MS = 10_000;
const COLOURS = { red: '#c0392b', green: '#1e8449', blue: '#2e86c1' } as const;

/** Form fields the SDK sends as JSON text; posted as JSON they go back to structures. */
const JSON_FIELDS = new Set(['blocks', 'attachments', 'metadata']);

/**
 * The SDK posts form-encoded bodies; Slack's write methods take JSON as well, which keeps blocks as
 * structures (and the token only in the Authorization header). This fetch re-encodes the body.
 */
const jsonFetch: typeof fetch = (input, init) => {
  const headers = new Headers(init?.headers);
  if (typeof init?.body !== 'string' || !headers.get('content-type')?.startsWith('application/x-www-form-urlencoded')) return fetch(input, init);
  const out: Record<string, unknown> = {};
  for (const [k, v] of new URLSearchParams(init.body)) {
    if (k === 'token') continue;
    out[k] = JSON_FIELDS.has(k) ? JSON.parse(v) : v;
  }
  headers.set('content-type', 'application/json; charset=utf-8');
  return fetch(input, { ...init, headers, body: JSON.stringify(out) });
};

function blocksOf(m: RenderedMessage) {
  // A storm's list is longer than a section's ten fields: one text section (Slack takes 3,000 characters).
  const fields = m.items ? [] : m.facts.map(([k, v]) => ({ type: 'mrkdwn', text: `*${k}*\n${v}` }));
  return [
    { type: 'header', text: { type: 'plain_text', text: m.title.slice(0, 150) } },
    ...(fields.length ? [{ type: 'section', fields: fields.slice(0, 10) }] : [{ type: 'section', text: { type: 'mrkdwn', text: m.text.slice(0, 3000) } }]),
    ...(m.link || m.ack
      ? [{ type: 'actions', elements: [
        ...(m.ack ? [{ type: 'button', text: { type: 'plain_text', text: m.items ? 'Acknowledge all' : 'Acknowledge' }, url: m.ack, style: 'primary' }] : []),
        ...(m.link ? [{ type: 'button', text: { type: 'plain_text', text: m.items ? 'Open the incidents' : 'Open the dashboard' }, url: m.link }] : []),
      ] }]
      : []),
  ];
}

/** The root message's state line, in its colour (updated on resolve). */
const stateAttachment = (m: RenderedMessage, state: string) => [{ color: COLOURS[m.color], fallback: state, text: state }];

function failure(err: unknown): SendOutcome {
  if (err instanceof WebAPIRateLimitedError) return { ok: false, final: false, error: 'Slack: ratelimited', retryAfterMs: err.retryAfter * 1000 };
  if (err instanceof WebAPIPlatformError) {
    const code = err.data.error;
    const error = `Slack: ${code ?? 'unknown error'}`;
    if (code === 'ratelimited') {
      const after = err.data.response_metadata?.retryAfter;
      return { ok: false, final: false, error, retryAfterMs: after === undefined ? undefined : after * 1000 };
    }
    return { ok: false, final: FINAL_ERRORS.has(code), error };
  }
  if (err instanceof WebAPIHTTPError) return { ok: false, final: err.statusCode >= 400 && err.statusCode < 500 && err.statusCode !== 429, error: `Slack: HTTP ${err.statusCode}` };
  const e = err as Error & { original?: Error & { cause?: { code?: string } } };
  return { ok: false, final: false, error: `Slack: ${e.original?.cause?.code ?? e.original?.message ?? e.message}` };
}

export function createSlackChannel(deps: { apiUrl: string; publicUrl: string | null }): Channel {
  const client = new WebClient(undefined, {
    slackApiUrl: `${deps.apiUrl.replace(/\/+$/, '')}/`, retryConfig: { retries: 0 }, rejectRateLimitedCalls: true, timeout: TIMEOUT_MS,
    logLevel: LogLevel.ERROR, fetch: jsonFetch, allowAbsoluteUrls: false,
  });
  return {
    async send(message, config, thread): Promise<SendOutcome> {
      const { event } = message;
      const m = renderMessage(event, deps.publicUrl, message.ack_url ?? null);
      const token = config.bot_token;
      const root: ThreadRef | null = thread?.ref ?? null;
      try {
        if (root && event.type === 'incident.resolved') {
          await client.chat.update({ token, channel: root.channel, ts: root.ts, text: m.text, blocks: blocksOf(m), attachments: stateAttachment(m, 'Resolved') });
          await client.chat.postMessage({ token, channel: root.channel, thread_ts: root.ts, text: m.text });
          return { ok: true };
        }
        if (root && event.type !== 'test') {
          await client.chat.postMessage({ token, channel: root.channel, thread_ts: root.ts, text: m.text });
          return { ok: true };
        }
        // An incident's opening starts its thread; other messages without one stand alone, as before threads.
        const starts = thread && event.type === 'incident.opened';
        const answer = await client.chat.postMessage({
          token, channel: config.channel, text: m.text, blocks: blocksOf(m),
          ...(starts ? { attachments: stateAttachment(m, 'Open: replies in this thread follow the incident') } : {}),
        });
        if (starts && typeof answer.ts === 'string') thread.started({ channel: typeof answer.channel === 'string' ? answer.channel : config.channel, ts: answer.ts });
        return { ok: true };
      } catch (err) {
        return failure(err);
      }
    },
  };
}
