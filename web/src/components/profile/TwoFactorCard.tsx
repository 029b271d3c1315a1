// Two-factor status with enable (setup modal) and disable (with the password or a code).
import { useEffect, useState } from 'react';
import { useServices } from '../../app-context';
import { Spinner } from '../Spinner';
import { TwoFactorSetupModal } from '../TwoFactorSetupModal';
import { ShieldIcon } from '../Icons';
import { DISABLE_TEXTS, DisableTwoFactorDialog } from './DisableTwoFactorDialog';
import { Flash, useFlashCall } from './Flash';

export function TwoFactorCard() {
  const { api } = useServices();
  const [enabled, setEnabled] = useState<boolean | null>(null);
  const [setupOpen, setSetupOpen] = useState(false);
  const [confirmOpen, setConfirmOpen] = useState(false);
  const { msg, setMsg } = useFlashCall();

  useEffect(() => {
    api
      .get<{ enabled: boolean }>('/api/2fa/status')
      .then((res) => setEnabled(res.success ? !!res.data?.enabled : false))
      .catch(() => setEnabled(false));
  }, [api]);

  const disabled = () => {
    setConfirmOpen(false);
    setEnabled(false);
    setMsg({ kind: 'success', text: DISABLE_TEXTS.ok });
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
      {confirmOpen && <DisableTwoFactorDialog onDisabled={disabled} onCancel={() => setConfirmOpen(false)} />}
    </section>
  );
}
