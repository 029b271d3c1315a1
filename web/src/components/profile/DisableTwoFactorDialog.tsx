// Disabling 2FA needs proof that the person at the keyboard owns the account: the current password,
// or a code from the authenticator app (or a backup code). A refusal shows inside the dialog.
import { useState } from 'react';
import { useServices } from '../../app-context';
import { ConfirmDialog } from '../Modal';
import { Flash, useFlashCall } from './Flash';

export const DISABLE_TEXTS = { ok: 'Two-factor authentication has been disabled', failed: 'Failed to disable 2FA', crashed: 'An error occurred while disabling 2FA' };

export function DisableTwoFactorDialog({ onDisabled, onCancel }: { onDisabled: () => void; onCancel: () => void }) {
  const { api } = useServices();
  const [mode, setMode] = useState<'password' | 'token'>('password');
  const [value, setValue] = useState('');
  const { msg, setMsg, busy, run } = useFlashCall();

  const submit = async () => {
    if (!value.trim()) {
      setMsg({ kind: 'error', text: mode === 'password' ? 'Please enter your current password' : 'Please enter the verification code' });
      return;
    }
    const body = mode === 'password' ? { password: value } : { token: value.trim() };
    await run(() => api.post('/api/2fa/disable', body), DISABLE_TEXTS, onDisabled);
  };

  return (
    <ConfirmDialog
      title="Disable Two-Factor Authentication"
      message="Disabling two-factor authentication makes your account less secure. To continue, confirm it is you."
      confirmLabel="Disable 2FA"
      busy={busy}
      onConfirm={() => void submit()}
      onCancel={onCancel}
    >
      <form onSubmit={(e) => { e.preventDefault(); void submit(); }}>
        <div className="field">
          <label htmlFor="tfa-disable-proof">{mode === 'password' ? 'Current password' : 'Verification or backup code'}</label>
          <input
            id="tfa-disable-proof"
            type={mode === 'password' ? 'password' : 'text'}
            autoComplete={mode === 'password' ? 'current-password' : 'one-time-code'}
            inputMode={mode === 'password' ? undefined : 'numeric'}
            value={value}
            onChange={(e) => setValue(e.target.value)}
            aria-invalid={msg?.kind === 'error' ? true : undefined}
          />
        </div>
        <Flash msg={msg?.kind === 'error' ? msg : null} />
        <button type="button" className="btn btn-ghost btn-sm" onClick={() => { setMode(mode === 'password' ? 'token' : 'password'); setValue(''); setMsg(null); }}>
          {mode === 'password' ? 'Use a code from your authenticator app instead' : 'Use your password instead'}
        </button>
      </form>
    </ConfirmDialog>
  );
}
