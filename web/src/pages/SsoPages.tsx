// Single sign-on and invitation links (issue 23). /login/sso takes the tokens the control plane put
// in the URL fragment after the provider's sign-in; /invitations/:token accepts an invitation as
// the signed-in person and switches to that workspace.
import { useEffect, useRef, useState } from 'react';
import { useNavigate, useParams } from 'react-router-dom';
import { useServices } from '../app-context';
import { WORKSPACE_STORAGE_KEY } from '../services';

export function SsoCallbackPage() {
  const { auth, actions } = useServices();
  const navigate = useNavigate();
  const done = useRef(false);
  useEffect(() => {
    if (done.current) return;
    done.current = true;
    const params = new URLSearchParams(window.location.hash.slice(1));
    const access = params.get('access_token');
    const refresh = params.get('refresh_token');
    window.history.replaceState(null, '', window.location.pathname); // the tokens leave the address bar
    if (!access || !refresh) {
      navigate('/login?sso_error=' + encodeURIComponent('Single sign-on failed. Please try again.'));
      return;
    }
    auth.getState().setTokens(access, refresh);
    void actions.validateSession().then(() => navigate('/dashboard'));
  }, [auth, actions, navigate]);
  return <div className="container page"><p className="muted">Signing you in…</p></div>;
}

export function InvitationPage() {
  const { api, storage } = useServices();
  const { token } = useParams();
  const [state, setState] = useState<{ error?: string; joined?: string }>({});
  const accept = async () => {
    const res = await api.post<{ id: number; name: string }>(`/api/invitations/${token}/accept`);
    if (res.success) {
      storage?.setItem(WORKSPACE_STORAGE_KEY, String(res.data.id));
      setState({ joined: res.data.name });
      window.location.assign('/dashboard');
    } else setState({ error: res.error });
  };
  return (
    <div className="auth-page">
      <div className="card auth-card">
        <h1>Join a workspace</h1>
        <p className="muted">You were invited to an Upfleet workspace. Accept with the account of the invited email address.</p>
        {state.error && <div className="alert alert-error" role="alert">{state.error}</div>}
        {state.joined && <div className="alert alert-success" role="status">You joined {state.joined}</div>}
        <button type="button" className="btn btn-primary btn-block" onClick={() => void accept()}>Accept invitation</button>
      </div>
    </div>
  );
}
