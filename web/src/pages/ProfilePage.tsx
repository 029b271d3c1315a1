import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { Link } from 'react-router-dom';
import type { Dashboard, Package, Profile, Subscription } from '@upfleet/proto/rest';
import { useAuth, useServices } from '../app-context';
import { Spinner } from '../components/Spinner';
import { ConfirmDialog } from '../components/Modal';
import { TwoFactorSetupModal } from '../components/TwoFactorSetupModal';
import { ShieldIcon } from '../components/Icons';
import { formatDate, formatPrice, subscriptionTone, TIMEZONES } from '../lib/format';
import { validatePasswordChange } from '../lib/validation';
import { PasswordInput } from './LoginPage';

type Msg = { kind: 'success' | 'error'; text: string } | null;

function Flash({ msg }: { msg: Msg }) {
  if (!msg) return null;
  return <div className={`alert alert-${msg.kind}`} role={msg.kind === 'error' ? 'alert' : 'status'}>{msg.text}</div>;
}

export function ProfileForm({ initial, onSaved }: { initial: Profile; onSaved(p: Profile): void }) {
  const { api } = useServices();
  const [form, setForm] = useState<Profile>(initial);
  const [saved, setSaved] = useState<Profile>(initial);
  const [msg, setMsg] = useState<Msg>(null);
  const [busy, setBusy] = useState(false);
  const changed = form.username !== saved.username || form.email !== saved.email || form.timezone !== saved.timezone;
  const valid = form.username.trim() !== '' && form.email.trim() !== '';

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!changed || !valid) return;
    setBusy(true);
    setMsg(null);
    try {
      const body = { username: form.username.trim(), email: form.email.trim(), timezone: form.timezone };
      const res = await api.put('/api/users/profile', body);
      if (res.success) {
        setSaved(body);
        setForm(body);
        onSaved(body);
        setMsg({ kind: 'success', text: 'Profile updated successfully!' });
      } else setMsg({ kind: 'error', text: res.error || 'Failed to update profile' });
    } catch {
      setMsg({ kind: 'error', text: 'An error occurred while updating profile' });
    }
    setBusy(false);
  };

  return (
    <form onSubmit={submit} noValidate>
      <div className="form-grid">
        <div className="field">
          <label htmlFor="profile-username">Username</label>
          <input id="profile-username" value={form.username} onChange={(e) => setForm({ ...form, username: e.target.value })} required autoComplete="username" />
        </div>
        <div className="field">
          <label htmlFor="profile-email">Email</label>
          <input id="profile-email" type="email" value={form.email} onChange={(e) => setForm({ ...form, email: e.target.value })} required autoComplete="email" />
        </div>
      </div>
      <div className="field">
        <label htmlFor="profile-timezone">Timezone</label>
        <select id="profile-timezone" value={form.timezone} onChange={(e) => setForm({ ...form, timezone: e.target.value })}>
          {TIMEZONES.map((tz) => (<option key={tz} value={tz}>{tz}</option>))}
        </select>
      </div>
      <Flash msg={msg} />
      <button type="submit" className="btn btn-primary" disabled={!changed || !valid || busy}>Save Changes</button>
    </form>
  );
}

export function ChangePasswordForm() {
  const { api } = useServices();
  const [form, setForm] = useState({ current: '', next: '', confirm: '' });
  const [msg, setMsg] = useState<Msg>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const invalid = validatePasswordChange(form.next, form.confirm);
    if (invalid) {
      setMsg({ kind: 'error', text: invalid });
      return;
    }
    setBusy(true);
    setMsg(null);
    try {
      const res = await api.post('/api/users/change-password', { current_password: form.current, new_password: form.next });
      if (res.success) {
        setForm({ current: '', next: '', confirm: '' });
        setMsg({ kind: 'success', text: 'Password changed successfully!' });
      } else setMsg({ kind: 'error', text: res.error || 'Failed to change password' });
    } catch {
      setMsg({ kind: 'error', text: 'An error occurred while changing password' });
    }
    setBusy(false);
  };

  return (
    <form onSubmit={submit} noValidate>
      <PasswordInput id="pw-current" label="Current Password" value={form.current} onChange={(v) => setForm({ ...form, current: v })} autoComplete="current-password" />
      <div className="form-grid">
        <PasswordInput id="pw-new" label="New Password" value={form.next} onChange={(v) => setForm({ ...form, next: v })} autoComplete="new-password" hint="Must be at least 8 characters long" />
        <PasswordInput id="pw-confirm" label="Confirm New Password" value={form.confirm} onChange={(v) => setForm({ ...form, confirm: v })} autoComplete="new-password" />
      </div>
      <Flash msg={msg} />
      <button type="submit" className="btn btn-primary" disabled={busy || !form.current || !form.next || !form.confirm}>Change Password</button>
    </form>
  );
}

export function TwoFactorCard() {
  const { api } = useServices();
  const [enabled, setEnabled] = useState<boolean | null>(null);
  const [setupOpen, setSetupOpen] = useState(false);
  const [confirmOpen, setConfirmOpen] = useState(false);
  const [msg, setMsg] = useState<Msg>(null);

  useEffect(() => {
    api
      .get<{ enabled: boolean }>('/api/2fa/status')
      .then((res) => setEnabled(res.success ? !!res.data?.enabled : false))
      .catch(() => setEnabled(false));
  }, [api]);

  const disabled = () => {
    setConfirmOpen(false);
    setEnabled(false);
    setMsg({ kind: 'success', text: 'Two-factor authentication has been disabled' });
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

/** Disabling 2FA needs proof that the person at the keyboard owns the account: the current
 *  password, or a code from the authenticator app (or a backup code). */
export function DisableTwoFactorDialog({ onDisabled, onCancel }: { onDisabled(): void; onCancel(): void }) {
  const { api } = useServices();
  const [mode, setMode] = useState<'password' | 'token'>('password');
  const [value, setValue] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);

  const submit = async () => {
    if (!value.trim()) {
      setError(mode === 'password' ? 'Please enter your current password' : 'Please enter the verification code');
      return;
    }
    setBusy(true);
    setError('');
    try {
      const res = await api.post('/api/2fa/disable', mode === 'password' ? { password: value } : { token: value.trim() });
      if (res.success) onDisabled();
      else setError(res.error || 'Failed to disable 2FA');
    } catch {
      setError('An error occurred while disabling 2FA');
    } finally {
      setBusy(false);
    }
  };

  const label = mode === 'password' ? 'Current password' : 'Verification or backup code';
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
          <label htmlFor="tfa-disable-proof">{label}</label>
          <input
            id="tfa-disable-proof"
            type={mode === 'password' ? 'password' : 'text'}
            autoComplete={mode === 'password' ? 'current-password' : 'one-time-code'}
            inputMode={mode === 'password' ? undefined : 'numeric'}
            value={value}
            onChange={(e) => setValue(e.target.value)}
            aria-invalid={error ? true : undefined}
          />
        </div>
        {error && <div className="alert alert-error" role="alert">{error}</div>}
        <button type="button" className="btn btn-ghost btn-sm" onClick={() => { setMode(mode === 'password' ? 'token' : 'password'); setValue(''); setError(''); }}>
          {mode === 'password' ? 'Use a code from your authenticator app instead' : 'Use your password instead'}
        </button>
      </form>
    </ConfirmDialog>
  );
}

type SubState = { kind: 'loading' } | { kind: 'none' } | { kind: 'error' } | { kind: 'ok'; sub: Subscription };

export function SubscriptionCard() {
  const { api } = useServices();
  const [state, setState] = useState<SubState>({ kind: 'loading' });

  const load = useCallback(async () => {
    setState({ kind: 'loading' });
    try {
      const res = await api.get<Subscription>('/api/billing/subscription');
      if (res.status === 404) setState({ kind: 'none' });
      else if (res.success && res.data) setState({ kind: 'ok', sub: res.data });
      else setState({ kind: 'error' });
    } catch {
      setState({ kind: 'error' });
    }
  }, [api]);

  useEffect(() => {
    void load();
  }, [load]);

  return (
    <section className="card settings-card" aria-labelledby="sub-title">
      <h2 id="sub-title">Subscription &amp; Billing</h2>
      {state.kind === 'loading' && <Spinner />}
      {state.kind === 'error' && (
        <div className="alert alert-error" role="alert">
          Failed to fetch subscription details{' '}
          <button type="button" className="btn btn-secondary btn-sm" onClick={() => void load()}>Retry</button>
        </div>
      )}
      {state.kind === 'none' && (
        <div className="sub-empty">
          <p className="strong">No active subscription</p>
          <p className="muted">No active subscription found</p>
          <Link to="/pricing" className="btn btn-primary">View Plans</Link>
        </div>
      )}
      {state.kind === 'ok' && (
        <>
          <dl className="detail-list">
            <div><dt>Plan</dt><dd>{state.sub.package_name}</dd></div>
            <div><dt>Price</dt><dd>{formatPrice(state.sub.price, state.sub.currency)}/month</dd></div>
            <div><dt>Status</dt><dd><span className={`badge badge-${subscriptionTone(state.sub.status)}`}>{state.sub.status}</span></dd></div>
            <div><dt>Current period start</dt><dd>{formatDate(state.sub.current_period_start)}</dd></div>
            <div><dt>Current period end</dt><dd>{formatDate(state.sub.current_period_end)}</dd></div>
          </dl>
          {Number(state.sub.price) === 0 ? (
            <p className="muted">Free plans do not require billing management.</p>
          ) : state.sub.customer_portal_url ? (
            <a className="btn btn-primary" href={state.sub.customer_portal_url}>Manage Billing</a>
          ) : (
            <p className="muted">Portal link unavailable. Please refresh or contact support.</p>
          )}
        </>
      )}
    </section>
  );
}

export function ProfilePage() {
  const { api, auth } = useServices();
  const user = useAuth((s) => s.user);
  const [profile, setProfile] = useState<Profile | null>(null);
  const [account, setAccount] = useState<{ name: string; price: string; status: string } | null>(null);

  useEffect(() => {
    let live = true;
    (async () => {
      try {
        const [p, d, s, pk] = await Promise.all([
          api.get<Profile>('/api/users/profile'),
          api.get<Dashboard>('/api/users/dashboard'),
          api.get<Subscription>('/api/billing/subscription'),
          api.publicRequest<Package[]>('GET', '/api/public/packages'),
        ]);
        if (!live) return;
        if (p.success) setProfile({ username: p.data.username, email: p.data.email, timezone: p.data.timezone || 'UTC' });
        const sub = s.success ? s.data : null;
        const name = sub?.package_name ?? (d.success ? d.data.package_name : '') ?? 'Free';
        const pkg = pk.success ? pk.data.find((x) => x.package_name === name) : undefined;
        setAccount({
          name: name || 'Free',
          price: sub ? formatPrice(sub.price, sub.currency) : formatPrice(pkg?.price ?? 0, pkg?.currency),
          status: sub?.status ?? 'active',
        });
      } catch (err) {
        console.error('load profile failed', err);
      }
    })();
    return () => {
      live = false;
    };
  }, [api]);

  return (
    <div className="container page">
      <header className="dash-header">
        <div>
          <h1>Profile Settings</h1>
          <p className="page-sub">Manage your account, security and billing.</p>
        </div>
      </header>
      <div className="profile-grid">
        <div className="profile-col">
          <section className="card settings-card account-card" aria-labelledby="account-title">
            <h2 id="account-title">Account Information</h2>
            <div className="account-head">
              <span className="avatar avatar-lg" aria-hidden="true">{(user?.username ?? '?').slice(0, 1).toUpperCase()}</span>
              <div>
                <div className="strong">{user?.username}</div>
                <div className="muted small">{user?.email}</div>
              </div>
            </div>
            {account ? (
              <dl className="detail-list">
                <div><dt>Package</dt><dd>{account.name}</dd></div>
                <div><dt>Price</dt><dd>{account.price}/month</dd></div>
                <div><dt>Status</dt><dd><span className={`badge badge-${subscriptionTone(account.status)}`}>{account.status}</span></dd></div>
              </dl>
            ) : (
              <Spinner />
            )}
          </section>
          <SubscriptionCard />
        </div>
        <div className="profile-col">
          <section className="card settings-card" aria-labelledby="profile-title">
            <h2 id="profile-title">Profile</h2>
            {profile ? (
              <ProfileForm
                initial={profile}
                onSaved={(p) => {
                  const u = auth.getState().user;
                  if (u) auth.getState().setUser({ ...u, username: p.username, email: p.email, timezone: p.timezone });
                }}
              />
            ) : (
              <Spinner />
            )}
          </section>
          <section className="card settings-card" aria-labelledby="password-title">
            <h2 id="password-title">Change Password</h2>
            <ChangePasswordForm />
          </section>
          <TwoFactorCard />
        </div>
      </div>
    </div>
  );
}
