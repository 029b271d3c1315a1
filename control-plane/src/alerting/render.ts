// Every alert text in one place: what a person needs (endpoint, what is wrong, where, since when,
// a link, and on resolve how long it lasted), shaped per channel from the same facts.
import { formatDuration } from '@upfleet/proto/duration';
import type { AlertEvent } from './types';

export interface RenderedMessage {
  /** One line: email subject, push title. */
  title: string;
  /** Plain text, a few lines. */
  text: string;
  /** The facts as label/value pairs, for cards and embeds. */
  facts: Array<[string, string]>;
  /** Link to the dashboard, or null without PUBLIC_URL. */
  link: string | null;
  /** The recipient's acknowledge link, or null (resolved and test messages). */
  ack: string | null;
  color: 'red' | 'green' | 'blue';
}

const when = (iso: string) => `${iso.slice(0, 19).replace('T', ' ')} UTC`;

export function renderMessage(event: AlertEvent, publicUrl: string | null, ackUrl: string | null = null): RenderedMessage {
  const link = publicUrl ? `${publicUrl.replace(/\/+$/, '')}/dashboard` : null;
  if (event.type === 'test' || !event.incident || !event.endpoint) {
    const text = 'This is a test message from Upfleet: this alert method works.';
    return { title: 'Upfleet test message', text: link ? `${text}\n${link}` : text, facts: [], link, ack: null, color: 'blue' };
  }
  const { incident: i, endpoint: e } = event;
  const regions = i.regions.length ? i.regions.join(', ') : 'all regions';
  const facts: Array<[string, string]> = [
    ['Endpoint', `${e.name} (${e.url})`],
    ['What', i.cause],
    ['Regions', regions],
    ['Since', when(i.opened_at)],
  ];
  let title: string;
  if (event.type === 'incident.opened') {
    title = i.flapping ? `FLAPPING: ${e.name} keeps changing state` : `DOWN: ${e.name} - ${i.cause}`;
    if (event.step !== undefined && event.step > 1) facts.push(['Escalation', `step ${event.step}: not acknowledged yet`]);
  } else if (event.type === 'incident.reminder') {
    title = `REMINDER: ${e.name} is still down - ${i.cause}`;
    if (event.reminder) facts.push(['Reminder', `${event.reminder.n} of ${event.reminder.of}`]);
  } else if (event.type === 'incident.acknowledged') {
    title = `Acknowledged by ${event.acknowledged_by ?? 'a member'}: ${e.name} - ${i.cause}`;
  } else {
    const lasted = formatDuration(Date.parse(i.resolved_at ?? event.occurred_at) - Date.parse(i.opened_at));
    title = `RESOLVED: ${e.name} is back after ${lasted}`;
    facts.push(['Resolved', when(i.resolved_at ?? event.occurred_at)], ['Lasted', lasted]);
  }
  if (i.flapping) facts.push(['Note', 'This check changed state more than 4 times in 30 minutes; further changes are held until it settles.']);
  const lines = [title, ...facts.map(([k, v]) => `${k}: ${v}`)];
  const ack = event.type === 'incident.opened' ? ackUrl : null;
  // The link on a line of its own keeps mail lines short enough to travel as plain 7-bit text.
  if (ack) lines.push('Acknowledge:', ack);
  if (link) lines.push(`Dashboard: ${link}`);
  const color = event.type === 'incident.resolved' ? 'green' : event.type === 'incident.acknowledged' ? 'blue' : 'red';
  return { title, text: lines.join('\n'), facts, link, ack, color };
}

export const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** HTML for email bodies and Telegram's parse_mode HTML (which knows b, a, and line breaks only). */
export function renderHtml(m: RenderedMessage, flavour: 'email' | 'telegram'): string {
  const facts = m.facts.map(([k, v]) => `<b>${escapeHtml(k)}:</b> ${escapeHtml(v)}`);
  const link = m.link ? `<a href="${escapeHtml(m.link)}">Open the dashboard</a>` : '';
  const ack = m.ack ? `<a href="${escapeHtml(m.ack)}">Acknowledge</a>` : '';
  if (flavour === 'telegram') return [`<b>${escapeHtml(m.title)}</b>`, ...facts, ack, link].filter(Boolean).join('\n');
  const colour = m.color === 'red' ? '#c0392b' : m.color === 'green' ? '#1e8449' : '#2e86c1';
  return `<!doctype html><html><body style="font-family:sans-serif">
<h2 style="color:${colour}">${escapeHtml(m.title)}</h2>
<p>${facts.join('<br>')}</p>${ack ? `<p>${ack}</p>` : ''}${link ? `<p>${link}</p>` : ''}
</body></html>`;
}
