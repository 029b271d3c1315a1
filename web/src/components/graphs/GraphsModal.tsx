// Full-screen graphs for one endpoint. Loaded lazily: it pulls in apexcharts.
import { useCallback, useEffect, useMemo, useState } from 'react';
import type { BrowserGraphs, Endpoint, GraphFailure, GraphFunction, GraphSeries, GraphsResponse, Incident } from '@upfleet/proto/rest';
import { useServices } from '../../app-context';
import { Modal } from '../Modal';
import { Spinner } from '../Spinner';
import { RefreshIcon } from '../Icons';
import { GraphCard } from './GraphCard';
import { BadgeSection } from './BadgeSection';
import { BurnDown } from './BurnDown';
import { BrowserSection } from './BrowserSection';
import { createRangeRefetcher, PRESETS, type TimeRange } from './range-refetch';
import { conditionLabel, durationLabel, formatDateTime, GRAPH_FUNCTION_LABELS, regionKeyLabel } from '../../lib/format';

/** Incident periods as time ranges (an open one runs to now), for marking the graphs. */
export function incidentPeriods(incidents: Incident[], now: number): TimeRange[] {
  return incidents.map((i) => ({ from: Date.parse(i.opened_at), to: i.resolved_at ? Date.parse(i.resolved_at) : now }));
}

export function IncidentHistory({ incidents, now }: { incidents: Incident[]; now: number }) {
  return (
    <section className="card incident-history" aria-label="Incident history">
      <h3>Incident history</h3>
      {incidents.length === 0 ? (
        <p className="muted small">No incidents recorded.</p>
      ) : (
        <ul className="incident-list">
          {incidents.map((i) => (
            <li key={i.incident_id} className="incident-row" data-testid="incident-row">
              <span className={`badge ${i.resolved_at ? 'badge-green' : 'badge-red'}`}>{i.resolved_at ? 'Resolved' : 'Open'}</span>
              <div>
                <div className="strong">{conditionLabel(i.condition)}: {i.cause}</div>
                <div className="muted small">
                  {formatDateTime(i.opened_at)} · {i.resolved_at ? `lasted ${durationLabel(i.opened_at, i.resolved_at)}` : `ongoing for ${durationLabel(i.opened_at, null, now)}`}
                  {i.regions.length > 0 && ` · ${i.regions.join(', ')}`}
                  {i.flapping && ' · flapping'}
                </div>
              </div>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function graphQuery(hours: number, custom: TimeRange | null): string {
  return custom ? `timeFrom=${custom.from}&timeTo=${custom.to}` : `hours=${hours}`;
}

export default function GraphsModal({ endpoint, onClose, now = () => Date.now() }: { endpoint: Endpoint; onClose: () => void; now?: () => number }) {
  const { api, session } = useServices();
  const [hours, setHours] = useState(1);
  const [custom, setCustom] = useState<TimeRange | null>(null);
  const [view, setView] = useState<TimeRange>(() => ({ from: now() - 3600_000, to: now() }));
  const [graphs, setGraphs] = useState<GraphSeries[] | null>(null);
  const [failures, setFailures] = useState<GraphFailure[]>([]);
  const [uptime, setUptime] = useState<number | null | undefined>(undefined);
  const [browser, setBrowser] = useState<BrowserGraphs | null>(null);
  const [loading, setLoading] = useState(true);
  const [updating, setUpdating] = useState(false);
  const [error, setError] = useState('');
  const [location, setLocation] = useState('all');
  const [kind, setKind] = useState<'all' | GraphFunction>('all');
  const [reloadTick, setReloadTick] = useState(0);
  const refetcher = useMemo(() => createRangeRefetcher((range) => setCustom(range)), []);
  const [incidents, setIncidents] = useState<Incident[]>([]);

  useEffect(() => {
    let live = true;
    api.get<Incident[]>(`/api/users/incidents?endpoint_id=${endpoint.url_id}`)
      .then((res) => live && res.success && setIncidents(res.data ?? []))
      .catch(() => undefined); // the graphs still show without the history
    return () => {
      live = false;
    };
  }, [api, endpoint.url_id, reloadTick]);
  const periods = useMemo(() => incidentPeriods(incidents, now()), [incidents, now]);

  useEffect(() => () => refetcher.cancel(), [refetcher]);

  useEffect(() => {
    let live = true;
    if (custom) setUpdating(true);
    else setLoading(true);
    const range: TimeRange = custom ?? { from: now() - hours * 3600_000, to: now() };
    refetcher.setFetched(range);
    if (!custom) setView(range);
    api
      .get<GraphsResponse>(`/api/graphs/endpoint/${endpoint.url_id}?${graphQuery(hours, custom)}`)
      .then((res) => {
        if (!live) return;
        if (res.success) {
          setGraphs(res.data?.graphs ?? []);
          setFailures(res.data?.failures ?? []);
          setUptime(res.data?.uptime);
          setBrowser(res.data?.browser ?? null);
          setError('');
        } else setError(res.error || 'Failed to fetch graph data');
      })
      .catch((err) => live && setError(err instanceof Error && err.message === 'Authentication failed' ? err.message : 'Failed to fetch graph data'))
      .finally(() => {
        if (!live) return;
        setLoading(false);
        setUpdating(false);
      });
    return () => {
      live = false;
    };
    // `now` is stable for a given render tree; reloadTick forces a refresh.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [api, endpoint.url_id, hours, custom, reloadTick, refetcher]);

  const choosePreset = (h: number) => {
    // A preset clears any custom (zoomed) range.
    refetcher.cancel();
    setCustom(null);
    setHours(h);
    setReloadTick((t) => t + 1);
  };

  const onRange = useCallback(
    (range: TimeRange) => {
      session.activity(); // graph interaction counts as activity
      setView(range);
      refetcher.changed(range);
    },
    [refetcher, session],
  );

  const locations = useMemo(() => [...new Set((graphs ?? []).map((g) => g.location))].sort(), [graphs]);
  const kinds = useMemo(() => [...new Set((graphs ?? []).map((g) => g.function))], [graphs]);
  const shown = (graphs ?? []).filter((g) => (location === 'all' || g.location === location) && (kind === 'all' || g.function === kind));
  // a browser check that only failed has no response time, but its page timings and failure show below
  const hasData = (graphs ?? []).some((g) => g.data.length > 0) || (browser?.timings.some((s) => s.data.length > 0) ?? false);

  return (
    <Modal title={<>Graphs <span className="muted">· {endpoint.name}</span></>} onClose={onClose} size="full">
      <div className="graphs-toolbar">
        <div className="preset-group" role="group" aria-label="Time range">
          {PRESETS.map((p) => (
            <button key={p.hours} type="button" className={`preset${!custom && hours === p.hours ? ' active' : ''}`} aria-pressed={!custom && hours === p.hours} onClick={() => choosePreset(p.hours)}>
              {p.label}
            </button>
          ))}
          {custom && <span className="chip chip-primary">Custom range</span>}
        </div>
        <div className="graphs-filters">
          <label className="inline-field">
            <span>Location</span>
            <select value={location} onChange={(e) => setLocation(e.target.value)}>
              <option value="all">All locations</option>
              {locations.map((l) => (<option key={l} value={l}>{regionKeyLabel(l)}</option>))}
            </select>
          </label>
          <label className="inline-field">
            <span>Check type</span>
            <select value={kind} onChange={(e) => setKind(e.target.value as GraphFunction | 'all')}>
              <option value="all">All checks</option>
              {kinds.map((k) => (<option key={k} value={k}>{GRAPH_FUNCTION_LABELS[k]}</option>))}
            </select>
          </label>
          <button type="button" className="btn btn-secondary btn-sm" onClick={() => setReloadTick((t) => t + 1)} aria-label="Refresh graphs">
            <RefreshIcon width={16} height={16} /> Refresh
          </button>
        </div>
      </div>
      <p className="graphs-hint">Pinch to zoom • Drag to pan</p>
      {/* the badge's rule over this range: every range agrees with the dashboard and the status page */}
      {uptime !== undefined && uptime !== null && <p className="chip" data-testid="range-uptime">Uptime over this range {uptime.toFixed(2)}%</p>}
      {endpoint.slo_target !== undefined && <BurnDown endpoint={endpoint} />}
      {error && <div className="alert alert-error" role="alert">{error}</div>}
      {loading && !graphs ? (
        <Spinner label="Loading graphs..." />
      ) : !hasData && !error ? (
        <div className="empty-state">
          <h3>No data available</h3>
          <p>Enable monitoring features to see graphs</p>
        </div>
      ) : (
        <div className="graphs-area">
          {(updating || loading) && <div className="updating-overlay" role="status">Updating...</div>}
          <div className="graph-grid">
            {shown.map((g) => (<GraphCard key={g.itemId} series={g} view={view} onRange={onRange} incidents={periods} failures={failures.filter((f) => f.location === g.location)} />))}
          </div>
        </div>
      )}
      {browser && <BrowserSection urlId={endpoint.url_id} browser={browser} location={location} view={view} reloadTick={reloadTick} />}
      <IncidentHistory incidents={incidents} now={now()} />
      <BadgeSection urlId={endpoint.url_id} />
    </Modal>
  );
}
