// The add/edit form for one alert method: platform (fixed when editing), its fields, the webhook's
// signing secret, validated in the browser before onSave; closes when the save succeeded.
import { useState, type FormEvent } from 'react';
import { ALERT_PLATFORMS, PLATFORM_FIELDS, type AlertMethod, type AlertPlatform } from '@upfleet/proto/rest';
import { Modal } from '../Modal';
import { Field } from '../Field';
import { FIELD_LABELS, validateAlertMethod } from '../../lib/validation';
import { FIELD_PLACEHOLDERS, FIELD_TYPES, PLATFORM_LABELS } from './platforms';
import { SigningSecret } from './SigningSecret';

export function AlertMethodModal({
  method,
  existing,
  onSave,
  onClose,
  loadSigningSecret,
}: {
  method: AlertMethod | null;
  existing: AlertPlatform[];
  onSave: (platform: AlertPlatform, config: Record<string, string>) => Promise<boolean>;
  onClose: () => void;
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
