// Two-factor status with enable (setup modal) and disable (after confirmation).
import { useEffect, useState } from 'react';
import { useServices } from '../../app-context';
import { Spinner } from '../Spinner';
import { ConfirmDialog } from '../Modal';
import { TwoFactorSetupModal } from '../TwoFactorSetupModal';
import { ShieldIcon } from '../Icons';
import { Flash, useFlashCall } from './Flash';

const DISABLE_TEXTS = { ok: 'Two-factor authentication has been disabled', failed: 'Failed to disable 2FA', crashed: 'An error occurred while disabling 2FA' };

export function TwoFactorCard() {
  const { api } = useServices();
  const [enabled, setEnabled] = useState<boolean | null>(null);
  const [setupOpen, setSetupOpen] = useState(false);
  const [confirmOpen, setConfirmOpen] = useState(false);
  const { msg, setMsg, run } = useFlashCall();

  useEffect(() => {
    api
      .get<{ enabled: boolean }>('/api/2fa/status')
      .then((res) => setEnabled(res.success ? !!res.data?.enabled : false))
      .catch(() => setEnabled(false));
  }, [api]);

  const disable = async () => {
    setConfirmOpen(false);
    await run(() => api.post('/api/2fa/disable'), DISABLE_TEXTS, () => setEnabled(false));
  };

  return (
    <section className="card settings-card" aria-labelledby="tfa-title">
      <div className="card-title-row">
        <h2 id="tfa-title"><ShieldIcon width={20} height={20} /> Two-Factor Authentication</h2>
        {enabled !== null && <span className={`badge ${enabled ? 'badge-green' : 'badge-grey'}`}>{enabled ? 'Enabled' : 'Disabled'}</span>}
      </div>
      <p className="muted">Protect your account with a code from an authenticator app in addition to your password.</p>
      <Flash msg={msg} />
      {enabled === null ? (
        <Spinner />
      ) : enabled ? (
        <button type="button" className="btn btn-danger-outline" onClick={() => setConfirmOpen(true)}>Disable 2FA</button>
      ) : (
        <button type="button" className="btn btn-primary" onClick={() => { setMsg(null); setSetupOpen(true); }}>Enable 2FA</button>
      )}
      {setupOpen && (
        <TwoFactorSetupModal
          onClose={() => setSetupOpen(false)}
          onEnabled={() => {
            setSetupOpen(false);
            setEnabled(true);
            setMsg({ kind: 'success', text: 'Two-factor authentication has been enabled successfully!' });
          }}
        />
      )}
      {confirmOpen && (
        <ConfirmDialog
          title="Disable Two-Factor Authentication"
          message="Disabling two-factor authentication makes your account less secure. Are you sure you want to continue?"
          confirmLabel="Disable 2FA"
          onConfirm={() => void disable()}
          onCancel={() => setConfirmOpen(false)}
        />
      )}
    </section>
  );
}
