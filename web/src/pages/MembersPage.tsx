// Members of the current workspace: everyone sees who is in it; admins and owners invite
// (email + role), change roles, remove members, revoke pending invitations and rename the workspace.
import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { useServices } from '../app-context';
import { Field } from '../components/Field';
import { formatDate } from '../lib/format';
import { roleAllows, useWorkspaces, type WorkspaceRole } from '../lib/workspaces';

interface Member { user_id: number; username: string; email: string; role: WorkspaceRole }
interface Invitation { id: number; email: string; role: WorkspaceRole; expires_at: string; invited_by: string | null }

export function MembersPage() {
  const { api } = useServices();
  const { current, role, reload: reloadWorkspaces } = useWorkspaces();
  const [name, setName] = useState<string | null>(null); // null: the current name, untouched
  const [members, setMembers] = useState<Member[]>([]);
  const [invitations, setInvitations] = useState<Invitation[]>([]);
  const [email, setEmail] = useState('');
  const [inviteRole, setInviteRole] = useState<WorkspaceRole>('viewer');
  const [message, setMessage] = useState<{ kind: 'ok' | 'error'; text: string } | null>(null);
  const canManage = roleAllows(role, 'admin');
  const id = current?.id;

  const load = useCallback(async () => {
    if (!id) return;
    const m = await api.get<Member[]>(`/api/workspaces/${id}/members`);
    if (m.success) setMembers(m.data);
    if (canManage) {
      const i = await api.get<Invitation[]>(`/api/workspaces/${id}/invitations`);
      if (i.success) setInvitations(i.data);
    }
  }, [api, id, canManage]);
  useEffect(() => {
    void load();
  }, [load]);

  const report = (res: { success: boolean; error?: string }, ok: string) => {
    setMessage(res.success ? { kind: 'ok', text: ok } : { kind: 'error', text: res.error ?? 'Something went wrong' });
    void load();
  };
  const changeRole = async (m: Member, next: string) => report(await api.put(`/api/workspaces/${id}/members/${m.user_id}`, { role: next }), `${m.username} is now ${next}`);
  const rename = async (e: FormEvent) => {
    e.preventDefault();
    const next = (name ?? current?.name ?? '').trim();
    const res = await api.put(`/api/workspaces/${id}`, { name: next });
    if (res.success) {
      setName(null);
      reloadWorkspaces();
    }
    report(res, `The workspace is now called ${next}`);
  };
  const invite = async (e: FormEvent) => {
    e.preventDefault();
    const res = await api.post(`/api/workspaces/${id}/invitations`, { email: email.trim(), role: inviteRole });
    if (res.success) setEmail('');
    report(res, `Invitation sent to ${email.trim()}`);
  };

  if (!current) return <div className="container page"><p className="muted">Loading…</p></div>;
  return (
    <div className="container page">
      <h1>Members of {current.name}</h1>
      <p className="muted">Your role: <strong>{current.role}</strong> · Plan: {current.package_name}</p>
      {message && <div className={`alert ${message.kind === 'ok' ? 'alert-success' : 'alert-error'}`} role={message.kind === 'ok' ? 'status' : 'alert'}>{message.text}</div>}
      <section className="card">
        <h2>Members</h2>
        <table className="table" aria-label="Members">
          <thead><tr><th>Name</th><th>Email</th><th>Role</th>{canManage && <th><span className="sr-only">Actions</span></th>}</tr></thead>
          <tbody>
            {members.map((m) => (
              <tr key={m.user_id} data-testid="member-row">
                <td>{m.username}</td>
                <td>{m.email}</td>
                <td>
                  {canManage ? (
                    <select aria-label={`Role of ${m.username}`} value={m.role} onChange={(e) => void changeRole(m, e.target.value)}>
                      {(['owner', 'admin', 'editor', 'viewer'] as const).map((r) => <option key={r} value={r}>{r}</option>)}
                    </select>
                  ) : m.role}
                </td>
                {canManage && (
                  <td><button type="button" className="btn btn-secondary btn-sm" onClick={async () => report(await api.del(`/api/workspaces/${id}/members/${m.user_id}`), `${m.username} was removed`)}>Remove</button></td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      </section>
      {canManage && (
        <section className="card">
          <h2>Workspace</h2>
          <form onSubmit={rename} className="inline-form" noValidate>
            <Field id="workspace-name" label="Workspace name">
              <input id="workspace-name" value={name ?? current.name} maxLength={100} onChange={(e) => setName(e.target.value)} required />
            </Field>
            <button type="submit" className="btn btn-secondary" disabled={name === null || name.trim() === current.name}>Rename</button>
          </form>
        </section>
      )}
      {canManage && (
        <section className="card">
          <h2>Invite someone</h2>
          <form onSubmit={invite} className="inline-form" noValidate>
            <Field id="invite-email" label="Email">
              <input id="invite-email" type="email" value={email} onChange={(e) => setEmail(e.target.value)} required />
            </Field>
            <Field id="invite-role" label="Role">
              <select id="invite-role" value={inviteRole} onChange={(e) => setInviteRole(e.target.value as WorkspaceRole)}>
                {(['admin', 'editor', 'viewer'] as const).map((r) => <option key={r} value={r}>{r}</option>)}
              </select>
            </Field>
            <button type="submit" className="btn btn-primary">Send invitation</button>
          </form>
          <h3>Pending invitations</h3>
          {invitations.length === 0 ? <p className="muted">No pending invitations</p> : (
            <ul className="plain-list" aria-label="Pending invitations">
              {invitations.map((i) => (
                <li key={i.id}>
                  {i.email} · {i.role} · until {formatDate(i.expires_at)}{i.invited_by ? ` · invited by ${i.invited_by}` : ''}{' '}
                  <button type="button" className="btn btn-secondary btn-sm" onClick={async () => report(await api.del(`/api/workspaces/${id}/invitations/${i.id}`), `Invitation to ${i.email} revoked`)}>Revoke</button>
                </li>
              ))}
            </ul>
          )}
        </section>
      )}
    </div>
  );
}
