import { useEffect, useState } from 'react';
import { Link } from 'react-router-dom';
import { MESSAGES, type CheckoutSession, type Dashboard, type Package } from '@upfleet/proto/rest';
import { useAuth, useServices } from '../app-context';
import { pricingLines } from '@upfleet/proto/plan';
import { formatPrice } from '../lib/format';
import { isEmail } from '../lib/validation';
import { Spinner } from '../components/Spinner';
import { Modal } from '../components/Modal';
import { CheckIcon } from '../components/Icons';
import { Field } from '../components/Field';

// The card's lines come from the plan policy's table (@upfleet/proto/plan), the same table the
// server enforces: a line is shown only for what a plan is held to.
const planFeatures = (p: Package): string[] => pricingLines(p);

export function PricingPage() {
  const { api } = useServices();
  const signedIn = useAuth((s) => s.status === 'authenticated');
  const [packages, setPackages] = useState<Package[] | null>(null);
  const [error, setError] = useState('');
  const [processing, setProcessing] = useState<number | null>(null);
  const [emailFor, setEmailFor] = useState<Package | null>(null);
  const [email, setEmail] = useState('');
  const [emailError, setEmailError] = useState('');
  const [currentPlan, setCurrentPlan] = useState<string | null>(null);
  // null until known: no checkout button is offered before the server says it can sell plans.
  const [billingOn, setBillingOn] = useState<boolean | null>(null);

  useEffect(() => {
    api
      .publicRequest<Package[]>('GET', '/api/public/packages')
      .then((res) => (res.success ? setPackages(res.data) : setError(res.error)))
      .catch(() => setError('Failed to load plans'));
  }, [api]);

  useEffect(() => {
    api
      .publicRequest<{ enabled: boolean }>('GET', '/api/public/billing')
      .then((res) => setBillingOn(res.success ? res.data.enabled : true))
      .catch(() => setBillingOn(true));
  }, [api]);

  useEffect(() => {
    if (!signedIn) return;
    api
      .get<Dashboard>('/api/users/dashboard')
      .then((res) => res.success && setCurrentPlan(res.data.package_name))
      .catch((err) => console.error('load current plan failed', err));
  }, [api, signedIn]);

  const checkout = async (p: Package, anonymousEmail?: string) => {
    // A plan without a Stripe price cannot be bought: the button does nothing.
    if (!p.stripe_price_id) return;
    setProcessing(p.package_id);
    try {
      const body = { priceId: p.stripe_price_id, packageId: p.package_id, packageName: p.package_name };
      const res = signedIn
        ? await api.post<CheckoutSession>('/api/billing/create-checkout-session', body)
        : await api.publicRequest<CheckoutSession>('POST', '/api/public/create-checkout-session', { ...body, email: anonymousEmail });
      // A paying user gets the customer portal's address instead of a second subscription.
      if (res.success && res.data?.url) {
        window.location.assign(res.data.url);
        return;
      }
      console.error('checkout failed', res.status, res.success ? 'no url' : res.error);
    } catch (err) {
      console.error('checkout failed', err);
    }
    setProcessing(null);
  };

  const choose = (p: Package) => {
    if (!p.stripe_price_id) return;
    if (signedIn) void checkout(p);
    else {
      setEmailFor(p);
      setEmailError('');
    }
  };

  return (
    <div className="container page">
      <header className="page-header center">
        <h1>Simple, transparent pricing</h1>
        <p className="page-sub">Start free. Upgrade when you need more endpoints, faster checks and more regions.</p>
      </header>
      {billingOn === false && (
        <div className="alert alert-info" role="note">{MESSAGES.plansSetByOperator}</div>
      )}
      {error && <div className="alert alert-error" role="alert">{error}</div>}
      {!packages && !error && <Spinner />}
      {packages && (
        <div className="pricing-grid">
          {packages.map((p, i) => {
            const free = Number(p.price) === 0;
            const current = signedIn && currentPlan === p.package_name;
            const featured = !free && i === (packages.length >= 4 ? 2 : 1);
            return (
              <article key={p.package_id} className={`card pricing-card${featured ? ' featured' : ''}`} aria-label={`${p.package_name} plan`}>
                {featured && <span className="ribbon">Most popular</span>}
                <h2 className="plan-name">{p.package_name}</h2>
                <p className="plan-desc">{p.description}</p>
                <p className="plan-price">
                  <span className="amount">{formatPrice(p.price, p.currency)}</span>
                  <span className="per">/month</span>
                </p>
                <ul className="check-list">
                  {planFeatures(p).map((f) => (
                    <li key={f}><CheckIcon width={16} height={16} /> {f}</li>
                  ))}
                </ul>
                {current && !free ? (
                  <button type="button" className="btn btn-block btn-secondary" disabled>Current Plan</button>
                ) : free ? (
                  <Link to={signedIn ? '/dashboard' : '/signup'} className="btn btn-secondary btn-block">
                    {signedIn ? 'Go to Dashboard' : 'Get Started Free'}
                  </Link>
                ) : billingOn === false ? (
                  <p className="plan-operator muted">Set by the operator of this server</p>
                ) : (
                  <button
                    type="button"
                    className={`btn btn-block ${featured ? 'btn-primary' : 'btn-dark'}`}
                    onClick={() => choose(p)}
                    disabled={processing === p.package_id}
                  >
                    {processing === p.package_id ? 'Processing...' : `Choose ${p.package_name}`}
                  </button>
                )}
              </article>
            );
          })}
        </div>
      )}
      {emailFor && (
        <Modal title={`Subscribe to ${emailFor.package_name}`} onClose={() => setEmailFor(null)} size="sm">
          <form
            onSubmit={(e) => {
              e.preventDefault();
              if (!isEmail(email)) {
                setEmailError('Please enter a valid email address');
                return;
              }
              const p = emailFor;
              setEmailFor(null);
              void checkout(p, email.trim());
            }}
          >
            <Field id="checkout-email" label="Email" error={emailError}>
              <input id="checkout-email" type="email" value={email} onChange={(e) => setEmail(e.target.value)} required autoComplete="email" />
            </Field>
            <div className="modal-actions">
              <button type="button" className="btn btn-secondary" onClick={() => setEmailFor(null)}>Cancel</button>
              <button type="submit" className="btn btn-primary">Continue to Checkout</button>
            </div>
          </form>
        </Modal>
      )}
    </div>
  );
}
