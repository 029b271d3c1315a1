// The dashboard's endpoint list: per row the live state (status dot and word, last response time,
// "checked 12 s ago" ticking, the last failure's reason, 30 heartbeat bars), clicking a row opens
// its graphs. It has search, a status filter and a sort (their values live in the URL, owned by the
// page), down endpoints first by default. Rows are drawn PAGE at a time with "Show more".
// Keyboard: arrow keys move between rows, Enter opens the focused row's graphs.
import { forwardRef, useEffect, useRef, useState, type KeyboardEvent, type MouseEvent } from 'react';
import { Link } from 'react-router-dom';
import { ENDPOINT_STATUSES, type Endpoint, type EndpointStatus, type Incident } from '@upfleet/proto/rest';
import { isTimeZone } from '@upfleet/proto/time-zone';
import { BellIcon, ChartIcon, EditIcon, TrashIcon } from '../Icons';
import { conditionLabel, formatDateTime, regionKeyLabel, sinceLabel, uptimeBadge } from '../../lib/format';
import { PAGE, type ListQuery } from '../../lib/live-list';
import { checkedAgo, HeartbeatBars, STATUS_LABELS, StatusWord } from './LiveStatus';
import { graceLabel, heartbeatNote, scheduleLabel } from './heartbeat-text';
import { SloBudgetBadge } from './SloBudget';

export { PAGE };
/** From the first endpoint on the list has search, filter and sort: a tool that appears only at
 *  ten endpoints is one people never learn about. */
export const FILTER_FROM = 1;

const SORTS: Array<[string, string]> = [
  ['status', 'Down first'], ['-status', 'Up first'], ['name', 'Name A–Z'], ['-name', 'Name Z–A'],
  ['uptime', 'Lowest uptime'], ['-uptime', 'Highest uptime'], ['-last_checked', 'Checked recently'], ['last_checked', 'Checked longest ago'],
];

type Act = (ep: Endpoint) => void;

/** Re-renders every second, for the "checked … ago" labels. */
function useNow(everyMs = 1000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(t);
  }, [everyMs]);
  return now;
}

export const EndpointList = forwardRef<HTMLInputElement, {
  rows: Endpoint[];
  matching: number;
  all: number;
  more: number;
  onShowMore: () => void;
  query: ListQuery;
  onQuery: (q: Partial<ListQuery>) => void;
  openIncidents: Map<number, Incident>;
  /** Endpoints in a maintenance window in progress. */
  inMaintenance?: Set<number>;
  /** The changing actions: absent for a member who may not change endpoints (a viewer), whose rows
   *  then offer the graphs only. */
  onEdit?: Act;
  onThresholds?: Act;
  onGraphs: Act;
  onToggle?: Act;
  onDelete?: Act;
  /** The user's profile zone: heartbeat notes give their times in it. */
  timeZone?: string;
}>(function EndpointList({ rows, matching, all, more, onShowMore, query, onQuery, openIncidents, inMaintenance, onEdit, onThresholds, onGraphs, onToggle, onDelete, timeZone }, searchRef) {
  const now = useNow();
  const zone = timeZone && isTimeZone(timeZone) ? timeZone : undefined;
  // The box keeps what is typed (the URL follows it; a change of the URL from elsewhere comes back here).
  // The router may catch up a keystroke or more late, so a URL value this box sent earlier is not
  // "from elsewhere": taking it back would drop what was typed since (typing "steady 0" fast gave
  // "steady0" when the URL of "steady" arrived after the space).
  const [text, setText] = useState(query.q);
  const textNow = useRef(query.q);
  const typed = useRef<string[]>([]);
  useEffect(() => {
    if (query.q === textNow.current) {
      typed.current = [];
      return;
    }
    const i = typed.current.indexOf(query.q);
    if (i >= 0) {
      typed.current.splice(0, i + 1);
      return;
    }
    typed.current = [];
    textNow.current = query.q;
    setText(query.q);
  }, [query.q]);

  const onRowKey = (e: KeyboardEvent<HTMLLIElement>, ep: Endpoint) => {
    if (e.target !== e.currentTarget) return; // keys on the row's own buttons and links keep their meaning
    const li = e.currentTarget;
    if (e.key === 'Enter') {
      e.preventDefault();
      onGraphs(ep);
    } else if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      const next = (e.key === 'ArrowDown' ? li.nextElementSibling : li.previousElementSibling) as HTMLElement | null;
      next?.focus();
    }
  };
  const onRowClick = (e: MouseEvent<HTMLLIElement>, ep: Endpoint) => {
    if ((e.target as Element).closest('button, a')) return;
    onGraphs(ep);
  };
  const filtered = query.q.trim() !== '' || query.status.length > 0;

  return (
    <>
      {all >= FILTER_FROM && (
        <div className="list-tools">
          <input
            ref={searchRef}
            type="search"
            className="list-filter"
            placeholder="Search by name or URL (press /)"
            aria-label="Filter endpoints"
            value={text}
            onChange={(e) => {
              setText(e.target.value);
              textNow.current = e.target.value;
              typed.current.push(e.target.value);
              if (typed.current.length > 100) typed.current.shift();
              onQuery({ q: e.target.value });
            }}
            onKeyDown={(e) => {
              if (e.key === 'ArrowDown') {
                e.preventDefault();
                document.querySelector<HTMLElement>('[data-testid="endpoint-row"]')?.focus();
              }
            }}
          />
          <select aria-label="Status filter" value={query.status.length === 1 ? query.status[0] : query.status.length ? 'some' : ''} onChange={(e) => onQuery({ status: e.target.value ? [e.target.value as EndpointStatus] : [] })}>
            <option value="">Any status</option>
            {query.status.length > 1 && <option value="some">{query.status.map((s) => STATUS_LABELS[s]).join(' or ')}</option>}
            {ENDPOINT_STATUSES.map((s) => <option key={s} value={s}>{STATUS_LABELS[s]}</option>)}
          </select>
          <select aria-label="Sort" value={query.sort} onChange={(e) => onQuery({ sort: e.target.value })}>
            {SORTS.map(([v, label]) => <option key={v} value={v}>{label}</option>)}
          </select>
          <span className="muted" data-testid="list-count">
            {matching === all && !filtered
              ? `${all.toLocaleString('en-US')} endpoint${all === 1 ? '' : 's'}`
              : `${matching.toLocaleString('en-US')} of ${all.toLocaleString('en-US')} endpoint${all === 1 ? '' : 's'}`}
          </span>
        </div>
      )}
      {matching === 0 && filtered && (
        <p className="muted list-empty">
          {query.q.trim() ? `No endpoint matches “${query.q.trim()}”.` : `No endpoint is ${query.status.map((s) => STATUS_LABELS[s].toLowerCase()).join(' or ')}.`}
        </p>
      )}
      <ul className="endpoint-list" aria-label="Endpoints">
        {rows.map((ep) => {
          const badge = uptimeBadge(ep.uptime_percentage);
          // One state per row: the server's status (checks, open incidents, maintenance, paused)
          // sets the word, the colour and the filter; the incident only adds since when.
          const incident = ep.monitoring_enabled ? openIncidents.get(ep.url_id) : undefined;
          const beat = heartbeatNote(ep, now, zone);
          return (
            <li
              key={ep.url_id}
              className={`endpoint-row is-${ep.status}`}
              data-testid="endpoint-row"
              data-status={ep.status}
              tabIndex={0}
              aria-label={`${ep.name}: ${STATUS_LABELS[ep.status]}`}
              onKeyDown={(e) => onRowKey(e, ep)}
              onClick={(e) => onRowClick(e, ep)}
            >
              <div className="endpoint-main">
                {/* the state for screen readers; the switch among the actions shows it (a green check read as "up") */}
                <span className="sr-only" role="img" aria-label={ep.monitoring_enabled ? 'Monitoring enabled' : 'Monitoring disabled'} />
                <div className="endpoint-text">
                  <div className="endpoint-title">
                    <StatusWord status={ep.status} />
                    <h3>{ep.name}</h3>
                    {incident && (
                      <Link to={`/incidents/${incident.incident_id}`} className={`badge ${incident.condition === 'down' ? 'badge-red' : 'badge-yellow'}`} data-testid="down-badge" title={`${conditionLabel(incident.condition)}: ${incident.cause}`}>
                        {incident.condition === 'down' ? 'Down' : conditionLabel(incident.condition)} {sinceLabel(incident.opened_at)}
                      </Link>
                    )}
                    {inMaintenance?.has(ep.url_id) && ep.status !== 'maintenance' && (
                      <span className="badge badge-yellow" data-testid="maintenance-badge" title="In a maintenance window: no alerts, not counted in uptime">Maintenance</span>
                    )}
                    {beat?.kind === 'late' && <span className="badge badge-yellow" data-testid="late-badge" title="Past the expected time, within the grace">Late</span>}
                    {ep.monitoring_enabled && beat?.kind !== 'new' && (
                      <span className={`badge badge-${badge.tone}`} title="7-day uptime">{badge.text}</span>
                    )}
                    {ep.monitoring_enabled && ep.slo_target !== undefined && (
                      <SloBudgetBadge endpoint={ep} />
                    )}
                  </div>
                  {ep.kind === 'heartbeat'
                    ? <span className="endpoint-url" data-testid="heartbeat-schedule">Heartbeat, {scheduleLabel(ep)}, {graceLabel(ep)}</span>
                    : /^https?:\/\//i.test(ep.url)
                      ? <a href={ep.url} className="endpoint-url" target="_blank" rel="noreferrer noopener">{ep.url}</a>
                      : <span className="endpoint-url">{ep.url}</span>}
                  {ep.description && <p className="endpoint-desc">{ep.description}</p>}
                  <div className="endpoint-live">
                    {ep.last_response_ms !== null && <span className="live-ms" data-testid="last-ms">{ep.last_response_ms.toLocaleString('en-US')} ms</span>}
                    <span className="muted" data-testid="checked-ago" title={ep.last_checked_at ? formatDateTime(ep.last_checked_at) : undefined}>{checkedAgo(ep.last_checked_at, now)}</span>
                    {beat
                      ? <span className={beat.kind === 'missed' ? 'live-error' : 'muted'} data-testid="heartbeat-note">{beat.text}</span>
                      : ep.status !== 'up' && ep.status !== 'paused' && ep.last_error && <span className="live-error" data-testid="last-error">{ep.last_error}</span>}
                  </div>
                  <HeartbeatBars recent={ep.recent} />
                  <div className="chips">
                    {ep.regions.map((r) => (<span key={r} className="chip">{regionKeyLabel(r)}</span>))}
                  </div>
                </div>
              </div>
              <div className="row-actions">
                {onEdit && <button type="button" className="icon-btn" aria-label={`Edit ${ep.name}`} title="Edit" onClick={() => onEdit(ep)}><EditIcon /></button>}
                {onThresholds && <button type="button" className="icon-btn" aria-label={`Alert thresholds for ${ep.name}`} title="Alert thresholds" onClick={() => onThresholds(ep)}><BellIcon /></button>}
                <button type="button" className="icon-btn" aria-label={`View graphs for ${ep.name}`} title="View graphs" onClick={() => onGraphs(ep)}><ChartIcon /></button>
                {onToggle && (
                  <button
                    type="button" role="switch" aria-checked={ep.monitoring_enabled} className={`switch${ep.monitoring_enabled ? ' on' : ''}`}
                    aria-label={`${ep.monitoring_enabled ? 'Disable' : 'Enable'} monitoring for ${ep.name}`} title={ep.monitoring_enabled ? 'Monitoring on: click to pause' : 'Monitoring paused: click to resume'} onClick={() => onToggle(ep)}
                  >
                    <span className="switch-knob" aria-hidden="true" />
                  </button>
                )}
                {/* who may not switch it still sees its state (the sr-only image above names it) */}
                {!onToggle && <span className={`switch is-static${ep.monitoring_enabled ? ' on' : ''}`} aria-hidden="true" title={ep.monitoring_enabled ? 'Monitoring on' : 'Monitoring paused'}><span className="switch-knob" /></span>}
                {onDelete && <button type="button" className="icon-btn danger" aria-label={`Delete ${ep.name}`} title="Delete" onClick={() => onDelete(ep)}><TrashIcon /></button>}
              </div>
            </li>
          );
        })}
      </ul>
      {more > 0 && (
        <div className="list-more">
          <button type="button" className="btn btn-secondary" onClick={onShowMore}>
            Show {Math.min(PAGE, more)} more
          </button>
          <span className="muted">Showing {rows.length.toLocaleString('en-US')} of {matching.toLocaleString('en-US')}</span>
        </div>
      )}
    </>
  );
});
