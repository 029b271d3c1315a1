// A row's live state at a glance: a status dot and word, and the heartbeat bar of the last 30 checks.
import type { EndpointStatus, RecentCheck } from '@upfleet/proto/rest';
import { formatTime } from '../../lib/format';
import { RECENT_SHOWN } from '../../lib/live-list';

export const STATUS_LABELS: Record<EndpointStatus, string> = { up: 'Up', down: 'Down', degraded: 'Degraded', maintenance: 'Maintenance', pending: 'Pending', paused: 'Paused' };

export function StatusWord({ status }: { status: EndpointStatus }) {
  return (
    <span className={`status-word status-${status}`} data-testid="status-word">
      <span className="status-dot" aria-hidden="true" />
      {STATUS_LABELS[status]}
    </span>
  );
}

const time = (at: number) => formatTime(at, { seconds: true });

/** Green passed, red failed, grey not yet checked; each bar's tooltip says when, the code and the time taken. */
export function HeartbeatBars({ recent }: { recent: RecentCheck[] }) {
  const failed = recent.filter((c) => !c.ok).length;
  return (
    <div className="beats" role="img" aria-label={`Last ${recent.length} checks, ${failed} failed`} data-testid="beats">
      {Array.from({ length: Math.max(0, RECENT_SHOWN - recent.length) }, (_, i) => (
        <span key={`none${i}`} className="beat beat-none" />
      ))}
      {recent.slice(-RECENT_SHOWN).map((c) => (
        <span
          key={c.at}
          className={`beat ${c.ok ? 'beat-up' : 'beat-down'}`}
          title={`${time(c.at)} · ${c.code ?? 'no response'}${c.ms !== null ? ` · ${c.ms} ms` : ''}`}
        />
      ))}
    </div>
  );
}

/** "checked 12 s ago" (the caller re-renders it every second). */
export function checkedAgo(at: string | null, now: number): string {
  if (!at) return 'not checked yet';
  const s = Math.max(0, Math.round((now - Date.parse(at)) / 1000));
  if (s < 60) return `checked ${s} s ago`;
  if (s < 3600) return `checked ${Math.floor(s / 60)} min ago`;
  if (s < 86_400) return `checked ${Math.floor(s / 3600)} h ago`;
  return `checked ${Math.floor(s / 86_400)} d ago`;
}
