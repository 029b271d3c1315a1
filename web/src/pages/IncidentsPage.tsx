// Incidents of the current workspace: open ones first, with state, endpoint, condition, cause,
// duration and who acknowledged; one incident's timeline with an Acknowledge button (editors and
// above; the server decides in the end).
import { useCallback, useEffect, useState } from 'react';
import { Link, useParams, useSearchParams } from 'react-router-dom';
import { INCIDENT_STATES, type Incident, type IncidentAcker, type IncidentDetail, type IncidentsAcknowledged, type IncidentState, type IncidentTimelineEntry, type ScreenshotInfo } from '@upfleet/proto/rest';
import { ScreenshotThumb } from '../components/graphs/ScreenshotThumb';
import { useServices } from '../app-context';
import { conditionLabel, durationLabel, formatDateTime } from '../lib/format';
import { mayOffer, useWorkspaces } from '../lib/workspaces';

const STATE_LABEL: Record<IncidentState, string> = { open: 'Open', acknowledged: 'Acknowledged', resolved: 'Resolved' };
const STATE_TONE: Record<IncidentState, string> = { open: 'badge-red', acknowledged: 'badge-yellow', resolved: 'badge-green' };
const RANK: Record<IncidentState, number> = { open: 0, acknowledged: 1, resolved: 2 };

/** Open first, then acknowledged, then resolved; newest first within each. */
export function incidentOrder(list: Incident[]): Incident[] {
  return [...list].sort((a, b) => RANK[a.state] - RANK[b.state] || Date.parse(b.opened_at) - Date.parse(a.opened_at) || b.incident_id - a.incident_id);
}

export function ackerLabel(by: IncidentAcker | null): string {
  if (!by) return '';
  if (by.via === 'link') return 'via link';
  return by.name ?? by.email ?? `member ${by.user_id ?? ''}`.trim();
}

function StateBadge({ state }: { state: IncidentState }) {
  return <span className={`badge ${STATE_TONE[state]}`} data-testid="incident-state">{STATE_LABEL[state]}</span>;
}

export function IncidentsPage() {
  const { id } = useParams();
  return id ? <IncidentDetailView id={id} /> : <IncidentList />;
}

function IncidentList() {
  const { api } = useServices();
  const { role } = useWorkspaces();
  const [params, setParams] = useSearchParams();
  const [version, setVersion] = useState(0);
  const state = params.get('state') ?? '';
  const urlId = params.get('url_id') ?? '';
  const [list, setList] = useState<Incident[] | null>(null);
  const [error, setError] = useState('');

  useEffect(() => {
    const q = new URLSearchParams();
    if (state) q.set('state', state);
    if (urlId) q.set('url_id', urlId);
    let live = true;
    void api.get<Incident[]>(`/api/users/incidents${q.size ? `?${q}` : ''}`).then((r) => {
      if (!live) return;
      if (r.success) {
        setList(incidentOrder(r.data));
        setError('');
      } else setError(r.error);
    });
    return () => {
      live = false;
    };
  }, [api, state, urlId, version]);

  // A storm opens many at once: one click acknowledges every open one listed.
  const open = (list ?? []).filter((i) => i.state === 'open');
  const acknowledgeAll = async () => {
    const r = await api.post<IncidentsAcknowledged>('/api/users/incidents/acknowledge', { incident_ids: open.map((i) => i.incident_id) });
    if (!r.success) setError(r.error);
    setVersion((v) => v + 1);
  };

  // A storm's incidents share a group (one grouped message per method): acknowledged whole.
  const groups = [...new Set(open.map((i) => i.group_id).filter((g): g is number => typeof g === 'number'))];
  const acknowledgeGroup = async (group: number) => {
    const r = await api.post<IncidentsAcknowledged>(`/api/users/incidents/groups/${group}/acknowledge`, {});
    if (!r.success) setError(r.error);
    setVersion((v) => v + 1);
  };

  const choose = (value: string) => {
    const next = new URLSearchParams(params);
    if (value) next.set('state', value);
    else next.delete('state');
    setParams(next);
  };

  return (
    <div className="container page">
      <h1>Incidents</h1>
      <div className="inline-form">
        <label>State{' '}
          <select aria-label="State" value={state} onChange={(e) => choose(e.target.value)}>
            <option value="">Any</option>
            {INCIDENT_STATES.map((s) => <option key={s} value={s}>{STATE_LABEL[s]}</option>)}
          </select>
        </label>
        {urlId && <Link to="/incidents" className="btn btn-secondary btn-sm">All endpoints</Link>}
        {open.length > 1 && mayOffer(role, 'editor') && (
          <button type="button" className="btn btn-primary btn-sm" onClick={() => void acknowledgeAll()}>Acknowledge all open ({open.length})</button>
        )}
        {mayOffer(role, 'editor') && groups.map((g) => (
          <button key={g} type="button" className="btn btn-secondary btn-sm" onClick={() => void acknowledgeGroup(g)}>
            Acknowledge storm #{g} ({open.filter((i) => i.group_id === g).length})
          </button>
        ))}
      </div>
      {error && <div className="alert alert-error" role="alert">{error}</div>}
      {list === null && !error && <p className="muted">Loading…</p>}
      {list !== null && list.length === 0 && <p className="muted">No incidents</p>}
      {list !== null && list.length > 0 && (
        <table className="table" aria-label="Incidents">
          <thead><tr><th>State</th><th>Endpoint</th><th>Condition</th><th>Cause</th><th>Opened</th><th>Duration</th><th>Acknowledged by</th></tr></thead>
          <tbody>
            {list.map((i) => (
              <tr key={i.incident_id} data-testid="incident-row">
                <td><StateBadge state={i.state} /></td>
                <td>
                  <Link to={`/incidents/${i.incident_id}`}>{i.endpoint_name ?? `Endpoint #${i.url_id}`}</Link>
                  {typeof i.group_id === 'number' && <span className="badge" title="Sent in one grouped message with the other incidents of this storm"> storm #{i.group_id}</span>}
                </td>
                <td>{conditionLabel(i.condition)}</td>
                <td>{i.cause}</td>
                <td>{formatDateTime(i.opened_at)}</td>
                <td>{durationLabel(i.opened_at, i.resolved_at)}</td>
                <td>{ackerLabel(i.acknowledged_by)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}

function entryText(e: IncidentTimelineEntry): string {
  const method = e.platform ? ` (${e.platform})` : '';
  const step = e.step !== null ? `step ${e.step}` : '';
  switch (e.type) {
    case 'opened':
      return `Opened: ${e.detail}`;
    case 'delivery': {
      const d = e.delivery!;
      const what = d.event === 'resolved' ? 'Recovery message' : d.event === 'opened' ? 'Alert' : `Message (${d.event})`;
      const tries = `${d.attempts} ${d.attempts === 1 ? 'attempt' : 'attempts'}`;
      return `${what} to ${e.platform ?? `method #${e.alert_method_id ?? ''}`}${step ? `, ${step}` : ''}: ${d.status}, ${tries}${d.last_error ? ` (${d.last_error})` : ''}`;
    }
    case 'acknowledged':
      return e.by?.via === 'link' ? `Acknowledged via link${method}` : `Acknowledged by ${ackerLabel(e.by)}${e.by?.email && e.by.name ? ` (${e.by.email})` : ''}`;
    case 'resolved':
      return 'Resolved';
    default: {
      // Escalation's entries ('escalated', 'reminder', 'method_skipped', …) render as they come.
      const label = e.type.replace(/_/g, ' ');
      return [`${label[0].toUpperCase()}${label.slice(1)}`, step, e.platform ?? (e.alert_method_id !== null ? `method #${e.alert_method_id}` : ''), e.detail].filter(Boolean).join(' · ');
    }
  }
}

/** The screenshot of the failing run that opened an incident: the newest one taken when a step failed, up to its opening. */
export function failureShotOf(shots: ScreenshotInfo[], openedAt: string): ScreenshotInfo | null {
  const opened = Date.parse(openedAt) + 5_000;
  return shots.filter((s) => s.name === 'failure' && Date.parse(s.taken_at) <= opened).sort((a, b) => Date.parse(b.taken_at) - Date.parse(a.taken_at))[0] ?? null;
}

function IncidentDetailView({ id }: { id: string }) {
  const { api } = useServices();
  const { role } = useWorkspaces();
  const [incident, setIncident] = useState<IncidentDetail | null>(null);
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const [shot, setShot] = useState<ScreenshotInfo | null>(null);

  const load = useCallback(async () => {
    const r = await api.get<IncidentDetail>(`/api/users/incidents/${encodeURIComponent(id)}`);
    if (r.success) {
      setIncident(r.data);
      setError('');
    } else setError(r.error);
  }, [api, id]);
  useEffect(() => {
    void load();
  }, [load]);
  // A browser check's incident shows the page as it was when the step failed (other kinds have none).
  const urlId = incident?.url_id;
  const openedAt = incident?.opened_at;
  useEffect(() => {
    if (urlId === undefined || !openedAt) return;
    let live = true;
    api.get<ScreenshotInfo[]>(`/api/users/endpoints/${urlId}/screenshots`)
      .then((r) => live && r.success && setShot(failureShotOf(r.data ?? [], openedAt)))
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, [api, urlId, openedAt]);

  const acknowledge = async () => {
    setBusy(true);
    const r = await api.post<Incident>(`/api/users/incidents/${encodeURIComponent(id)}/acknowledge`);
    setBusy(false);
    if (!r.success) setError(r.error);
    await load();
    if (!r.success) setError(r.error);
  };

  if (!incident) {
    return (
      <div className="container page">
        <p><Link to="/incidents">← Incidents</Link></p>
        {error ? <div className="alert alert-error" role="alert">{error}</div> : <p className="muted">Loading…</p>}
      </div>
    );
  }
  const canAck = incident.state === 'open' && mayOffer(role, 'editor');
  return (
    <div className="container page">
      <p><Link to="/incidents">← Incidents</Link></p>
      <h1>{incident.endpoint_name ?? `Endpoint #${incident.url_id}`}: {conditionLabel(incident.condition)}</h1>
      <p><StateBadge state={incident.state} /> {incident.cause}</p>
      <dl className="incident-facts">
        <dt>Opened</dt><dd>{formatDateTime(incident.opened_at)}</dd>
        <dt>Duration</dt><dd>{durationLabel(incident.opened_at, incident.resolved_at)}</dd>
        {incident.regions.length > 0 && <><dt>Regions</dt><dd>{incident.regions.join(', ')}</dd></>}
        {incident.acknowledged_at && <><dt>Acknowledged</dt><dd>{formatDateTime(incident.acknowledged_at)} by {ackerLabel(incident.acknowledged_by)}</dd></>}
        {incident.resolved_at && <><dt>Resolved</dt><dd>{formatDateTime(incident.resolved_at)}</dd></>}
      </dl>
      {error && <div className="alert alert-error" role="alert">{error}</div>}
      {canAck && <button type="button" className="btn btn-primary" disabled={busy} onClick={() => void acknowledge()}>{busy ? 'Acknowledging…' : 'Acknowledge'}</button>}
      <h2>Timeline</h2>
      <ol className="timeline" aria-label="Timeline">
        {incident.timeline.map((e, n) => (
          <li key={n} data-testid="timeline-entry" data-type={e.type}>
            <time dateTime={e.at}>{formatDateTime(e.at)}</time> {entryText(e)}
            {e.type === 'opened' && shot && <ScreenshotThumb urlId={incident.url_id} shot={shot} />}
          </li>
        ))}
      </ol>
    </div>
  );
}
