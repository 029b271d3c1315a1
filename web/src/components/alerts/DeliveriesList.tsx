// The last 50 deliveries of one alert method: time, event, status, attempts, last error.
import type { AlertDelivery } from '@upfleet/proto/rest';
import { formatDateTime } from '../../lib/format';
import { Spinner } from '../Spinner';

const EVENT_LABELS: Record<AlertDelivery['event'], string> = {
  opened: 'Incident opened', resolved: 'Incident resolved', test: 'Test', reminder: 'Reminder', acknowledged: 'Acknowledged',
};
const STATUS_TONES: Record<AlertDelivery['status'], string> = { delivered: 'badge-green', pending: 'badge-yellow', failed: 'badge-red' };

export function DeliveriesList({ deliveries }: { deliveries: AlertDelivery[] | null }) {
  if (!deliveries) return <Spinner />;
  if (deliveries.length === 0) return <p className="muted small">No deliveries yet.</p>;
  return (
    <table className="delivery-table" aria-label="Deliveries">
      <thead><tr><th>Time</th><th>Event</th><th>Status</th><th className="hide-sm">Attempts</th><th>Last error</th></tr></thead>
      <tbody>
        {deliveries.map((d) => (
          <tr key={d.delivery_id} data-testid="delivery-row">
            <td>{formatDateTime(d.created_at)}</td>
            <td>{EVENT_LABELS[d.event]}</td>
            <td><span className={`badge ${STATUS_TONES[d.status]}`}>{d.status}</span></td>
            <td className="hide-sm">{d.attempts}</td>
            <td>{d.last_error ?? ''}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
