// Alert Settings: the user's alert methods (one per platform) with add, edit, enable/disable and
// delete, and the new webhook's signing secret shown once. Each list item (test sends,
// deliveries) and the add/edit form are components in components/alerts/.
import { useCallback, useEffect, useState } from 'react';
import { ALERT_PLATFORMS, type AlertMethod, type AlertPlatform } from '@upfleet/proto/rest';
import { useServices } from '../app-context';
import { Spinner } from '../components/Spinner';
import { ConfirmDialog } from '../components/Modal';
import { BellIcon, PlusIcon } from '../components/Icons';
import { AlertMethodItem } from '../components/alerts/AlertMethodItem';
import { AlertMethodModal } from '../components/alerts/AlertMethodModal';
import { NewSigningSecretNotice } from '../components/alerts/SigningSecret';
import { StormSettings } from '../components/alerts/StormSettings';
import { mayOffer, useWorkspaces } from '../lib/workspaces';

export function AlertSettingsPage() {
  const { api } = useServices();
  const workspaceRole = useWorkspaces().role;
  const [methods, setMethods] = useState<AlertMethod[] | null>(null);
  const [editing, setEditing] = useState<AlertMethod | 'new' | null>(null);
  const [deleting, setDeleting] = useState<AlertMethod | null>(null);
  const [newSecret, setNewSecret] = useState<string | null>(null);

  const load = useCallback(async () => {
    try {
      const res = await api.get<AlertMethod[]>('/api/users/alert-methods');
      if (!res.success) console.error('load alert methods failed', res.status, res.error);
      setMethods(res.success ? res.data ?? [] : []);
    } catch (err) {
      console.error('load alert methods failed', err);
      setMethods([]);
    }
  }, [api]);

  useEffect(() => {
    void load();
  }, [load]);

  const existing = (methods ?? []).map((m) => m.platform);
  const allConfigured = ALERT_PLATFORMS.every((p) => existing.includes(p));

  const save = async (platform: AlertPlatform, config: Record<string, string>): Promise<boolean> => {
    try {
      const res =
        editing && editing !== 'new'
          ? await api.put(`/api/users/alert-methods/${editing.alert_method_id}`, { ...editing, platform, platform_config: config })
          : await api.post('/api/users/alert-methods', { platform, is_enabled: true, platform_config: config });
      if (res.success) {
        // A new webhook's signing secret is shown once, right away.
        const created = res.data as { signing_secret?: string } | undefined;
        if (created?.signing_secret) setNewSecret(created.signing_secret);
        await load();
        return true;
      }
      console.error('save alert method failed', res.status, res.error);
    } catch (err) {
      console.error('save alert method failed', err);
    }
    return false;
  };

  const toggle = async (m: AlertMethod) => {
    try {
      const res = await api.put(`/api/users/alert-methods/${m.alert_method_id}`, { is_enabled: !m.is_enabled });
      if (res.success) setMethods((list) => list && list.map((x) => (x.alert_method_id === m.alert_method_id ? { ...x, is_enabled: !m.is_enabled } : x)));
      else console.error('toggle alert method failed', res.status, res.error);
    } catch (err) {
      console.error('toggle alert method failed', err);
    }
  };

  const loadSigningSecret = async (id: number): Promise<string | null> => {
    try {
      const res = await api.get<{ signing_secret: string }>(`/api/users/alert-methods/${id}/signing-secret`);
      return res.success ? res.data?.signing_secret ?? null : null;
    } catch {
      return null;
    }
  };

  const remove = async (m: AlertMethod) => {
    try {
      const res = await api.del(`/api/users/alert-methods/${m.alert_method_id}`);
      if (!res.success) console.error('delete alert method failed', res.status, res.error);
    } catch (err) {
      console.error('delete alert method failed', err);
    }
    setDeleting(null);
    await load();
  };

  return (
    <div className="container page">
      <header className="dash-header">
        <div>
          <h1>Alert Settings</h1>
          <p className="page-sub">Choose where Upfleet sends alerts when an endpoint crosses a threshold.</p>
        </div>
        {mayOffer(workspaceRole, 'admin') && (
          <button type="button" className="btn btn-primary" disabled={!methods || allConfigured} onClick={() => setEditing('new')} title={allConfigured ? 'Every platform is already configured' : undefined}>
            <PlusIcon width={16} height={16} /> Add Alert Method
          </button>
        )}
      </header>
      {newSecret && <NewSigningSecretNotice secret={newSecret} onDismiss={() => setNewSecret(null)} />}
      <section className="card list-card" aria-label="Alert methods">
        {!methods ? (
          <Spinner />
        ) : methods.length === 0 ? (
          <div className="empty-state">
            <span className="empty-icon"><BellIcon width={28} height={28} /></span>
            <h3>No alert methods configured</h3>
            <p>Add an email address, a chat channel or a webhook to receive alerts.</p>
          </div>
        ) : (
          <ul className="method-list">
            {methods.map((m) => (
              <AlertMethodItem key={m.alert_method_id} method={m} manage={mayOffer(workspaceRole, 'admin')} onToggle={() => void toggle(m)} onEdit={() => setEditing(m)} onDelete={() => setDeleting(m)} />
            ))}
          </ul>
        )}
      </section>
      <StormSettings manage={mayOffer(workspaceRole, 'admin')} />
      {editing && (
        <AlertMethodModal
          method={editing === 'new' ? null : editing} existing={existing} onSave={save} onClose={() => setEditing(null)}
          loadSigningSecret={editing !== 'new' ? () => loadSigningSecret(editing.alert_method_id) : undefined}
        />
      )}
      {deleting && (
        <ConfirmDialog title="Delete Alert Method" message="Are you sure you want to delete this alert method?" onConfirm={() => void remove(deleting)} onCancel={() => setDeleting(null)} />
      )}
    </div>
  );
}
