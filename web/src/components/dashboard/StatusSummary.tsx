// Up, down and paused counts on top of the dashboard (degraded, maintenance and pending when there are any),
// each a filter: pressing one shows only those endpoints, pressing it again shows all.
import { ENDPOINT_STATUSES, type EndpointStatus, type StatusCounts } from '@upfleet/proto/rest';
import type { StreamState } from '../../lib/event-stream';
import { STATUS_LABELS } from './LiveStatus';

const ALWAYS: EndpointStatus[] = ['up', 'down', 'paused'];

export function StatusSummary({ counts, selected, onSelect, stream }: {
  counts: StatusCounts;
  selected: EndpointStatus[];
  onSelect: (status: EndpointStatus[]) => void;
  stream: StreamState | null;
}) {
  const shown = ENDPOINT_STATUSES.filter((s) => ALWAYS.includes(s) || (counts[s] ?? 0) > 0);
  return (
    <div className="status-summary" role="group" aria-label="Endpoints by status">
      {shown.map((s) => {
        const on = selected.length === 1 && selected[0] === s;
        return (
          <button key={s} type="button" className={`summary-pill status-${s}${on ? ' is-on' : ''}`} aria-pressed={on} data-testid={`count-${s}`} onClick={() => onSelect(on ? [] : [s])}>
            <span className="status-dot" aria-hidden="true" />
            <strong>{(counts[s] ?? 0).toLocaleString('en-US')}</strong> {STATUS_LABELS[s]}
          </button>
        );
      })}
      {stream && (
        <span className={`stream-state stream-${stream}`} role="status" data-testid="stream-state">
          {stream === 'live' ? 'Live' : stream === 'reconnecting' ? 'Reconnecting…' : 'Connecting…'}
        </span>
      )}
    </div>
  );
}
