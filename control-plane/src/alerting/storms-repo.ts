// SQLite access for storms (grouped messages). better-sqlite3 for the reason escalation-repo.ts
// gives: a group is decided and its outbox rows written in the escalation worker's synchronous
// transaction. A workspace's group threshold lives here too (alert_settings; no row: the default).
import type { Db } from '../store/db';
import type { EscalationRow } from './escalation-repo';
import type { IncidentRow } from './repo';

/** More than this many incidents opening in a workspace within STORM_WINDOW_MS are a storm (a workspace may change it). */
export const DEFAULT_GROUP_THRESHOLD = 5;
export const GROUP_THRESHOLD_MIN = 2;
export const GROUP_THRESHOLD_MAX = 100;

export interface ResolvedGroupMember extends IncidentRow {
  group_id: number;
  resolved_at: number;
  resolved_silently: number;
}

export function createStormsRepo(db: Db) {
  const q = {
    threshold: db.prepare('SELECT group_threshold FROM alert_settings WHERE user_id = ?').pluck(),
    setThreshold: db.prepare(`INSERT INTO alert_settings (user_id, group_threshold, updated_at) VALUES (?, ?, ?)
      ON CONFLICT (user_id) DO UPDATE SET group_threshold = excluded.group_threshold, updated_at = excluded.updated_at`),
    // Silenced children send nothing, so they make no storm.
    openedSince: db.prepare('SELECT COUNT(*) FROM incidents WHERE user_id = ? AND opened_at > ? AND suppressed_by IS NULL').pluck(),
    pendingFirst: db.prepare(`SELECT e.* FROM incident_escalations e JOIN incidents i ON i.incident_id = e.incident_id
      WHERE i.user_id = ? AND e.next_step = 0 AND e.next_repeat = 0 AND e.due_at IS NOT NULL AND e.due_at <= ?
        AND i.resolved_at IS NULL AND i.acknowledged_at IS NULL AND i.group_id IS NULL
      ORDER BY i.opened_at, i.incident_id LIMIT ?`),
    createGroup: db.prepare('INSERT INTO incident_groups (user_id, created_at) VALUES (?, ?)'),
    setGroup: db.prepare('UPDATE incidents SET group_id = ? WHERE incident_id = ? AND group_id IS NULL'),
    unannounced: db.prepare(`SELECT * FROM incidents WHERE group_id IS NOT NULL AND resolved_at IS NOT NULL AND group_recovery_sent = 0
      ORDER BY group_id, incident_id LIMIT ?`),
    openIn: db.prepare('SELECT COUNT(*) FROM incidents WHERE group_id = ? AND resolved_at IS NULL').pluck(),
    markRecovery: db.prepare('UPDATE incidents SET group_recovery_sent = 1 WHERE incident_id = ? AND group_recovery_sent = 0'),
    openings: db.prepare(`SELECT alert_method_id, payload FROM alert_deliveries WHERE group_id = ? AND event = 'opened' ORDER BY delivery_id`),
  };
  return {
    /** The workspace's group threshold (2–100; default 5). */
    threshold: (userId: number): number => (q.threshold.get(userId) as number | undefined) ?? DEFAULT_GROUP_THRESHOLD,
    setThreshold: (userId: number, n: number, at: number) => void q.setThreshold.run(userId, n, at),
    openedSince: (userId: number, since: number) => q.openedSince.get(userId, since) as number,
    /** The workspace's incidents whose first step is still to be sent and due by `dueBy`, oldest first. */
    pendingFirstSteps: (userId: number, dueBy: number, limit: number) => q.pendingFirst.all(userId, dueBy, limit) as EscalationRow[],
    createGroup: (userId: number, at: number): number => Number(q.createGroup.run(userId, at).lastInsertRowid),
    setGroup: (incidentId: number, groupId: number) => q.setGroup.run(groupId, incidentId).changes === 1,
    /** Resolved members of groups whose recovery was not told yet, by group. */
    unannouncedRecoveries: (limit: number) => q.unannounced.all(limit) as ResolvedGroupMember[],
    openInGroup: (groupId: number) => q.openIn.get(groupId) as number,
    /** Compare-and-set: true once per incident. */
    markRecoverySent: (incidentId: number) => q.markRecovery.run(incidentId).changes === 1,
    /** The group's opening deliveries: to which method, listing which incidents. */
    openings(groupId: number): Array<{ methodId: number; incidentIds: number[] }> {
      return (q.openings.all(groupId) as Array<{ alert_method_id: number; payload: string }>).map((r) => {
        const e = JSON.parse(r.payload) as { group?: { incidents: Array<{ incident: { id: number } }> } };
        return { methodId: r.alert_method_id, incidentIds: e.group?.incidents.map((g) => g.incident.id) ?? [] };
      });
    },
  };
}
export type StormsRepo = ReturnType<typeof createStormsRepo>;
