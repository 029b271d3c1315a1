import { useEffect, useState, type FormEvent } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router-dom';
import { useServices } from '../app-context';
import { useNextPage, withNext } from '../lib/next-page';
import { validateSignup } from '../lib/validation';
import { PasswordInput } from '../components/PasswordInput';
import { CheckIcon } from '../components/Icons';
import { LIMITS, type Package } from '@upfleet/proto/rest';
import { pricingLines } from '@upfleet/proto/plan';
import { Field } from '../components/Field';

const FREE_PLAN_ITEMS = [
  '10 endpoints',
  'Checks every 5 minutes',
  'EU - Germany region',
  'Basic email alerts',
  '30-day data retention',
];

/** The plan a new account starts on when the server's DEFAULT_PACKAGE is not Free (null: Free). */
function useStartingPlan(): Package | null {
  const { api } = useServices();
  const [plan, setPlan] = useState<Package | null>(null);
  useEffect(() => {
    let live = true;
    void (async () => {
      const billing = await api.publicRequest<{ default_package?: string }>('GET', '/api/public/billing');
      const name = billing.success ? billing.data.default_package : undefined;
      if (!name || name.toLowerCase() === 'free') return;
      const packages = await api.publicRequest<Package[]>('GET', '/api/public/packages');
      const pkg = packages.success ? packages.data.find((p) => p.package_name === name) : undefined;
      if (live && pkg) setPlan(pkg);
    })().catch(() => undefined);
    return () => {
      live = false;
    };
  }, [api]);
  return plan;
}

export function SignupPage() {
  const { actions } = useServices();
  const startingPlan = useStartingPlan();
  const navigate = useNavigate();
  // Back from an anonymous checkout: the new account claims the paid subscription.
  const checkoutSession = useSearchParams()[0].get('checkout_session') ?? undefined;
  const next = useNextPage();
  const [form, setForm] = useState({ username: '', email: '', password: '', confirmPassword: '' });
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const set = (k: keyof typeof form) => (v: string) => setForm((f) => ({ ...f, [k]: v }));

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const invalid = validateSignup(form);
    if (invalid) {
      setError(invalid);
      return;
    }
    setBusy(true);
    setError('');
    const out = await actions.signup(form.username.trim(), form.email.trim(), form.password, checkoutSession);
    setBusy(false);
    if (out.ok) void navigate(next ?? '/dashboard');
    else setError(out.error);
  };

  return (
    <div className="auth-page">
      <div className="auth-split">
        <div className="card auth-card">
          <h1>Create your account</h1>
          <p className="muted">Start monitoring for free</p>
          {checkoutSession && (
            <div className="alert alert-success" role="status">
              Payment received. Create your account to activate your plan, or{' '}
              <Link to={`/login?checkout_session=${encodeURIComponent(checkoutSession)}`}>sign in</Link> to add it to an existing one.
            </div>
          )}
          <form onSubmit={submit} noValidate>
            <Field id="signup-username" label="Username">
              <input id="signup-username" value={form.username} onChange={(e) => set('username')(e.target.value)} autoComplete="username" required minLength={LIMITS.usernameMin} maxLength={LIMITS.usernameMax} />
            </Field>
            <Field id="signup-email" label="Email">
              <input id="signup-email" type="email" value={form.email} onChange={(e) => set('email')(e.target.value)} autoComplete="email" required />
            </Field>
            <PasswordInput id="signup-password" label="Password" value={form.password} onChange={set('password')} autoComplete="new-password" hint="Must be at least 8 characters long" />
            <PasswordInput id="signup-confirm" label="Confirm Password" value={form.confirmPassword} onChange={set('confirmPassword')} autoComplete="new-password" />
            {error && <div className="alert alert-error" role="alert">{error}</div>}
            <button type="submit" className="btn btn-primary btn-block" disabled={busy}>{busy ? 'Creating account...' : 'Create Account'}</button>
          </form>
          <p className="auth-switch">Already have an account? <Link to={withNext('/login', next)}>Sign in</Link></p>
        </div>
        {startingPlan ? (
          <aside className="card plan-aside" aria-label={`${startingPlan.package_name} plan`}>
            <h2>Your account starts on the {startingPlan.package_name} plan</h2>
            <ul className="check-list">
              {pricingLines(startingPlan).map((i) => (
                <li key={i}><CheckIcon width={16} height={16} /> {i}</li>
              ))}
            </ul>
          </aside>
        ) : (
          <aside className="card plan-aside" aria-label="Free plan">
            <h2>The Free plan includes</h2>
            <ul className="check-list">
              {FREE_PLAN_ITEMS.map((i) => (
                <li key={i}><CheckIcon width={16} height={16} /> {i}</li>
              ))}
            </ul>
            <p className="muted">Response Code monitoring is on by default. Upgrade any time for more regions and features.</p>
          </aside>
        )}
      </div>
    </div>
  );
}
