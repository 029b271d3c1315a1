// What `upfleet cluster status` shows: the processes that said they are alive, their versions, and
// which one holds the leader lease since when.
import { createClusterRepo } from '../store/cluster-repo';
import type { Sql } from '../store/sql/open';
import type { ClusterStatus } from '@upfleet/proto/rest';
import { LEADER_LEASE } from './leader-lease';

export type { ClusterProcess, ClusterStatus } from '@upfleet/proto/rest';

export function createClusterStatus(deps: { sql: () => Sql; processId: string; now?: () => number }) {
  const now = deps.now ?? Date.now;
  return {
    async status(): Promise<ClusterStatus> {
      const sql = deps.sql();
      const repo = createClusterRepo(sql.db);
      const [row, rows] = await Promise.all([repo.current(LEADER_LEASE), repo.listProcesses()]);
      const held = row && row.expires_at > now() ? row : null;
      const iso = (ms: number) => new Date(ms).toISOString();
      return {
        database: sql.dialect,
        lease: held ? { holder: held.holder, epoch: held.epoch, since: iso(held.acquired_at), expires_at: iso(held.expires_at) } : null,
        processes: rows.map((p) => ({
          id: p.id, host: p.host, pid: p.pid, version: p.version, started_at: iso(p.started_at), last_seen: iso(p.last_seen),
          leader: held?.holder === p.id, this_process: p.id === deps.processId,
        })),
      };
    },
  };
}
export type ClusterStatusService = ReturnType<typeof createClusterStatus>;
