// The acknowledge link a message carries: GET /ack/{token} shows the incident and a button, and only
// the form's POST acknowledges, because link previews and mail scanners fetch every link they see.
// The token is the authority (signed, bound to one incident); answers are pages, never API JSON.
import { Router, type Response } from 'express';
import { formatDuration } from '@upfleet/proto/duration';
import type { AckLinkState, IncidentHandling } from '../../alerting/handling';
import { escapeHtml } from '../../alerting/render';
import { sendErrorPage } from '../middleware/errors';
import { limitPerAddress } from '../middleware/rate-limit';

/** Tries per address and minute on /ack (a token is not guessable; this bounds trying). */
export const ACK_LINK_TRIES_PER_MINUTE = 30;

function page(res: Response, status: number, heading: string, body: string): void {
  res.status(status).set({ 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer', 'X-Robots-Tag': 'noindex' }).type('html').send(
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
      `<meta name="robots" content="noindex"><title>${escapeHtml(heading)} · Upfleet</title></head>` +
      `<body style="font-family:system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem">` +
      `<h1>${escapeHtml(heading)}</h1>${body}</body></html>`,
  );
}

/** A storm group's link: the incidents it acknowledges, one line each. */
function groupFacts(s: Extract<AckLinkState, { ok: true }>): string {
  const items = s.group!.incidents.map((i) => `<li>${escapeHtml(i.endpoint_name ?? `#${i.url_id}`)}: ${escapeHtml(i.cause)} <small>(${escapeHtml(i.condition)})</small></li>`);
  return `<p>${s.group!.incidents.length} incidents of one storm:</p><ul>${items.join('')}</ul>`;
}

function facts(s: Extract<AckLinkState, { ok: true }>, now: number): string {
  if (s.group) return groupFacts(s);
  const i = s.incident;
  const rows: Array<[string, string]> = [
    ['Endpoint', i.endpoint_name ?? `#${i.url_id}`],
    ['What', i.cause],
    ['Regions', i.regions.length ? i.regions.join(', ') : 'all regions'],
    ['Since', `${i.opened_at.slice(0, 19).replace('T', ' ')} UTC (${formatDuration(Math.max(0, now - Date.parse(i.opened_at)))} ago)`],
  ];
  return `<dl>${rows.map(([k, v]) => `<dt style="font-weight:600">${escapeHtml(k)}</dt><dd style="margin:0 0 .5rem">${escapeHtml(v)}</dd>`).join('')}</dl>`;
}

export function ackLinkRoutes(deps: { incidents: IncidentHandling; now?: () => number }): Router {
  const r = Router({ caseSensitive: true, strict: true });
  const now = deps.now ?? Date.now;
  const refused = (res: Response, s: Extract<AckLinkState, { ok: false }>) =>
    sendErrorPage(res, s.status, s.status === 404 ? 'Link not valid' : s.status === 410 ? 'Incident resolved' : 'Already acknowledged', s.reason);
  r.use('/ack', limitPerAddress(ACK_LINK_TRIES_PER_MINUTE));
  r.get('/ack/:token', (req, res) => {
    const s = deps.incidents.linkState(String(req.params.token));
    if (!s.ok) return refused(res, s);
    page(res, 200, s.group ? 'Acknowledge these incidents?' : 'Acknowledge this incident?', `${facts(s, now())}
<p>Acknowledging tells your team someone is on it and stops further escalation and reminders.</p>
<form method="post" action="/ack/${encodeURIComponent(String(req.params.token))}"><button type="submit" style="font-size:1rem;padding:.5rem 1rem">Acknowledge</button></form>`);
  });
  r.post('/ack/:token', async (req, res) => {
    const s = await deps.incidents.acknowledgeByLink(String(req.params.token));
    if (!s.ok) return refused(res, s);
    page(res, 200, s.group ? 'Incidents acknowledged' : 'Incident acknowledged', `${facts(s, now())}<p>Thank you: the incident is acknowledged. Further escalation and reminders stop.</p><p><a href="/incidents">Open the incidents</a></p>`);
  });
  return r;
}
