// Single sign-on and invitation links. /login/sso takes the tokens the control plane put in the URL
// fragment after the provider's sign-in (or, for an account with two-factor, a ticket it trades with
// the code); /invitations/:token shows an invitation to anyone holding the link and accepts it as the
// signed-in person; /email-verified ends a verification link opened in a browser.
import { useCallback, useEffect, useRef, useState, type FormEvent } from 'react';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router-dom';
import { LIMITS } from '@upfleet/proto/rest';
import { useAuth, useServices } from '../app-context';
import { withNext } from '../lib/next-page';
import { WORKSPACE_STORAGE_KEY } from '../services';
import { Field } from '../components/Field';
import { isCompleteCode, sanitizeCode } from '../lib/validation';

export function SsoCallbackPage() {
  const { auth, actions, api } = useServices();
  const navigate = useNavigate();
  const done = useRef(false);
  const [ticket, setTicket] = useState<string | null>(null);
  const [code, setCode] = useState('');
  const [codeError, setCodeError] = useState('');
  const [busy, setBusy] = useState(false);
  const finish = useCallback((access: string, refresh: string) => {
    auth.getState().setTokens(access, refresh);
    void actions.validateSession().then(() => navigate('/dashboard'));
  }, [auth, actions, navigate]);
  useEffect(() => {
    if (done.current) return;
    done.current = true;
    const params = new URLSearchParams(window.location.hash.slice(1));
    const access = params.get('access_token');
    const refresh = params.get('refresh_token');
    const secondStep = params.get('two_factor_ticket');
    window.history.replaceState(null, '', window.location.pathname); // the tokens leave the address bar
    if (secondStep) {
      setTicket(secondStep);
      return;
    }
    if (!access || !refresh) {
      void navigate('/login?sso_error=' + encodeURIComponent('Single sign-on failed. Please try again.'));
      return;
    }
    finish(access, refresh);
  }, [navigate, finish]);
  const verify = async (e: FormEvent) => {
    e.preventDefault();
    if (!ticket || !isCompleteCode(code)) return;
    setBusy(true);
    setCodeError('');
    const out = await api.publicRequest<{ accessToken: string; refreshToken: string }>('POST', '/api/auth/oidc/two-factor', { ticket, two_factor_code: code });
    setBusy(false);
    if (out.success) finish(out.data.accessToken, out.data.refreshToken);
    else if (out.status === 401 && !out.requires2FA) void navigate('/login?sso_error=' + encodeURIComponent(out.error));
    else setCodeError(out.error || 'Invalid verification code');
  };
  if (!ticket) return <div className="container page"><p className="muted">Signing you in…</p></div>;
  return (
    <div className="auth-page">
      <div className="card auth-card">
        <h1>Two-Factor Authentication</h1>
        <form onSubmit={verify}>
          <p className="muted">Enter the 6-digit code from your authenticator app, or one of your backup codes.</p>
          <Field id="sso-2fa" label="Verification code">
            <input id="sso-2fa" className="code-input" inputMode="numeric" autoComplete="one-time-code" value={code}
              onChange={(e) => setCode(sanitizeCode(e.target.value))} maxLength={LIMITS.twoFactorDigits} placeholder="000000" />
          </Field>
          {codeError && <div className="alert alert-error" role="alert">{codeError}</div>}
          <button type="submit" className="btn btn-primary btn-block" disabled={!isCompleteCode(code) || busy}>Verify</button>
          <p className="hint">Lost access to your authenticator? Contact support to recover your account.</p>
        </form>
      </div>
    </div>
  );
}

interface InvitationPreview { workspace_name: string; inviter: string; role: string; email: string; expires_at: string }

/** The join page: who invites to which workspace with which role; signed out, sign-in and sign-up
 *  links that come back here; signed in, the Accept button. */
export function InvitationPage() {
  const { api, storage } = useServices();
  const { token } = useParams();
  const signedIn = useAuth((s) => s.status === 'authenticated' && !!s.user);
  const [preview, setPreview] = useState<InvitationPreview | null>(null);
  const [state, setState] = useState<{ error?: string; joined?: string }>({});
  useEffect(() => {
    void api.publicRequest<InvitationPreview>('GET', `/api/public/invitations/${encodeURIComponent(token ?? '')}`)
      .then((r) => (r.success ? setPreview(r.data) : setState({ error: r.error })))
      .catch(() => setState({ error: 'The invitation could not be loaded. Please try again.' }));
  }, [api, token]);
  const accept = async () => {
    const res = await api.post<{ id: number; name: string }>(`/api/invitations/${token}/accept`);
    if (res.success) {
      storage?.setItem(WORKSPACE_STORAGE_KEY, String(res.data.id));
      setState({ joined: res.data.name });
      window.location.assign('/dashboard');
    } else setState({ error: res.error });
  };
  const here = `/invitations/${token ?? ''}`;
  return (
    <div className="auth-page">
      <div className="card auth-card">
        <h1>{preview ? `Join ${preview.workspace_name}` : 'Join a workspace'}</h1>
        {preview && (
          <p data-testid="invitation-summary">
            <strong>{preview.inviter}</strong> invited <strong>{preview.email}</strong> to the workspace <strong>{preview.workspace_name}</strong> as <strong>{preview.role}</strong>.
          </p>
        )}
        {state.error && <div className="alert alert-error" role="alert">{state.error}</div>}
        {state.joined && <div className="alert alert-success" role="status">You joined {state.joined}</div>}
        {preview && (signedIn ? (
          <button type="button" className="btn btn-primary btn-block" onClick={() => void accept()}>Accept invitation</button>
        ) : (
          <>
            <p className="muted">Sign in or create an account with {preview.email} to accept; you come back here afterwards.</p>
            <Link className="btn btn-primary btn-block" to={withNext('/login', here)}>Sign in to accept</Link>
            <Link className="btn btn-secondary btn-block" to={withNext('/signup', here)}>Create an account</Link>
          </>
        ))}
      </div>
    </div>
  );
}

/** Where a verification link lands in a browser: says it worked (or why not), signed in or not. */
export function EmailVerifiedPage() {
  const [params] = useSearchParams();
  const error = params.get('error');
  const signedIn = useAuth((s) => s.status === 'authenticated' && !!s.user);
  return (
    <div className="auth-page">
      <div className="card auth-card">
        <h1>{error ? 'This link did not work' : 'Email address confirmed'}</h1>
        {error ? (
          <div className="alert alert-error" role="alert">{error}. Send a new link from your Profile.</div>
        ) : (
          <div className="alert alert-success" role="status">Your email address is confirmed. Thank you!</div>
        )}
        <Link className="btn btn-primary btn-block" to={signedIn ? (error ? '/profile' : '/dashboard') : '/login'}>
          {signedIn ? (error ? 'Go to Profile' : 'Go to Dashboard') : 'Sign in'}
        </Link>
      </div>
    </div>
  );
}
