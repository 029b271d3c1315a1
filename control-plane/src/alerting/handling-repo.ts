// What handling incidents reads and writes on the existing SQLite tables (incidents, deliveries,
// members' names): the list and one incident with who acknowledged, the acknowledge compare-and-set,
// an incident's deliveries and the MTTA/MTTR aggregate. Every query a user's answer comes from names
// the workspace (incidents.user_id); the link path reads by id, its signed token being the authority.
import type { IncidentState } from '@upfleet/proto/rest';
import type { Db } from '../store/db';
import type { IncidentRow } from './repo';

/** An incident with who acknowledged it and its endpoint's name. */
export interface HandledIncidentRow extends IncidentRow {
  acknowledged_at: number | null;
  acknowledged_by: number | null;
  acker_name: string | null;
  acker_email: string | null;
  endpoint_name: string | null;
}

export interface IncidentDeliveryRow {
  delivery_id: number;
  alert_method_id: number;
  platform: string | null;
  event: string;
  step: number | null;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  last_error: string | null;
  created_at: number;
  delivered_at: number | null;
}

export interface StatsRow {
  url_id: number;
  endpoint_name: string | null;
  incidents: number;
  acknowledged: number;
  resolved: number;
  mtta_ms: number | null;
  mttr_ms: number | null;
}

const SELECT = `SELECT i.incident_id, i.user_id, i.url_id, i.condition, i.regions, i.cause, i.flapping, i.opened_at, i.resolved_at, i.suppressed_by,
    i.acknowledged_at, i.acknowledged_by, i.group_id, u.username AS acker_name, u.email AS acker_email, e.name AS endpoint_name
  FROM incidents i LEFT JOIN users u ON u.id = i.acknowledged_by LEFT JOIN endpoints e ON e.url_id = i.url_id AND e.user_id = i.user_id`;

export function createHandlingRepo(db: Db) {
  const q = {
    list: db.prepare(`${SELECT} WHERE i.user_id = @user_id
        AND (@url_id IS NULL OR i.url_id = @url_id)
        AND (@status IS NULL OR (@status = 'open' AND i.resolved_at IS NULL) OR (@status = 'resolved' AND i.resolved_at IS NOT NULL))
        AND (@state IS NULL
          OR (@state = 'open' AND i.resolved_at IS NULL AND i.acknowledged_at IS NULL)
          OR (@state = 'acknowledged' AND i.resolved_at IS NULL AND i.acknowledged_at IS NOT NULL)
          OR (@state = 'resolved' AND i.resolved_at IS NOT NULL))
      ORDER BY i.opened_at DESC, i.incident_id DESC LIMIT @limit`),
    one: db.prepare(`${SELECT} WHERE i.incident_id = ? AND i.user_id = ?`),
    byId: db.prepare(`${SELECT} WHERE i.incident_id = ?`),
    group: db.prepare(`${SELECT} WHERE i.group_id = ? ORDER BY i.incident_id`),
    // The compare-and-set, and the only statement that acknowledges: only an incident of the
    // workspace that is neither resolved nor acknowledged changes.
    acknowledge: db.prepare(`UPDATE incidents SET acknowledged_at = ?, acknowledged_by = ?
      WHERE incident_id = ? AND user_id = ? AND resolved_at IS NULL AND acknowledged_at IS NULL`),
    deliveries: db.prepare(`SELECT d.delivery_id, d.alert_method_id, m.platform, d.event, d.step, d.status, d.attempts, d.last_error, d.created_at, d.delivered_at
      FROM alert_deliveries d LEFT JOIN alert_methods m ON m.alert_method_id = d.alert_method_id
      WHERE d.user_id = @user_id AND (d.incident_id = @incident_id
        OR d.group_id = (SELECT group_id FROM incidents WHERE incident_id = @incident_id AND user_id = @user_id))
      ORDER BY d.created_at, d.delivery_id`),
    stats: db.prepare(`SELECT i.url_id, MAX(e.name) AS endpoint_name, COUNT(*) AS incidents,
        COUNT(i.acknowledged_at) AS acknowledged, COUNT(i.resolved_at) AS resolved,
        AVG(i.acknowledged_at - i.opened_at) AS mtta_ms, AVG(i.resolved_at - i.opened_at) AS mttr_ms
      FROM incidents i LEFT JOIN endpoints e ON e.url_id = i.url_id AND e.user_id = i.user_id
      WHERE i.user_id = @user_id AND i.opened_at >= @from AND i.opened_at < @to AND (@url_id IS NULL OR i.url_id = @url_id)
      GROUP BY i.url_id ORDER BY i.url_id`),
  };
  return {
    list: (userId: number, f: { urlId: number | null; status: 'open' | 'resolved' | null; state: IncidentState | null; limit: number }) =>
      q.list.all({ user_id: userId, url_id: f.urlId, status: f.status, state: f.state, limit: f.limit }) as HandledIncidentRow[],
    incident: (userId: number, id: number) => q.one.get(id, userId) as HandledIncidentRow | undefined,
    /** By id alone: for an acknowledge link, whose signature names the incident. */
    incidentById: (id: number) => q.byId.get(id) as HandledIncidentRow | undefined,
    /** A storm group's incidents, by id alone (a group link's signature names it; REST callers check the workspace). */
    groupMembers: (groupId: number) => q.group.all(groupId) as HandledIncidentRow[],
    /** True when this call acknowledged it; false when it was resolved, already acknowledged or not the workspace's. */
    acknowledge: (userId: number, id: number, by: number | null, at: number) => q.acknowledge.run(at, by, id, userId).changes === 1,
    /** The same compare-and-set for each of several ids, in one transaction; answers the ids it acknowledged. */
    acknowledgeMany: db.transaction((userId: number, ids: number[], by: number | null, at: number): number[] =>
      ids.filter((id) => q.acknowledge.run(at, by, id, userId).changes === 1)),
    /** Its own deliveries and its storm group's (which list it among others). */
    deliveries: (userId: number, incidentId: number) => q.deliveries.all({ incident_id: incidentId, user_id: userId }) as IncidentDeliveryRow[],
    stats: (userId: number, from: number, to: number, urlId: number | null) => q.stats.all({ user_id: userId, from, to, url_id: urlId }) as StatsRow[],
  };
}
export type HandlingRepo = ReturnType<typeof createHandlingRepo>;
