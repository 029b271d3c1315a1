// The current workspace's audit log (admins and owners): every change with its time,
// member, action, target, summary and client address, newest first, filtered by member and action.
import { useEffect, useState } from 'react';
import { useServices } from '../app-context';
import { formatDateTime } from '../lib/format';
import { roleAllows, useWorkspaces } from '../lib/workspaces';

interface Entry { id: number; at: string; member_id: number | null; member_name: string; action: string; target_id: string | null; summary: string; client_address: string }
interface Member { user_id: number; username: string }
const PAGE = 50;
const ACTION_FAMILIES = ['', 'endpoint', 'thresholds', 'alert_method', 'api_key', 'member', 'invitation', 'workspace', 'billing'];

export function AuditLogPage() {
  const { api } = useServices();
  const { current, role } = useWorkspaces();
  // The server lets admins read the log; anyone else (a deep link) gets a sentence, not a 403 call.
  const allowed = roleAllows(role, 'admin');
  const [entries, setEntries] = useState<Entry[]>([]);
  const [total, setTotal] = useState(0);
  const [members, setMembers] = useState<Member[]>([]);
  const [member, setMember] = useState('');
  const [action, setAction] = useState('');
  const [offset, setOffset] = useState(0);
  const [error, setError] = useState('');
  const id = allowed ? current?.id : undefined;

  useEffect(() => {
    if (!id) return;
    void api.get<Member[]>(`/api/workspaces/${id}/members`).then((r) => r.success && setMembers(r.data));
  }, [api, id]);
  useEffect(() => {
    if (!id) return;
    const q = new URLSearchParams({ limit: String(PAGE), offset: String(offset) });
    if (member) q.set('member_id', member);
    if (action) q.set('action', action);
    let live = true; // a slower answer to an earlier filter never replaces this one
    void api.get<Entry[]>(`/api/workspaces/${id}/audit-log?${q}`).then((r) => {
      if (!live) return;
      if (r.success) {
        setEntries(r.data);
        setTotal(r.data.length < PAGE && offset === 0 ? r.data.length : Math.max(offset + r.data.length, total));
        setError('');
      } else setError(r.error);
    });
    return () => {
      live = false;
    };
  }, [api, id, member, action, offset]); // eslint-disable-line react-hooks/exhaustive-deps

  if (!current) return <div className="container page"><p className="muted">Loading…</p></div>;
  if (!allowed) {
    return (
      <div className="container page">
        <h1>Audit log of {current.name}</h1>
        <p className="muted">The admins and the owner of this workspace read its audit log.</p>
      </div>
    );
  }
  return (
    <div className="container page">
      <h1>Audit log of {current.name}</h1>
      <div className="inline-form">
        <label>Member{' '}
          <select aria-label="Member" value={member} onChange={(e) => { setOffset(0); setMember(e.target.value); }}>
            <option value="">Everyone</option>
            {members.map((m) => <option key={m.user_id} value={m.user_id}>{m.username}</option>)}
          </select>
        </label>
        <label>Action{' '}
          <select aria-label="Action" value={action} onChange={(e) => { setOffset(0); setAction(e.target.value); }}>
            {ACTION_FAMILIES.map((a) => <option key={a} value={a}>{a || 'Any'}</option>)}
          </select>
        </label>
      </div>
      {error && <div className="alert alert-error" role="alert">{error}</div>}
      <table className="table" aria-label="Audit log">
        <thead><tr><th>Time</th><th>Member</th><th>Action</th><th>Target</th><th>Summary</th><th>Address</th></tr></thead>
        <tbody>
          {entries.map((e) => (
            <tr key={e.id} data-testid="audit-row">
              <td>{formatDateTime(e.at)}</td><td>{e.member_name}</td><td>{e.action}</td><td>{e.target_id ?? ''}</td><td>{e.summary}</td><td>{e.client_address}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {entries.length === 0 && <p className="muted">No changes recorded</p>}
      <div className="inline-form">
        <button type="button" className="btn btn-secondary btn-sm" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - PAGE))}>Newer</button>
        <button type="button" className="btn btn-secondary btn-sm" disabled={entries.length < PAGE} onClick={() => setOffset(offset + PAGE)}>Older</button>
      </div>
    </div>
  );
}
