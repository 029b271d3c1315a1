// `upfleet cluster status`: one row per control-plane process, then who holds the leader lease.
import type { ClusterProcess, ClusterStatus } from '../api/types';
import { cellText, formatTable, type Column } from './table';
import { formatDate, formatRelative } from './time';

export function clusterColumns(nowMs: number): Column<ClusterProcess>[] {
  return [
    { header: 'PROCESS', value: (p) => `${p.id.slice(0, 8)}${p.this_process ? ' (answered)' : ''}` },
    { header: 'HOST', value: (p) => p.host },
    { header: 'PID', value: (p) => p.pid, align: 'right' },
    { header: 'VERSION', value: (p) => p.version },
    { header: 'STARTED', value: (p) => formatDate(p.started_at) },
    { header: 'LAST SEEN', value: (p) => formatRelative(p.last_seen, nowMs) },
    { header: 'LEADER', value: (p) => p.leader },
  ];
}

export function formatClusterStatus(s: ClusterStatus, nowMs: number): string {
  const table = s.processes.length === 0 ? 'No control-plane process has reported yet.\n' : formatTable(clusterColumns(nowMs), s.processes);
  const holder = s.lease && s.processes.find((p) => p.id === s.lease!.holder);
  const lease = s.lease
    ? `Leader: ${cellText(s.lease.holder.slice(0, 8))}${holder ? ` on ${cellText(holder.host)} (pid ${holder.pid})` : ''}, epoch ${s.lease.epoch}, since ${formatDate(s.lease.since)} UTC (${formatRelative(s.lease.since, nowMs)})`
    : 'Leader: none (the lease lapsed; a process takes it over at its next renewal)';
  const where = s.database === 'postgres' ? 'Lease and processes: Postgres (DATABASE_URL)' : 'Lease and processes: SQLite (one process per DATA_DIR)';
  return `${table}\n${lease}\n${where}\n`;
}
