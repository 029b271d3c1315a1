// API keys for the public API (plans with api_access): create (the key is shown once, with a copy
// button), list with last use, revoke after confirmation.
import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { LIMITS, type ApiKey, type CreatedApiKey } from '@upfleet/proto/rest';
import { ApiKeyCreateBody, firstError } from '@upfleet/proto/schemas';
import { useServices } from '../../app-context';
import { Field } from '../Field';
import { CheckIcon, CopyIcon } from '../Icons';
import { ConfirmDialog } from '../Modal';
import { Spinner } from '../Spinner';
import { copyText } from '../../lib/clipboard';
import { formatDate } from '../../lib/format';
import { Flash, useFlashCall } from './Flash';
import { mayOffer, useWorkspaces } from '../../lib/workspaces';

const CREATE_TEXTS = { ok: 'API key created. Copy it now: it will not be shown again.', failed: 'Failed to create the API key', crashed: 'An error occurred while creating the API key' };
const REVOKE_TEXTS = { ok: 'API key revoked', failed: 'Failed to revoke the API key', crashed: 'An error occurred while revoking the API key' };

export function ApiKeysCard() {
  const { api } = useServices();
  const [keys, setKeys] = useState<ApiKey[] | null>(null);
  const [name, setName] = useState('');
  const [nameError, setNameError] = useState<string | null>(null);
  const [created, setCreated] = useState<CreatedApiKey | null>(null);
  const [copied, setCopied] = useState(false);
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  const { msg, busy, run } = useFlashCall();

  const load = useCallback(async () => {
    const res = await api.get<ApiKey[]>('/api/users/api-keys');
    setKeys(res.success ? res.data : []);
  }, [api]);
  useEffect(() => {
    load().catch(() => setKeys([]));
  }, [load]);

  const create = async (e: FormEvent) => {
    e.preventDefault();
    const error = firstError(ApiKeyCreateBody, { name });
    setNameError(error);
    if (error) return;
    setCreated(null);
    setCopied(false);
    await run(async () => {
      const res = await api.post<CreatedApiKey>('/api/users/api-keys', { name: name.trim() });
      if (res.success) setCreated(res.data);
      return res;
    }, CREATE_TEXTS, () => {
      setName('');
      void load();
    });
  };

  const revoke = async (key: ApiKey) => {
    setRevoking(null);
    await run(() => api.del(`/api/users/api-keys/${key.id}`), REVOKE_TEXTS, () => {
      if (created?.id === key.id) setCreated(null);
      void load();
    });
  };

  const full = (keys?.length ?? 0) >= LIMITS.maxApiKeys;
  // Keys belong to the workspace: its admins make and revoke them, the others only see them.
  const manage = mayOffer(useWorkspaces().role, 'admin');
  return (
    <section className="card settings-card" aria-labelledby="api-keys-title">
      <h2 id="api-keys-title">API Keys</h2>
      <p className="muted">
        Use a key as <code>Authorization: Bearer upk_…</code> with the <a href="/api/docs/">public API</a> or{' '}
        <code>upfleet monitors</code>. Keys can manage endpoints and alerts, not your account.
      </p>
      <Flash msg={msg} />
      {created && (
        <div className="api-key-once" data-testid="new-api-key">
          <code>{created.key}</code>
          <button type="button" className="btn btn-sm btn-secondary" onClick={() => void copyText(created.key).then(() => setCopied(true))}>
            {copied ? <><CheckIcon width={14} height={14} /> Copied!</> : <><CopyIcon width={14} height={14} /> Copy</>}
          </button>
        </div>
      )}
      {!manage && <p className="hint">An admin of this workspace creates and revokes its API keys.</p>}
      {manage && <form className="inline-form" onSubmit={(e) => void create(e)} noValidate>
        <Field id="api-key-name" label="Key name" error={nameError ?? undefined}>
          <input id="api-key-name" value={name} maxLength={100} placeholder="e.g. CI deploys" onChange={(e) => setName(e.target.value)} disabled={full} />
        </Field>
        <button type="submit" className="btn btn-primary" disabled={busy || full}>Create API Key</button>
      </form>}
      {manage && full && <p className="hint">You have {LIMITS.maxApiKeys} keys, the most allowed. Revoke one to create another.</p>}
      {keys === null ? (
        <Spinner />
      ) : keys.length === 0 ? (
        <p className="muted">No API keys yet.</p>
      ) : (
        <ul className="api-key-list">
          {keys.map((k) => (
            <li key={k.id} data-testid="api-key-row">
              <div>
                <div className="strong">{k.name}</div>
                <div className="muted small"><code>{k.prefix}…</code> · created {formatDate(k.created_at)} · {k.last_used_at ? `last used ${formatDate(k.last_used_at)}` : 'never used'}</div>
              </div>
              {manage && <button type="button" className="btn btn-sm btn-danger-outline" aria-label={`Revoke API key ${k.name}`} onClick={() => setRevoking(k)}>Revoke</button>}
            </li>
          ))}
        </ul>
      )}
      {revoking && (
        <ConfirmDialog
          title="Revoke API Key"
          message={`Revoke "${revoking.name}"? Anything using this key stops working at once.`}
          confirmLabel="Revoke"
          onConfirm={() => void revoke(revoking)}
          onCancel={() => setRevoking(null)}
        />
      )}
    </section>
  );
}
