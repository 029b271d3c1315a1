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
        // Discord takes 25 fields; a storm's list is at most 20 (render.ts GROUP_LISTED).
        fields: m.facts.slice(0, 25).map(([name, value]) => ({ name: name.slice(0, 256), value: value.slice(0, 1024), inline: !m.items && name !== 'What' && name !== 'Note' })),
        ...(m.link ? { url: m.link } : {}),
        ...(m.ack ? { description: `[Acknowledge](${m.ack})` } : {}),
        timestamp: message.event.occurred_at,
      };
      return postJson(deps.http, config.webhook_url, { content: m.title.slice(0, 2000), embeds: [embed] }, { guarded: true });
    },
  };
}
