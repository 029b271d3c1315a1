import { useEffect, useRef, useState, type FormEvent } from 'react';
import { LIMITS, type TwoFactorSetup } from '@upfleet/proto/rest';
import { useServices } from '../app-context';
import { Modal } from './Modal';
import { Spinner } from './Spinner';
import { CheckIcon, CopyIcon } from './Icons';
import { isCompleteCode, sanitizeCode, validateTwoFactorCode } from '../lib/validation';
import { Field } from './Field';
import { copyText } from '../lib/clipboard';

const COPY_CONFIRM_MS = 2000;
const SUCCESS_CLOSE_MS = 2000;

function useCopied(): [string | null, (key: string, text: string) => void] {
  const [copied, setCopied] = useState<string | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);
  return [
    copied,
    (key, text) => {
      void copyText(text).finally(() => {
        setCopied(key);
        clearTimeout(timer.current);
        timer.current = setTimeout(() => setCopied(null), COPY_CONFIRM_MS);
      });
    },
  ];
}

const STEPS = ['Scan QR code', 'Save backup codes', 'Verify'];

export function TwoFactorSetupModal({ onClose, onEnabled }: { onClose: () => void; onEnabled: () => void }) {
  const { api } = useServices();
  const [setup, setSetup] = useState<TwoFactorSetup | null>(null);
  const [step, setStep] = useState(1);
  const [code, setCode] = useState('');
  const [error, setError] = useState('');
  const [success, setSuccess] = useState('');
  const [busy, setBusy] = useState(false);
  const [copied, copy] = useCopied();
  const doneTimer = useRef<ReturnType<typeof setTimeout>>(undefined);

  useEffect(() => {
    let live = true;
    api
      .post<TwoFactorSetup>('/api/2fa/setup')
      .then((res) => {
        if (!live) return;
        if (res.success && res.data) setSetup(res.data);
        else setError(res.success ? 'Failed to initialize 2FA setup' : res.error || 'Failed to initialize 2FA setup');
      })
      .catch(() => live && setError('Failed to initialize 2FA setup'));
    return () => {
      live = false;
      clearTimeout(doneTimer.current);
    };
  }, [api]);

  const verify = async (e: FormEvent) => {
    e.preventDefault();
    const invalid = validateTwoFactorCode(code);
    if (invalid) {
      setError(invalid);
      return;
    }
    setBusy(true);
    setError('');
    try {
      const res = await api.post('/api/2fa/verify', { token: code });
      if (res.success) {
        setSuccess('Two-factor authentication has been enabled successfully!');
        doneTimer.current = setTimeout(onEnabled, SUCCESS_CLOSE_MS);
      } else setError(res.error || 'Verification failed');
    } catch {
      setError('Network error. Please try again.');
    }
    setBusy(false);
  };

  return (
    <Modal title="Enable Two-Factor Authentication" onClose={onClose} size="md">
      <ol className="stepper" aria-label="Setup steps">
        {STEPS.map((s, i) => (
          <li key={s} className={i + 1 === step ? 'current' : i + 1 < step ? 'done' : ''} aria-current={i + 1 === step ? 'step' : undefined}>
            <span className="step-num">{i + 1 < step ? <CheckIcon width={14} height={14} /> : i + 1}</span>
            <span className="step-label">{s}</span>
          </li>
        ))}
      </ol>
      {!setup && !error && <Spinner />}
      {error && !setup && <div className="alert alert-error" role="alert">{error}</div>}
      {setup && step === 1 && (
        <div className="setup-step">
          <p>Scan this QR code with an authenticator app (Google Authenticator, 1Password, Authy…).</p>
          <div className="qr-wrap">
            <img src={setup.qrCodeUrl} alt="QR code for your authenticator app" width={200} height={200} />
          </div>
          <p className="muted small">Can&apos;t scan it? Enter this secret manually:</p>
          <div className="secret-row">
            <code className="secret" data-testid="totp-secret">{setup.secret}</code>
            <button type="button" className="btn btn-secondary btn-sm" onClick={() => copy('secret', setup.secret)}>
              {copied === 'secret' ? <><CheckIcon width={14} height={14} /> Copied!</> : <><CopyIcon width={14} height={14} /> Copy</>}
            </button>
          </div>
          <div className="modal-actions">
            <button type="button" className="btn btn-primary" onClick={() => setStep(2)}>Next</button>
          </div>
        </div>
      )}
      {setup && step === 2 && (
        <div className="setup-step">
          <p>Save these backup codes somewhere safe. Each can be used once if you lose your device.</p>
          <ul className="backup-codes">
            {setup.backupCodes.map((c) => (<li key={c}><code>{c}</code></li>))}
          </ul>
          <button type="button" className="btn btn-secondary btn-sm" onClick={() => copy('codes', setup.backupCodes.join('\n'))}>
            {copied === 'codes' ? <><CheckIcon width={14} height={14} /> Copied!</> : <><CopyIcon width={14} height={14} /> Copy All</>}
          </button>
          <div className="modal-actions">
            <button type="button" className="btn btn-secondary" onClick={() => setStep(1)}>Back</button>
            <button type="button" className="btn btn-primary" onClick={() => setStep(3)}>Next</button>
          </div>
        </div>
      )}
      {setup && step === 3 && (
        <form className="setup-step" onSubmit={verify} noValidate>
          <Field id="setup-code" label="Enter the 6-digit code from your app">
            <input id="setup-code" className="code-input" inputMode="numeric" autoComplete="one-time-code" maxLength={LIMITS.twoFactorDigits} placeholder="000000" value={code} onChange={(e) => setCode(sanitizeCode(e.target.value))} />
          </Field>
          {error && <div className="alert alert-error" role="alert">{error}</div>}
          {success && <div className="alert alert-success" role="status">{success}</div>}
          <div className="modal-actions">
            <button type="button" className="btn btn-secondary" onClick={() => setStep(2)} disabled={!!success}>Back</button>
            <button type="submit" className="btn btn-primary" disabled={!isCompleteCode(code) || busy || !!success}>Verify</button>
          </div>
        </form>
      )}
    </Modal>
  );
}
