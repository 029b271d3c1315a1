// "New workspace" from the navbar: a name, then the app switches to the new workspace (it starts
// on the server's default plan, shown here once it exists).
import { useState, type FormEvent } from 'react';
import { WorkspaceBody, firstError } from '@upfleet/proto/schemas';
import { useServices } from '../app-context';
import { Field } from './Field';
import { Modal } from './Modal';

export function NewWorkspaceModal({ onCreated, onClose }: { onCreated: (id: number) => void; onClose: () => void }) {
  const { api } = useServices();
  const [name, setName] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const invalid = firstError(WorkspaceBody, { name });
    if (invalid) {
      setError(invalid);
      return;
    }
    setBusy(true);
    const res = await api.post<{ id: number }>('/api/workspaces', { name: name.trim() }).catch(() => null);
    setBusy(false);
    if (res?.success) onCreated(res.data.id);
    else setError(res && !res.success ? res.error : 'The workspace could not be created. Please try again.');
  };
  return (
    <Modal title="New workspace" onClose={onClose} size="sm">
      <form onSubmit={submit} noValidate>
        <p className="muted">A workspace of your own for a team: its endpoints, alerts and members apart from your personal ones.</p>
        <Field id="new-workspace-name" label="Name" error={error}>
          <input id="new-workspace-name" value={name} onChange={(e) => setName(e.target.value)} required maxLength={100} placeholder="Ops team" />
        </Field>
        <div className="modal-actions">
          <button type="button" className="btn btn-secondary" onClick={onClose}>Cancel</button>
          <button type="submit" className="btn btn-primary" disabled={busy}>Create workspace</button>
        </div>
      </form>
    </Modal>
  );
}
