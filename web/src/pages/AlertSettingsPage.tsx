import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { ALERT_PLATFORMS, PLATFORM_FIELDS, type AlertDelivery, type AlertMethod, type AlertPlatform } from '@upfleet/proto/rest';
import { useServices } from '../app-context';
import { Spinner } from '../components/Spinner';
import { ConfirmDialog, Modal } from '../components/Modal';
import { BellIcon, EditIcon, PlusIcon, TrashIcon } from '../components/Icons';
import { FIELD_LABELS, validateAlertMethod } from '../lib/validation';
import { Field } from '../components/Field';

const PLATFORM_LABELS: Record<AlertPlatform, string> = {
  email: 'Email',
  slack: 'Slack',
  telegram: 'Telegram',
  webhook: 'Webhook',
  sms: 'SMS',
  discord: 'Discord',
  teams: 'Microsoft Teams',
};

const FIELD_TYPES: Record<string, string> = { email_address: 'email', webhook_url: 'url', phone_number: 'tel' };
const FIELD_PLACEHOLDERS: Record<string, string> = {
  email_address: 'alerts@example.com',
  bot_token: 'xoxb-… or 123456:ABC…',
  channel: '#alerts',
  chat_id: '-1001234567890',
  webhook_url: 'https://…',
  phone_number: '+49 151 23456789',
};

/** Short, non-secret summary of a method's target for the list. */
function summary(m: AlertMethod): string {
  const c = m.platform_config ?? {};
  return c.email_address || c.channel || c.chat_id || c.phone_number || (c.webhook_url ? c.webhook_url.replace(/^(https?:\/\/[^/]+).*/, '$1/…') : '') || '';
}

const EVENT_LABELS: Record<AlertDelivery['event'], string> = { opened: 'Incident opened', resolved: 'Incident resolved', test: 'Test' };
const STATUS_TONES: Record<AlertDelivery['status'], string> = { delivered: 'badge-green', pending: 'badge-yellow', failed: 'badge-red' };

/** The last 50 deliveries of one method: time, event, status, attempts, last error. */
export function DeliveriesList({ deliveries }: { deliveries: AlertDelivery[] | null }) {
  if (!deliveries) return <Spinner />;
  if (deliveries.length === 0) return <p className="muted small">No deliveries yet.</p>;
  return (
    <table className="delivery-table" aria-label="Deliveries">
      <thead><tr><th>Time</th><th>Event</th><th>Status</th><th className="hide-sm">Attempts</th><th>Last error</th></tr></thead>
      <tbody>
        {deliveries.map((d) => (
          <tr key={d.delivery_id} data-testid="delivery-row">
            <td>{new Date(d.created_at).toLocaleString('en-GB')}</td>
            <td>{EVENT_LABELS[d.event]}</td>
            <td><span className={`badge ${STATUS_TONES[d.status]}`}>{d.status}</span></td>
            <td className="hide-sm">{d.attempts}</td>
            <td>{d.last_error ?? ''}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** A webhook's signing secret, fetched on request (edit form) or shown right after creation. */
function SigningSecret({ load, initial }: { load?: () => Promise<string | null>; initial?: string }) {
  const [secret, setSecret] = useState<string | null>(initial ?? null);
  return (
    <div className="field">
      <label>Signing secret</label>
      {secret ? (
        <div className="secret-box" data-testid="signing-secret">{secret}</div>
      ) : (
        <button type="button" className="btn btn-secondary btn-sm" onClick={() => void load?.().then(setSecret)}>Show signing secret</button>
      )}
      <p className="hint">Verify the webhook-signature header with this secret (Standard Webhooks).</p>
    </div>
  );
}

export function AlertMethodModal({
  method,
  existing,
  onSave,
  onClose,
  loadSigningSecret,
}: {
  method: AlertMethod | null;
  existing: AlertPlatform[];
  onSave(platform: AlertPlatform, config: Record<string, string>): Promise<boolean>;
  onClose(): void;
  loadSigningSecret?: () => Promise<string | null>;
}) {
  const free = ALERT_PLATFORMS.filter((p) => !existing.includes(p));
  const [platform, setPlatform] = useState<AlertPlatform>(method?.platform ?? free[0] ?? 'email');
  const [config, setConfig] = useState<Record<string, string>>(method ? { ...method.platform_config } : {});
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const others = method ? existing.filter((p) => p !== method.platform) : existing;
    const invalid = validateAlertMethod(platform, config, others);
    if (invalid) {
      setError(invalid);
      return;
    }
    setError('');
    setBusy(true);
    const clean = Object.fromEntries(PLATFORM_FIELDS[platform].map((f) => [f, (config[f] ?? '').trim()]));
    const ok = await onSave(platform, clean);
    setBusy(false);
    if (ok) onClose();
  };

  return (
    <Modal title={method ? 'Edit Alert Method' : 'Add Alert Method'} onClose={onClose}>
      <form onSubmit={submit} noValidate>
        <Field id="am-platform" label="Platform" hint={method ? 'The platform cannot be changed when editing.' : undefined}>
          <select id="am-platform" value={platform} disabled={!!method} onChange={(e) => { setPlatform(e.target.value as AlertPlatform); setError(''); }}>
            {ALERT_PLATFORMS.map((p) => (
              <option key={p} value={p}>{PLATFORM_LABELS[p]}{!method && existing.includes(p) ? ' (configured)' : ''}</option>
            ))}
          </select>
        </Field>
        {PLATFORM_FIELDS[platform].map((f) => (
          <Field id={`am-${f}`} key={f} label={FIELD_LABELS[f]}>
            <input id={`am-${f}`} type={FIELD_TYPES[f] ?? 'text'} value={config[f] ?? ''} placeholder={FIELD_PLACEHOLDERS[f]} onChange={(e) => setConfig((c) => ({ ...c, [f]: e.target.value }))} required />
          </Field>
        ))}
        {method?.platform === 'webhook' && <SigningSecret load={loadSigningSecret} />}
        {method && PLATFORM_FIELDS[platform].some((f) => f !== 'email_address' && f !== 'channel' && f !== 'chat_id') && (
          <p className="hint">Secrets are shown masked; leave them as they are to keep the saved values.</p>
        )}
        {error && <div className="alert alert-error" role="alert">{error}</div>}
        <div className="modal-actions">
          <button type="button" className="btn btn-secondary" onClick={onClose}>Cancel</button>
          <button type="submit" className="btn btn-primary" disabled={busy}>{method ? 'Save Changes' : 'Add Alert Method'}</button>
        </div>
      </form>
    </Modal>
  );
}

export function AlertSettingsPage() {
  const { api } = useServices();
  const [methods, setMethods] = useState<AlertMethod[] | null>(null);
  const [editing, setEditing] = useState<AlertMethod | 'new' | null>(null);
  const [deleting, setDeleting] = useState<AlertMethod | null>(null);
  const [tests, setTests] = useState<Record<number, { busy: boolean; ok?: boolean; text?: string }>>({});
  const [openDeliveries, setOpenDeliveries] = useState<Record<number, AlertDelivery[] | null>>({});
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

  const sendTest = async (m: AlertMethod) => {
    setTests((t) => ({ ...t, [m.alert_method_id]: { busy: true } }));
    let outcome: { busy: boolean; ok: boolean; text: string };
    try {
      const res = await api.post<{ delivered: boolean }>(`/api/users/alert-methods/${m.alert_method_id}/test`);
      outcome = res.success ? { busy: false, ok: true, text: 'Test message delivered' } : { busy: false, ok: false, text: res.error || 'The test message could not be sent' };
    } catch {
      outcome = { busy: false, ok: false, text: 'Network error' };
    }
    setTests((t) => ({ ...t, [m.alert_method_id]: outcome }));
    if (openDeliveries[m.alert_method_id] !== undefined) void loadDeliveries(m.alert_method_id);
  };

  const loadDeliveries = async (id: number) => {
    setOpenDeliveries((d) => ({ ...d, [id]: d[id] ?? null }));
    try {
      const res = await api.get<AlertDelivery[]>(`/api/users/alert-methods/${id}/deliveries`);
      setOpenDeliveries((d) => ({ ...d, [id]: res.success ? res.data ?? [] : [] }));
    } catch (err) {
      console.error('load deliveries failed', err);
      setOpenDeliveries((d) => ({ ...d, [id]: [] }));
    }
  };

  const toggleDeliveries = (id: number) => {
    if (openDeliveries[id] !== undefined) {
      setOpenDeliveries((d) => {
        const next = { ...d };
        delete next[id];
        return next;
      });
    } else void loadDeliveries(id);
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
        <button type="button" className="btn btn-primary" disabled={!methods || allConfigured} onClick={() => setEditing('new')} title={allConfigured ? 'Every platform is already configured' : undefined}>
          <PlusIcon width={16} height={16} /> Add Alert Method
        </button>
      </header>
      {newSecret && (
        <div className="alert alert-success signing-secret-notice" role="status">
          <p><strong>Webhook signing secret</strong>: every webhook is signed (Standard Webhooks: <code>webhook-id</code>, <code>webhook-timestamp</code>, <code>webhook-signature</code>). Verify it with this secret; you can show it again from the edit form.</p>
          <div className="secret-box" data-testid="new-signing-secret">{newSecret}</div>
          <button type="button" className="btn btn-secondary btn-sm" onClick={() => setNewSecret(null)}>Dismiss</button>
        </div>
      )}
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
              <li key={m.alert_method_id} className="method-item">
              <div className="method-row" data-testid="alert-method-row">
                <span className={`platform-badge platform-${m.platform}`} aria-hidden="true">{PLATFORM_LABELS[m.platform].slice(0, 2)}</span>
                <div className="method-text">
                  <div className="strong">{PLATFORM_LABELS[m.platform]}</div>
                  <div className="muted small">{summary(m)}</div>
                </div>
                <span className={`badge ${m.is_enabled ? 'badge-green' : 'badge-grey'}`}>{m.is_enabled ? 'Enabled' : 'Disabled'}</span>
                <div className="row-actions">
                  <label className="switch" title={m.is_enabled ? 'Disable' : 'Enable'}>
                    <input type="checkbox" checked={m.is_enabled} onChange={() => void toggle(m)} aria-label={`${m.is_enabled ? 'Disable' : 'Enable'} ${PLATFORM_LABELS[m.platform]} alerts`} />
                    <span className="switch-track" aria-hidden="true" />
                  </label>
                  <button type="button" className="icon-btn" aria-label={`Edit ${PLATFORM_LABELS[m.platform]} alert method`} onClick={() => setEditing(m)}><EditIcon /></button>
                  <button type="button" className="icon-btn danger" aria-label={`Delete ${PLATFORM_LABELS[m.platform]} alert method`} onClick={() => setDeleting(m)}><TrashIcon /></button>
                </div>
              </div>
              <div className="method-extra">
                <div className="row-actions">
                  <button type="button" className="btn btn-secondary btn-sm" disabled={tests[m.alert_method_id]?.busy} onClick={() => void sendTest(m)}>
                    {tests[m.alert_method_id]?.busy ? 'Sending...' : 'Send test'}
                  </button>
                  <button type="button" className="btn btn-secondary btn-sm" aria-expanded={openDeliveries[m.alert_method_id] !== undefined} onClick={() => toggleDeliveries(m.alert_method_id)}>
                    Deliveries
                  </button>
                  {tests[m.alert_method_id]?.text && (
                    <span className={`test-outcome ${tests[m.alert_method_id]!.ok ? 'ok' : 'failed'}`} role="status">{tests[m.alert_method_id]!.text}</span>
                  )}
                </div>
                {openDeliveries[m.alert_method_id] !== undefined && <DeliveriesList deliveries={openDeliveries[m.alert_method_id]!} />}
              </div>
              </li>
            ))}
          </ul>
        )}
      </section>
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
