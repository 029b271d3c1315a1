// Microsoft Teams: POST to the user's webhook URL, an Adaptive Card message.
import { renderMessage } from '../render';
import type { Channel } from '../types';
import { postJson, type HttpSender } from './http';

export function createTeamsChannel(deps: { http: HttpSender; publicUrl: string | null }): Channel {
  return {
    send(message, config) {
      const m = renderMessage(message.event, deps.publicUrl, message.ack_url ?? null);
      const content = {
        $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
        type: 'AdaptiveCard',
        version: '1.4',
        body: [
          { type: 'TextBlock', text: m.title, weight: 'Bolder', size: 'Medium', wrap: true, color: m.color === 'red' ? 'Attention' : m.color === 'green' ? 'Good' : 'Accent' },
          ...(m.facts.length
            ? [{ type: 'FactSet', facts: m.facts.map(([title, value]) => ({ title, value })) }]
            : [{ type: 'TextBlock', text: m.text, wrap: true }]),
        ],
        ...(m.link || m.ack
          ? { actions: [
            ...(m.ack ? [{ type: 'Action.OpenUrl', title: 'Acknowledge', url: m.ack }] : []),
            ...(m.link ? [{ type: 'Action.OpenUrl', title: 'Open the dashboard', url: m.link }] : []),
          ] }
          : {}),
      };
      return postJson(deps.http, config.webhook_url, {
        type: 'message',
        attachments: [{ contentType: 'application/vnd.microsoft.card.adaptive', contentUrl: null, content }],
      }, { guarded: true });
    },
  };
}
