// The public status page as server-rendered HTML (React renderToString, no script needed: readable
// with JavaScript off) and its Atom feed. Dark mode follows the system (prefers-color-scheme).
import { createElement as h, type ReactNode } from 'react';
import { renderToString } from 'react-dom/server';
import type { ComponentState, PublicStatus, PublicStatusComponent } from '@upfleet/proto/rest';
import { toZonedLocal } from '@upfleet/proto/time-zone';

export const STATE_LABEL: Record<ComponentState, string> = {
  operational: 'Operational',
  degraded: 'Degraded performance',
  partial_outage: 'Partial outage',
  major_outage: 'Major outage',
  maintenance: 'Under maintenance',
};

const OVERALL_LABEL: Record<ComponentState, string> = {
  operational: 'All systems operational',
  degraded: 'Some systems are degraded',
  partial_outage: 'Partial outage',
  major_outage: 'Major outage',
  maintenance: 'Maintenance in progress',
};

const CSS = `
:root{color-scheme:light dark;--bg:#f7f8fa;--card:#fff;--fg:#1b1f24;--muted:#5b6470;--line:#e3e6ea;--ok:#2da44e;--deg:#d4a72c;--part:#e36209;--major:#cf222e;--maint:#3b82f6;--none:#c9ced6}
@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--card:#161b22;--fg:#e6edf3;--muted:#9aa4b0;--line:#30363d;--none:#3a414b}}
*{box-sizing:border-box}body{margin:0;background:var(--bg);color:var(--fg);font:15px/1.5 system-ui,-apple-system,Segoe UI,Roboto,sans-serif}
main{max-width:860px;margin:0 auto;padding:24px 16px 48px}h1{font-size:1.7rem;margin:0 0 4px}h2{font-size:1.15rem;margin:32px 0 12px}
.desc{color:var(--muted);margin:0 0 20px}.banner{border-radius:8px;padding:16px 18px;color:#fff;font-weight:600;font-size:1.1rem}
.s-operational{background:var(--ok)}.s-degraded{background:var(--deg)}.s-partial_outage{background:var(--part)}.s-major_outage{background:var(--major)}.s-maintenance{background:var(--maint)}
.card{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:14px 16px;margin:10px 0}
.group{font-weight:600;color:var(--muted);margin:18px 0 6px;text-transform:uppercase;font-size:.8rem;letter-spacing:.04em}
.comp-head{display:flex;justify-content:space-between;gap:12px;flex-wrap:wrap}.state{font-weight:600}
.t-operational{color:var(--ok)}.t-degraded{color:var(--deg)}.t-partial_outage{color:var(--part)}.t-major_outage{color:var(--major)}.t-maintenance{color:var(--maint)}
.bars{display:flex;gap:2px;margin:10px 0 4px;height:34px}.bar{flex:1;border-radius:2px;background:var(--none);min-width:2px}
.bar.b-ok{background:var(--ok)}.bar.b-deg{background:var(--deg)}.bar.b-part{background:var(--part)}.bar.b-major{background:var(--major)}
.axis{display:flex;justify-content:space-between;color:var(--muted);font-size:.8rem}
.update{border-left:3px solid var(--line);padding:2px 0 2px 12px;margin:8px 0}.update time,.meta{color:var(--muted);font-size:.85rem}
.tag{display:inline-block;border-radius:4px;padding:0 6px;font-size:.8rem;font-weight:600;border:1px solid var(--line)}
form.inline{display:flex;gap:8px;flex-wrap:wrap}input{font:inherit;padding:6px 10px;border:1px solid var(--line);border-radius:6px;background:var(--card);color:var(--fg)}
button{font:inherit;padding:6px 14px;border-radius:6px;border:0;background:var(--maint);color:#fff;cursor:pointer}
footer{margin-top:40px;color:var(--muted);font-size:.85rem;text-align:center}
@media (max-width:600px){.bars{height:28px;gap:1px}h1{font-size:1.4rem}}
`;

/** An instant as the page's visitors read it: wall-clock time in the page's zone (DST included), the zone named once in the footer. */
const fmtTime = (iso: string, zone: string) => toZonedLocal(Date.parse(iso), zone).replace('T', ' ');

function barClass(uptime: number | null): string {
  if (uptime === null) return 'bar';
  if (uptime >= 99.9) return 'bar b-ok';
  if (uptime >= 99) return 'bar b-deg';
  if (uptime >= 95) return 'bar b-part';
  return 'bar b-major';
}

function barTitle(d: PublicStatusComponent['days'][number]): string {
  const parts = [d.date, d.uptime === null ? 'No data' : `${d.uptime.toFixed(2)} % uptime`];
  for (const r of d.reports) parts.push(`Report: ${r.title}`);
  return parts.join(' · ');
}

function barsHtml(days: PublicStatusComponent['days']): string {
  let out = '';
  for (const d of days) {
    out += `<span class="${barClass(d.uptime)}" title="${escapeXml(barTitle(d))}"></span>`;
  }
  return out;
}

function Component(c: PublicStatusComponent): ReactNode {
  return h(
    'div',
    { className: 'card component', key: c.id, 'data-component': c.id, 'data-status': c.status },
    h('div', { className: 'comp-head' }, h('strong', null, c.name), h('span', { className: `state t-${c.status}` }, STATE_LABEL[c.status])),
    // 90 spans per component as one escaped string: a 50-component page would otherwise be 4,500
    // React elements, most of renderToString's time.
    h('div', { className: 'bars', role: 'img', 'aria-label': `90 days of uptime for ${c.name}`, dangerouslySetInnerHTML: { __html: barsHtml(c.days) } }),
    h('div', { className: 'axis' }, h('span', null, '90 days ago'), h('span', null, c.uptime_90d === null ? 'No data' : `${c.uptime_90d.toFixed(2)} % uptime`), h('span', null, 'Today')),
  );
}

function Report(r: PublicStatus['reports'][number], names: Map<number, string>, zone: string): ReactNode {
  return h(
    'div',
    { className: 'card report', key: r.report_id, 'data-report': r.report_id },
    h('strong', null, r.title), ' ', h('span', { className: 'tag' }, r.status),
    r.affected.length > 0 ? h('div', { className: 'meta' }, 'Affects: ', r.affected.map((a) => `${names.get(a.component_id) ?? 'component'} (${a.impact.replace('_', ' ')})`).join(', ')) : null,
    r.updates.map((u) => h('div', { className: 'update', key: u.update_id }, h('strong', null, u.status), ' — ', u.message, h('br'), h('time', { dateTime: u.created_at }, fmtTime(u.created_at, zone)))),
  );
}

export interface RenderOptions {
  /** Where the subscribe form posts; null hides it. */
  subscribeAction: string | null;
  feedUrl: string;
  /** A notice above the page (after subscribing). */
  notice?: string | null;
}

function Page(s: PublicStatus, o: RenderOptions): ReactNode {
  const zone = s.page.timezone || 'UTC';
  const names = new Map(s.components.map((c) => [c.id, c.name]));
  const open = s.reports.filter((r) => r.resolved_at === null);
  const history = s.reports.filter((r) => r.resolved_at !== null);
  const groups: Array<{ name: string | null; items: PublicStatusComponent[] }> = [];
  for (const c of s.components) {
    const last = groups.at(-1);
    if (last && last.name === c.group) last.items.push(c);
    else groups.push({ name: c.group, items: [c] });
  }
  const inProgress = s.maintenance.filter((m) => m.state === 'in_progress');
  const upcoming = s.maintenance.filter((m) => m.state === 'scheduled');
  const windowCard = (m: PublicStatus['maintenance'][number]) =>
    h('div', { className: 'card maintenance', key: m.id, 'data-maintenance': m.id },
      h('strong', null, m.title), ' ', h('span', { className: 'tag' }, m.state.replace('_', ' ')),
      h('div', { className: 'meta' }, `${fmtTime(m.starts_at, zone)} – ${fmtTime(m.ends_at, zone)}`, m.components.length ? ` · ${m.components.map((id) => names.get(id)).join(', ')}` : ''),
      m.message ? h('p', null, m.message) : null);
  return h(
    'main',
    null,
    o.notice ? h('div', { className: 'card notice', role: 'status' }, o.notice) : null,
    h('h1', null, s.page.title),
    s.page.description ? h('p', { className: 'desc' }, s.page.description) : null,
    h('div', { className: `banner s-${s.overall}`, id: 'overall', 'data-status': s.overall }, OVERALL_LABEL[s.overall]),
    open.length + s.detected.length > 0
      ? h('section', null, h('h2', null, 'Current incidents'),
          s.detected.map((d) => h('div', { className: 'card report', key: `detected-${d.component_ids.join('-')}`, 'data-detected': d.component_ids.join(' ') },
            h('strong', null, d.title), ' ', h('span', { className: `tag t-${d.impact}` }, STATE_LABEL[d.impact]),
            h('div', { className: 'meta' }, 'Detected by monitoring since ', h('time', { dateTime: d.since }, fmtTime(d.since, zone))))),
          open.map((r) => Report(r, names, zone)))
      : null,
    inProgress.length > 0 ? h('section', null, h('h2', null, 'Maintenance in progress'), inProgress.map(windowCard)) : null,
    h('section', null, h('h2', null, 'Components'),
      groups.map((g, i) => h('div', { key: i, className: 'component-group' }, g.name ? h('div', { className: 'group' }, g.name) : null, g.items.map(Component)))),
    upcoming.length > 0 ? h('section', null, h('h2', null, 'Scheduled maintenance'), upcoming.map(windowCard)) : null,
    h('section', null, h('h2', null, 'Past incidents (90 days)'), history.length > 0
      ? history.map((r) => Report(r, names, zone))
      : h('p', { className: 'meta' }, open.length + s.detected.length > 0 ? 'No resolved incidents in the last 90 days.' : 'No incidents reported in the last 90 days.')),
    o.subscribeAction
      ? h('section', null, h('h2', null, 'Get updates by email'),
          h('form', { className: 'inline', method: 'post', action: o.subscribeAction },
            h('input', { type: 'email', name: 'email', required: true, placeholder: 'you@example.com', 'aria-label': 'Email address' }),
            h('button', { type: 'submit' }, 'Subscribe')))
      : null,
    h('footer', null, h('a', { href: o.feedUrl }, 'Atom feed'), ` · Times in ${zone} · Updated ${fmtTime(s.generated_at, zone)} · Powered by Upfleet`),
  );
}

function document(title: string, body: ReactNode, extraHead = ''): string {
  const html = renderToString(body);
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">` +
    `<title>${escapeXml(title)}</title><style>${CSS}</style>${extraHead}</head><body>${html}</body></html>`;
}

export function renderStatusPage(s: PublicStatus, o: RenderOptions): string {
  return document(s.page.title, Page(s, o), `<link rel="alternate" type="application/atom+xml" href="${escapeXml(o.feedUrl)}" title="${escapeXml(s.page.title)}">`);
}

export function renderPasswordForm(title: string, action: string, wrong: boolean): string {
  return document(title,
    h('main', null, h('h1', null, title),
      h('p', { className: 'desc' }, 'This status page is protected by a password.'),
      wrong ? h('p', { className: 't-major_outage', role: 'alert' }, 'Wrong password. Please try again.') : null,
      h('form', { className: 'inline', method: 'post', action },
        h('input', { type: 'password', name: 'password', required: true, 'aria-label': 'Password', autoComplete: 'current-password' }),
        h('button', { type: 'submit' }, 'Open'))));
}

export function escapeXml(s: string): string {
  return s.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]!);
}

/** Reports (one entry per update, newest first) and maintenance as an Atom 1.0 feed. */
export function renderAtom(s: PublicStatus, selfUrl: string, pageUrl: string): string {
  type Entry = { id: string; title: string; updated: string; content: string };
  const entries: Entry[] = [];
  for (const r of s.reports) {
    for (const u of r.updates) entries.push({ id: `${pageUrl}#report-${r.report_id}-${u.update_id}`, title: `${r.title} (${u.status})`, updated: u.created_at, content: u.message });
  }
  for (const m of s.maintenance) {
    entries.push({ id: `${pageUrl}#maintenance-${m.id}`, title: `Maintenance: ${m.title} (${m.state.replace('_', ' ')})`, updated: m.starts_at, content: `${m.starts_at} – ${m.ends_at}. ${m.message}` });
  }
  entries.sort((a, b) => (a.updated < b.updated ? 1 : -1));
  const updated = entries[0]?.updated ?? s.generated_at;
  return `<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
<title>${escapeXml(s.page.title)}</title>
<id>${escapeXml(pageUrl)}</id>
<link rel="self" href="${escapeXml(selfUrl)}"/>
<link rel="alternate" href="${escapeXml(pageUrl)}"/>
<updated>${updated}</updated>
${entries.map((e) => `<entry><id>${escapeXml(e.id)}</id><title>${escapeXml(e.title)}</title><updated>${e.updated}</updated><link href="${escapeXml(pageUrl)}"/><content type="text">${escapeXml(e.content)}</content></entry>`).join('\n')}
</feed>
`;
}

/** A short page after a form or a mail link (subscribed, confirmed, unsubscribed). */
/** A one-line answer on a page's behalf (subscription links). With `title` null (an unpublished
 *  page) nothing of the page shows: neither its title nor a link back to it. */
export function renderNotice(title: string | null, heading: string, text: string, back: string): string {
  return document(title === null ? 'Status page' : title,
    h('main', null, title === null ? null : h('h1', null, title), h('div', { className: 'card notice', role: 'status' }, h('strong', null, heading), h('p', null, text)),
      title === null ? null : h('p', null, h('a', { href: back }, 'Back to the status page'))));
}
