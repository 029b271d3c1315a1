// What a plan change did and why (a downgrade switches monitoring off, never deletes), and the
// thank-you after a checkout. Back from Stripe the plan may change a moment later (the webhook),
// so after ?checkout=success the notices are polled briefly and the dashboard reloads on news.
import { useCallback, useEffect, useRef, useState } from 'react';
import { useSearchParams } from 'react-router-dom';
import type { PlanChangeNotice } from '@upfleet/proto/rest';
import { useServices } from '../../app-context';
import { mayOffer, useWorkspaces } from '../../lib/workspaces';

const POLL_MS = 3000;
const POLL_TRIES = 20;

export function PlanNotices({ onPlanChanged }: { onPlanChanged: () => void }) {
  const { api } = useServices();
  const mayDismiss = mayOffer(useWorkspaces().role, 'admin'); // the server lets admins dismiss
  const [params] = useSearchParams();
  const checkoutDone = params.get('checkout') === 'success';
  const [notices, setNotices] = useState<PlanChangeNotice[]>([]);
  const [thanks, setThanks] = useState(checkoutDone);
  // The page passes a new function each render: held in a ref, so a re-render (every live event,
  // every keystroke in the search box) does not fetch the notices again.
  const planChanged = useRef(onPlanChanged);
  planChanged.current = onPlanChanged;

  const load = useCallback(async (): Promise<PlanChangeNotice[]> => {
    try {
      const res = await api.get<PlanChangeNotice[]>('/api/billing/notices');
      if (res.success) {
        setNotices(res.data ?? []);
        return res.data ?? [];
      }
    } catch (err) {
      console.error('load plan notices failed', err);
    }
    return [];
  }, [api]);

  useEffect(() => {
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    void load().then((first) => {
      if (!checkoutDone || !live) return;
      const seen = new Set(first.map((n) => n.id));
      let tries = 0;
      const poll = async () => {
        if (!live || ++tries > POLL_TRIES) return;
        const now = await load();
        if (now.some((n) => !seen.has(n.id))) planChanged.current();
        else timer = setTimeout(() => void poll(), POLL_MS);
      };
      timer = setTimeout(() => void poll(), POLL_MS);
    });
    return () => {
      live = false;
      if (timer) clearTimeout(timer);
    };
  }, [load, checkoutDone]);

  const dismiss = async (id: number) => {
    setNotices((list) => list.filter((n) => n.id !== id));
    try {
      await api.post(`/api/billing/notices/${id}/dismiss`);
    } catch (err) {
      console.error('dismiss notice failed', err);
    }
  };

  if (!thanks && notices.length === 0) return null;
  return (
    <div className="plan-notices">
      {thanks && (
        <div className="alert alert-success" role="status">
          Thank you! Your payment went through; your new plan applies as soon as Stripe confirms it.{' '}
          <button type="button" className="btn btn-secondary btn-sm" onClick={() => setThanks(false)}>Dismiss</button>
        </div>
      )}
      {notices.map((n) => (
        <div key={n.id} className={`alert ${n.disabled_endpoints.length > 0 ? 'alert-warning' : 'alert-info'}`} role="status" data-testid="plan-notice">
          {n.message}{' '}
          {mayDismiss && <button type="button" className="btn btn-secondary btn-sm" onClick={() => void dismiss(n.id)}>Dismiss</button>}
        </div>
      ))}
    </div>
  );
}
