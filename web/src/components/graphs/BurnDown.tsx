// The graphs modal's error-budget burn-down: the budget left at the end of each day of the SLO
// window (from GET /api/users/endpoints/:id/slo), drawn like the other graphs.
import { useMemo } from 'react';
import Chart from 'react-apexcharts';
import type { ApexOptions } from 'apexcharts';
import type { Endpoint } from '@upfleet/proto/rest';
import { useSlo } from '../dashboard/SloBudget';
import { formatAxis, formatDate } from '../../lib/format';

export function BurnDown({ endpoint }: { endpoint: Endpoint }) {
  const slo = useSlo(endpoint);
  const options = useMemo<ApexOptions>(() => ({
    chart: { id: `burn-down-${endpoint.url_id}`, toolbar: { show: false }, animations: { enabled: false } },
    xaxis: { type: 'numeric', labels: { formatter: (v: string) => formatAxis(Number(v), 3 * 86_400_000) } },
    yaxis: { title: { text: 'minutes left' }, labels: { formatter: (v: number) => v.toFixed(0) } },
    dataLabels: { enabled: false },
    stroke: { width: 2, curve: 'straight' },
    colors: ['#2563eb'],
  }), [endpoint.url_id]);
  if (!slo?.error_budget) return null;
  const b = slo.error_budget;
  return (
    <section className="graph-card" data-testid="burn-down" aria-label="Error budget burn-down">
      <h3>Error budget · SLO {slo.slo_target}% over {slo.slo_window_days} days</h3>
      <p className="muted">
        {b.remaining_minutes.toFixed(1)} of {b.allowed_minutes.toFixed(1)} minutes left
        {slo.burn_rate_1h !== null && ` · burn rate ${slo.burn_rate_1h} (1 h)`}
        {slo.burn_rate_24h !== null && `, ${slo.burn_rate_24h} (24 h)`}
        {slo.budget_exhausted_at && ` · runs out ${formatDate(slo.budget_exhausted_at)}`}
      </p>
      {slo.burn_down.length > 0 && <Chart type="area" height={200} options={options} series={[{ name: 'Budget left', data: slo.burn_down }]} />}
    </section>
  );
}
