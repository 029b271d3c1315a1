import { useEffect, useState, type FormEvent } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router-dom';
import { LIMITS } from '@upfleet/proto/rest';
import { useServices } from '../app-context';
import { useNextPage, withNext } from '../lib/next-page';
import { sanitizeCode, isCompleteCode, validateLogin } from '../lib/validation';
import { Modal } from '../components/Modal';
import { Field } from '../components/Field';
import { PasswordInput } from '../components/PasswordInput';

export function LoginPage() {
  const { actions } = useServices();
  const navigate = useNavigate();
  const { api } = useServices();
  const [params] = useSearchParams();
  const checkoutSession = params.get('checkout_session') ?? undefined;
  const next = useNextPage();
  const ssoError = params.get('sso_error');
  // Single sign-on: the button shows when the server has OIDC_* configured.
  const [sso, setSso] = useState<string | null>(null);
  useEffect(() => {
    void api.publicRequest<{ enabled: boolean; button_label: string | null }>('GET', '/api/auth/oidc').then((r) => {
      if (r.success && r.data.enabled) setSso(r.data.button_label);
    }).catch(() => undefined);
  }, [api]);
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const [needsCode, setNeedsCode] = useState(false);
  const [code, setCode] = useState('');
  const [codeError, setCodeError] = useState('');

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const invalid = validateLogin(email, password);
    if (invalid) {
      setError(invalid);
      return;
    }
    setBusy(true);
    setError('');
    const out = await actions.login(email.trim(), password, undefined, checkoutSession);
    setBusy(false);
    if (out.ok) void navigate(next ?? '/dashboard');
    else if (out.requires2FA) {
      setCode('');
      setCodeError('');
      setNeedsCode(true);
    } else setError(out.error);
  };

  const verify = async (e: FormEvent) => {
    e.preventDefault();
    if (!isCompleteCode(code)) return;
    setBusy(true);
    setCodeError('');
    const out = await actions.login(email.trim(), password, code, checkoutSession);
    setBusy(false);
    if (out.ok) {
      setNeedsCode(false);
      void navigate(next ?? '/dashboard');
    } else setCodeError(out.error || 'Invalid verification code');
  };

  return (
    <div className="auth-page">
      <div className="card auth-card">
        <h1>Welcome back</h1>
        <p className="muted">Sign in to your Upfleet account</p>
        <form onSubmit={submit} noValidate>
          <Field id="login-email" label="Email">
            <input id="login-email" type="email" value={email} onChange={(e) => setEmail(e.target.value)} autoComplete="email" required />
          </Field>
          <PasswordInput id="login-password" label="Password" value={password} onChange={setPassword} autoComplete="current-password" />
          {error && <div className="alert alert-error" role="alert">{error}</div>}
          <button type="submit" className="btn btn-primary btn-block" disabled={busy}>{busy ? 'Signing in...' : 'Sign In'}</button>
        </form>
        {ssoError && <div className="alert alert-error" role="alert">{ssoError}</div>}
        {sso && <a className="btn btn-secondary btn-block" href="/api/auth/oidc/start">{sso}</a>}
        <p className="auth-switch">Don&apos;t have an account? <Link to={withNext('/signup', next)}>Sign up</Link></p>
      </div>
      {needsCode && (
        <Modal title="Two-Factor Authentication" onClose={() => setNeedsCode(false)} size="sm">
          <form onSubmit={verify}>
            <p className="muted">Enter the 6-digit code from your authenticator app, or one of your backup codes.</p>
            <Field id="login-2fa" label="Verification code">
              <input
                id="login-2fa"
                className="code-input"
                inputMode="numeric"
                autoComplete="one-time-code"
                value={code}
                onChange={(e) => setCode(sanitizeCode(e.target.value))}
                maxLength={LIMITS.twoFactorDigits}
                placeholder="000000"
              />
            </Field>
            {codeError && <div className="alert alert-error" role="alert">{codeError}</div>}
            <div className="modal-actions">
              <button type="button" className="btn btn-secondary" onClick={() => setNeedsCode(false)}>Cancel</button>
              <button type="submit" className="btn btn-primary" disabled={!isCompleteCode(code) || busy}>Verify</button>
            </div>
            <p className="hint">Lost access to your authenticator? Contact support to recover your account.</p>
          </form>
        </Modal>
      )}
    </div>
  );
}
