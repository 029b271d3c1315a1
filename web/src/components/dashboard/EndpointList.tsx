// The dashboard's endpoint list. A large account (thousands of endpoints) gets a filter by name or
// URL and is drawn PAGE (50) rows at a time with "Show more", so the page stays quick to render and
// scroll; small accounts see the plain list.
import { useMemo, useState } from 'react';
import type { Endpoint, Incident } from '@upfleet/proto/rest';
import { BellIcon, ChartIcon, CheckCircleIcon, EditIcon, PauseIcon, PlayIcon, TrashIcon, XCircleIcon } from '../Icons';
import { conditionLabel, regionKeyLabel, sinceLabel, uptimeBadge } from '../../lib/format';

/** Rows drawn at first and added by each "Show more". */
export const PAGE = 50;
/** From this many endpoints on, the list has a filter. */
export const FILTER_FROM = 10;

type Act = (ep: Endpoint) => void;

export function EndpointList({ endpoints, openIncidents, inMaintenance, onEdit, onThresholds, onGraphs, onToggle, onDelete }: {
  endpoints: Endpoint[];
  openIncidents: Map<number, Incident>;
  /** Endpoints in a maintenance window in progress. */
  inMaintenance?: Set<number>;
  onEdit: Act;
  onThresholds: Act;
  onGraphs: Act;
  onToggle: Act;
  onDelete: Act;
}) {
  const [filter, setFilter] = useState('');
  const [shown, setShown] = useState(PAGE);
  const matching = useMemo(() => {
    const f = filter.trim().toLowerCase();
    return f ? endpoints.filter((e) => e.name.toLowerCase().includes(f) || e.url.toLowerCase().includes(f)) : endpoints;
  }, [endpoints, filter]);
  const visible = matching.slice(0, shown);
  const more = matching.length - visible.length;

  return (
    <>
      {endpoints.length >= FILTER_FROM && (
        <div className="list-tools">
          <input
            type="search"
            className="list-filter"
            placeholder="Filter by name or URL"
            aria-label="Filter endpoints"
            value={filter}
            onChange={(e) => {
              setFilter(e.target.value);
              setShown(PAGE);
            }}
          />
          <span className="muted" data-testid="list-count">
            {matching.length === endpoints.length
              ? `${endpoints.length.toLocaleString('en-US')} endpoints`
              : `${matching.length.toLocaleString('en-US')} of ${endpoints.length.toLocaleString('en-US')} endpoints`}
          </span>
        </div>
      )}
      {matching.length === 0 && <p className="muted list-empty">No endpoint matches “{filter.trim()}”.</p>}
      <ul className="endpoint-list">
        {visible.map((ep) => {
          const badge = uptimeBadge(ep.uptime_percentage);
          const incident = ep.monitoring_enabled ? openIncidents.get(ep.url_id) : undefined;
          return (
            <li key={ep.url_id} className={`endpoint-row${incident ? ' is-down' : ''}`} data-testid="endpoint-row">
              <div className="endpoint-main">
                <span className={`monitor-icon ${ep.monitoring_enabled ? 'on' : 'off'}`} role="img" aria-label={ep.monitoring_enabled ? 'Monitoring enabled' : 'Monitoring disabled'}>
                  {ep.monitoring_enabled ? <CheckCircleIcon /> : <XCircleIcon />}
                </span>
                <div className="endpoint-text">
                  <div className="endpoint-title">
                    <h3>{ep.name}</h3>
                    {incident && (
                      <span className="badge badge-red" data-testid="down-badge" title={`${conditionLabel(incident.condition)}: ${incident.cause}`}>
                        {incident.condition === 'down' ? 'Down' : conditionLabel(incident.condition)} {sinceLabel(incident.opened_at)}
                      </span>
                    )}
                    {inMaintenance?.has(ep.url_id) && (
                      <span className="badge badge-yellow" data-testid="maintenance-badge" title="In a maintenance window: no alerts, not counted in uptime">Maintenance</span>
                    )}
                    {ep.monitoring_enabled && (
                      <span className={`badge badge-${badge.tone}`} title="7-day uptime">{badge.text}</span>
                    )}
                  </div>
                  <a href={ep.url} className="endpoint-url" target="_blank" rel="noreferrer noopener">{ep.url}</a>
                  {ep.description && <p className="endpoint-desc">{ep.description}</p>}
                  <div className="chips">
                    {ep.regions.map((r) => (<span key={r} className="chip">{regionKeyLabel(r)}</span>))}
                  </div>
                </div>
              </div>
              <div className="row-actions">
                <button type="button" className="icon-btn" aria-label={`Edit ${ep.name}`} title="Edit" onClick={() => onEdit(ep)}><EditIcon /></button>
                <button type="button" className="icon-btn" aria-label={`Alert thresholds for ${ep.name}`} title="Alert thresholds" onClick={() => onThresholds(ep)}><BellIcon /></button>
                <button type="button" className="icon-btn" aria-label={`View graphs for ${ep.name}`} title="View graphs" onClick={() => onGraphs(ep)}><ChartIcon /></button>
                <button type="button" className="icon-btn" aria-label={`${ep.monitoring_enabled ? 'Disable' : 'Enable'} monitoring for ${ep.name}`} title={ep.monitoring_enabled ? 'Disable monitoring' : 'Enable monitoring'} onClick={() => onToggle(ep)}>
                  {ep.monitoring_enabled ? <PauseIcon /> : <PlayIcon />}
                </button>
                <button type="button" className="icon-btn danger" aria-label={`Delete ${ep.name}`} title="Delete" onClick={() => onDelete(ep)}><TrashIcon /></button>
              </div>
            </li>
          );
        })}
      </ul>
      {more > 0 && (
        <div className="list-more">
          <button type="button" className="btn btn-secondary" onClick={() => setShown((n) => n + PAGE)}>
            Show {Math.min(PAGE, more)} more
          </button>
          <span className="muted">Showing {visible.length.toLocaleString('en-US')} of {matching.length.toLocaleString('en-US')}</span>
        </div>
      )}
    </>
  );
}
