// Maintenance windows: the list and the form, date-time pickers in the user's timezone (an IANA
// zone or a fixed offset, converted by proto/time-zone.ts).
import { useState, type FormEvent } from 'react';
import type { Endpoint, MaintenanceWindow } from '@upfleet/proto/rest';
import { fromZonedLocal, toZonedLocal } from '@upfleet/proto/time-zone';
import { useServices } from '../../app-context';
import { Field } from '../Field';

const localToIso = (value: string, zone: string) => new Date(fromZonedLocal(value, zone)).toISOString();
const isoToLocal = (iso: string, zone: string) => toZonedLocal(Date.parse(iso), zone);

export function MaintenanceSection({ windows, endpoints, zone, onChange, canEdit }: { windows: MaintenanceWindow[]; endpoints: Endpoint[]; zone: string; onChange: () => Promise<void>; canEdit: boolean }) {
  const { api } = useServices();
  const soon = isoToLocal(new Date(Date.now() + 3600_000).toISOString(), zone);
  const later = isoToLocal(new Date(Date.now() + 7200_000).toISOString(), zone);
  const [title, setTitle] = useState('');
  const [message, setMessage] = useState('');
  const [startsAt, setStartsAt] = useState(soon);
  const [endsAt, setEndsAt] = useState(later);
  const [ids, setIds] = useState<number[]>([]);
  const [error, setError] = useState<string | null>(null);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const r = await api.post('/api/users/maintenance-windows', { title, message, endpoint_ids: ids, starts_at: localToIso(startsAt, zone), ends_at: localToIso(endsAt, zone) });
    if (!r.success) return setError(r.error);
    setError(null);
    setTitle('');
    setMessage('');
    setIds([]);
    await onChange();
  };
  return (
    <section className="section" aria-label="Maintenance windows">
      <h2>Maintenance windows</h2>
      <p className="hint">Times in your timezone ({zone}). While a window runs its endpoints are still checked, but no alert opens and their results do not count for or against uptime.</p>
      {error && <div className="alert alert-error" role="alert">{error}</div>}
      {!canEdit && <p className="muted">An editor of this workspace schedules maintenance.</p>}
      {canEdit && <form className="card settings-card" onSubmit={(e) => void submit(e)} aria-label="New maintenance window">
        <div className="form-grid">
          <Field id="mw-title" label="Title"><input id="mw-title" value={title} onChange={(e) => setTitle(e.target.value)} required /></Field>
          <Field id="mw-message" label="Message"><input id="mw-message" value={message} onChange={(e) => setMessage(e.target.value)} /></Field>
          <Field id="mw-start" label="Starts"><input id="mw-start" type="datetime-local" value={startsAt} onChange={(e) => setStartsAt(e.target.value)} required /></Field>
          <Field id="mw-end" label="Ends"><input id="mw-end" type="datetime-local" value={endsAt} onChange={(e) => setEndsAt(e.target.value)} required /></Field>
        </div>
        <fieldset className="fieldset">
          <legend>Endpoints</legend>
          {endpoints.map((ep) => (
            <label key={ep.url_id} className="option">
              <input type="checkbox" checked={ids.includes(ep.url_id)} onChange={(e) => setIds((x) => (e.target.checked ? [...x, ep.url_id] : x.filter((y) => y !== ep.url_id)))} /> {ep.name}
            </label>
          ))}
        </fieldset>
        <button type="submit" className="btn btn-primary">Schedule maintenance</button>
      </form>}
      <ul className="method-list">
        {windows.map((w) => (
          <li key={w.id} className="card method-item" data-window={w.id}>
            <strong>{w.title}</strong> <span className={`badge ${w.state === 'in_progress' ? 'badge-yellow' : w.state === 'scheduled' ? 'badge-grey' : 'badge-green'}`}>{w.state.replace('_', ' ')}</span>
            <div className="muted small">{isoToLocal(w.starts_at, zone).replace('T', ' ')} – {isoToLocal(w.ends_at, zone).replace('T', ' ')} ({zone}) · {w.endpoint_ids.length} endpoint(s)</div>
            {canEdit && <button type="button" className="btn btn-sm btn-danger-outline" onClick={async () => {
              await api.del(`/api/users/maintenance-windows/${w.id}`);
              await onChange();
            }}>Delete</button>}
          </li>
        ))}
      </ul>
    </section>
  );
}
