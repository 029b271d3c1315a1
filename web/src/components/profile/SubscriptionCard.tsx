// The current subscription and the billing portal link, or an offer to pick a plan.
import { useCallback, useEffect, useState } from 'react';
import { Link } from 'react-router-dom';
import type { Subscription } from '@upfleet/proto/rest';
import { useServices } from '../../app-context';
import { Spinner } from '../Spinner';
import { formatDate, formatPrice, subscriptionTone } from '../../lib/format';
import { useWorkspaces } from '../../lib/workspaces';

type SubState = { kind: 'loading' } | { kind: 'none' } | { kind: 'error' } | { kind: 'ok'; sub: Subscription };

/** Asked so that "none" is an answer, not a failing call (a page shows this card on load). */
export const SUBSCRIPTION_PATH = '/api/billing/subscription?optional=1';

/** `loaded`: the page's answer (null: none), so the card and the page's summary read one call. */
export function SubscriptionCard({ loaded }: { loaded?: Subscription | null | 'error' | 'loading' } = {}) {
  const { api } = useServices();
  const workspace = useWorkspaces();
  const [state, setState] = useState<SubState>({ kind: 'loading' });

  const load = useCallback(async () => {
    setState({ kind: 'loading' });
    try {
      const res = await api.get<Subscription | null>(SUBSCRIPTION_PATH);
      if (res.status === 404 || (res.success && !res.data)) setState({ kind: 'none' });
      else if (res.success && res.data) setState({ kind: 'ok', sub: res.data });
      else setState({ kind: 'error' });
    } catch {
      setState({ kind: 'error' });
    }
  }, [api]);

  useEffect(() => {
    if (loaded === undefined) void load();
    else if (loaded === 'loading') setState({ kind: 'loading' });
    else setState(loaded === 'error' ? { kind: 'error' } : loaded ? { kind: 'ok', sub: loaded } : { kind: 'none' });
  }, [load, loaded]);

  return (
    <section className="card settings-card" aria-labelledby="sub-title">
      <h2 id="sub-title">Subscription &amp; Billing</h2>
      {workspace.current && (
        <p className="muted" data-testid="workspace-plan">Workspace <strong>{workspace.current.name}</strong> is on the <strong>{workspace.current.package_name}</strong> plan.</p>
      )}
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
