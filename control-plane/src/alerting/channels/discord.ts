// Discord: POST to the user's webhook URL, JSON { content, embeds }.
import { renderMessage } from '../render';
import type { Channel } from '../types';
import { postJson, type HttpSender } from './http';

const COLOURS = { red: 0xc0392b, green: 0x1e8449, blue: 0x2e86c1 } as const;

export function createDiscordChannel(deps: { http: HttpSender; publicUrl: string | null }): Channel {
  return {
    send(message, config) {
      const m = renderMessage(message.event, deps.publicUrl, message.ack_url ?? null);
      const embed = {
        title: m.title.slice(0, 256),
        color: COLOURS[m.color],
        fields: m.facts.map(([name, value]) => ({ name, value: value.slice(0, 1024), inline: name !== 'What' && name !== 'Note' })),
        ...(m.link ? { url: m.link } : {}),
        ...(m.ack ? { description: `[Acknowledge](${m.ack})` } : {}),
        timestamp: message.event.occurred_at,
      };
      return postJson(deps.http, config.webhook_url, { content: m.title.slice(0, 2000), embeds: [embed] }, { guarded: true });
    },
  };
}
