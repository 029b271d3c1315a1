// An endpoint's error budget (GET /api/users/endpoints/:id/slo): the dashboard row's chip, coloured
// by the share of the budget left, and the graphs modal's burn-down. Asked only for endpoints with
// an SLO target, so a list without SLOs makes no extra requests.
import { useEffect, useState } from 'react';
import type { Endpoint, SloStatus } from '@upfleet/proto/rest';
import { useServices } from '../../app-context';
import { formatDate } from '../../lib/format';

/** The chip's colour: half the budget or more left green, some left yellow, none red. */
export function budgetTone(s: Pick<SloStatus, 'error_budget'>): 'green' | 'yellow' | 'red' | 'grey' {
  const b = s.error_budget;
  if (!b || b.allowed_minutes <= 0) return 'grey';
  const left = b.remaining_minutes / b.allowed_minutes;
  return left >= 0.5 ? 'green' : left > 0 ? 'yellow' : 'red';
}

const minutes = (m: number) => `${Math.round(m).toLocaleString('en-GB')} min`;

export function useSlo(endpoint: Pick<Endpoint, 'url_id' | 'slo_target' | 'uptime_percentage'>): SloStatus | null {
  const { api } = useServices();
  const [slo, setSlo] = useState<SloStatus | null>(null);
  const wanted = endpoint.slo_target !== undefined;
  useEffect(() => {
    if (!wanted) return;
    let live = true;
    api.get<SloStatus>(`/api/users/endpoints/${endpoint.url_id}/slo`).then((r) => live && r.success && setSlo(r.data)).catch(() => undefined);
    return () => {
      live = false;
    };
    // a new uptime figure (a result arrived) is when the budget may have moved
  }, [api, endpoint.url_id, wanted, endpoint.uptime_percentage]);
  return wanted ? slo : null;
}

/** The dashboard row's chip: budget left of the SLO, or "budget spent". */
export function SloBudgetBadge({ endpoint }: { endpoint: Endpoint }) {
  const slo = useSlo(endpoint);
  if (!slo?.error_budget) return null;
  const b = slo.error_budget;
  const title = `SLO ${slo.slo_target}% over ${slo.slo_window_days} days: ${minutes(b.used_minutes)} of ${minutes(b.allowed_minutes)} used`
    + (slo.budget_exhausted_at ? `; runs out ${formatDate(slo.budget_exhausted_at)} at the last day's rate` : '');
  return (
    <span className={`badge badge-${budgetTone(slo)}`} data-testid="slo-badge" title={title}>
      {b.remaining_minutes > 0 ? `Budget ${minutes(b.remaining_minutes)} left` : 'Budget spent'}
    </span>
  );
}
