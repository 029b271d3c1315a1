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
  /** A storm's grouped message: each incident listed with its own acknowledge link (facts list them too). */
  items?: Array<{ title: string; detail: string; ack: string | null }>;
  /** A grouped message's incidents beyond those listed. */
  unlisted?: number;
}

/** At most this many incidents are listed in one grouped message; the rest are on the Incidents page. */
export const GROUP_LISTED = 20;

const conditionLabel = (c: string) => (c === 'down' ? 'down' : c.replace(/^threshold:([^:]+):(.*)$/, (_, type: string, where: string) => `${type} threshold${where === 'any' ? '' : ` (${where})`}`));

/** A storm's message: one per method, listing the group's incidents, a link to the Incidents page, and the group's acknowledge link. */
function renderGroup(event: AlertEvent, publicUrl: string | null, groupAck: string | null): RenderedMessage {
  const all = event.group!.incidents;
  const opened = event.type === 'incident.group_opened';
  const link = publicUrl ? `${publicUrl.replace(/\/+$/, '')}/incidents` : null;
  const title = opened ? `STORM: ${all.length} incidents opened within a minute` : `RESOLVED: ${all.length} incidents of a storm are back`;
  const listed = all.slice(0, GROUP_LISTED);
  const items = listed.map((g) => ({
    title: `${g.endpoint.name} (${g.endpoint.url})`,
    detail: `${conditionLabel(g.incident.condition)}: ${g.incident.cause}`,
    ack: opened ? g.ack_url ?? null : null,
  }));
  const facts: Array<[string, string]> = items.map((i) => [i.title, i.ack ? `${i.detail} - acknowledge: ${i.ack}` : i.detail]);
  const lines = [title, ...items.flatMap((i) => [`- ${i.title}: ${i.detail}`, ...(i.ack ? [`  Acknowledge: ${i.ack}`] : [])])];
  if (all.length > listed.length) lines.push(`... and ${all.length - listed.length} more`);
  const ack = opened ? groupAck : null;
  if (ack) lines.push('Acknowledge all of them:', ack);
  if (link) lines.push(`Incidents: ${link}`);
  return { title, text: lines.join('\n'), facts, link, ack, color: opened ? 'red' : 'green', items, unlisted: all.length - listed.length };
}

const when = (iso: string) => `${iso.slice(0, 19).replace('T', ' ')} UTC`;

export function renderMessage(event: AlertEvent, publicUrl: string | null, ackUrl: string | null = null): RenderedMessage {
  if (event.group) return renderGroup(event, publicUrl, ackUrl);
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
  const facts = m.items
    ? m.items.map((i) => `<b>${escapeHtml(i.title)}:</b> ${escapeHtml(i.detail)}${i.ack ? ` <a href="${escapeHtml(i.ack)}">Acknowledge</a>` : ''}`)
    : m.facts.map(([k, v]) => `<b>${escapeHtml(k)}:</b> ${escapeHtml(v)}`);
  const link = m.link ? `<a href="${escapeHtml(m.link)}">${m.items ? 'Open the incidents' : 'Open the dashboard'}</a>` : '';
  const ack = m.ack ? `<a href="${escapeHtml(m.ack)}">${m.items ? 'Acknowledge all of them' : 'Acknowledge'}</a>` : '';
  if (m.unlisted) facts.push(`... and ${m.unlisted} more`);
  if (flavour === 'telegram') return [`<b>${escapeHtml(m.title)}</b>`, ...facts, ack, link].filter(Boolean).join('\n');
  const colour = m.color === 'red' ? '#c0392b' : m.color === 'green' ? '#1e8449' : '#2e86c1';
  return `<!doctype html><html><body style="font-family:sans-serif">
<h2 style="color:${colour}">${escapeHtml(m.title)}</h2>
<p>${facts.join('<br>')}</p>${ack ? `<p>${ack}</p>` : ''}${link ? `<p>${link}</p>` : ''}
</body></html>`;
}
