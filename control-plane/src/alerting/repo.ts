// SQLite access for alerting: evaluation state, incidents and the delivery outbox. Every query that
// answers a user names the owner; the evaluator and the dispatcher are internal and use ids.
import type { Db } from '../store/db';
import { createEndpointsRepo, type EndpointsRepo, type OwnedMonitoredEndpoint } from '../store/endpoints-repo';
import type { AlertEvent, DeliveryEvent } from './types';

export interface RegionStateRow {
  url_id: number;
  condition: string;
  region: string;
  fails: number;
  passes: number;
  down: number;
  last_ts: number;
  cause: string;
}

export interface ConditionRow {
  url_id: number;
  condition: string;
  down: number;
  changes: string;
  flapping: number;
}

export interface IncidentRow {
  incident_id: number;
  user_id: number;
  url_id: number;
  condition: string;
  regions: string;
  cause: string;
  flapping: number;
  opened_at: number;
  resolved_at: number | null;
  /** The parent endpoint's incident that silenced this one. */
  suppressed_by?: number | null;
  acknowledged_at?: number | null;
  acknowledged_by?: number | null;
  /** The storm group its first message went out in. */
  group_id?: number | null;
}

export interface DeliveryRow {
  delivery_id: number;
  user_id: number;
  alert_method_id: number;
  incident_id: number | null;
  event: DeliveryEvent;
  idempotency_key: string;
  payload: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  next_attempt_at: number;
  last_error: string | null;
  created_at: number;
  delivered_at: number | null;
}

/** What the evaluator needs to know about one monitored endpoint (with its owner's plan). */
export interface ThresholdAlertRow {
  monitor_type: string;
  threshold_value: number;
  threshold_operator: string;
  region: string | null;
}

/** Endpoints are read through the endpoints repository (the one owner of that table). */
export function createAlertingRepo(db: Db, endpoints: Pick<EndpointsRepo, 'monitoredById' | 'monitoredByIds'> = createEndpointsRepo(db)) {
  const q = {
    thresholds: db.prepare(`SELECT m.type_code AS monitor_type, t.threshold_value, t.threshold_operator,
        CASE WHEN r.region_id IS NULL THEN NULL ELSE r.region || '-' || r.city END AS region
      FROM alert_thresholds t JOIN monitor_types m ON m.monitor_type_id = t.monitor_type_id
      LEFT JOIN regions r ON r.region_id = t.region_id
      WHERE t.url_id = ? AND t.is_enabled = 1`),
    regionStates: db.prepare('SELECT * FROM alert_region_states WHERE url_id = ?'),
    conditions: db.prepare('SELECT * FROM alert_conditions WHERE url_id = ?'),
    thresholdsOf: db.prepare(`SELECT t.url_id, m.type_code AS monitor_type, t.threshold_value, t.threshold_operator,
        CASE WHEN r.region_id IS NULL THEN NULL ELSE r.region || '-' || r.city END AS region
      FROM alert_thresholds t JOIN monitor_types m ON m.monitor_type_id = t.monitor_type_id
      LEFT JOIN regions r ON r.region_id = t.region_id
      WHERE t.url_id IN (SELECT value FROM json_each(?)) AND t.is_enabled = 1`),
    regionStatesOf: db.prepare('SELECT * FROM alert_region_states WHERE url_id IN (SELECT value FROM json_each(?))'),
    conditionsOf: db.prepare('SELECT * FROM alert_conditions WHERE url_id IN (SELECT value FROM json_each(?))'),
    upsertRegionState: db.prepare(`INSERT INTO alert_region_states (url_id, condition, region, fails, passes, down, last_ts, cause)
      VALUES (@url_id, @condition, @region, @fails, @passes, @down, @last_ts, @cause)
      ON CONFLICT (url_id, condition, region) DO UPDATE SET fails = excluded.fails, passes = excluded.passes,
        down = excluded.down, last_ts = excluded.last_ts, cause = excluded.cause`),
    upsertCondition: db.prepare(`INSERT INTO alert_conditions (url_id, condition, down, changes, flapping)
      VALUES (@url_id, @condition, @down, @changes, @flapping)
      ON CONFLICT (url_id, condition) DO UPDATE SET down = excluded.down, changes = excluded.changes, flapping = excluded.flapping`),
    deleteStates: db.prepare('DELETE FROM alert_region_states WHERE url_id = ?'),
    deleteConditions: db.prepare('DELETE FROM alert_conditions WHERE url_id = ?'),
    deleteStatesOf: db.prepare('DELETE FROM alert_region_states WHERE url_id = ? AND condition = ?'),
    deleteConditionOf: db.prepare('DELETE FROM alert_conditions WHERE url_id = ? AND condition = ?'),
    openIncident: db.prepare('SELECT * FROM incidents WHERE url_id = ? AND condition = ? AND resolved_at IS NULL'),
    openIncidentsOf: db.prepare('SELECT * FROM incidents WHERE url_id = ? AND resolved_at IS NULL'),
    insertIncident: db.prepare(`INSERT INTO incidents (user_id, url_id, condition, regions, cause, flapping, opened_at)
      VALUES (?, ?, ?, ?, ?, ?, ?)`),
    resolveIncident: db.prepare('UPDATE incidents SET resolved_at = ?, resolved_silently = ? WHERE incident_id = ? AND resolved_at IS NULL'),
    updateIncident: db.prepare('UPDATE incidents SET regions = ?, cause = ?, flapping = ? WHERE incident_id = ?'),
    enabledMethods: db.prepare('SELECT alert_method_id FROM alert_methods WHERE user_id = ? AND is_enabled = 1 ORDER BY alert_method_id').pluck(),
    insertDelivery: db.prepare(`INSERT OR IGNORE INTO alert_deliveries (user_id, alert_method_id, incident_id, event, idempotency_key, payload,
        status, attempts, next_attempt_at, last_error, created_at, delivered_at, step, group_id)
      VALUES (@user_id, @alert_method_id, @incident_id, @event, @idempotency_key, @payload, @status, @attempts, @next_attempt_at,
        @last_error, @created_at, @delivered_at, @step, @group_id)`),
    due: db.prepare(`SELECT * FROM alert_deliveries WHERE status = 'pending' AND next_attempt_at <= ? ORDER BY next_attempt_at, delivery_id LIMIT ?`),
    pending: db.prepare(`SELECT COUNT(*) FROM alert_deliveries WHERE status = 'pending'`).pluck(),
    nextDue: db.prepare(`SELECT MIN(next_attempt_at) FROM alert_deliveries WHERE status = 'pending'`).pluck(),
    markDelivered: db.prepare(`UPDATE alert_deliveries SET status = 'delivered', attempts = attempts + 1, delivered_at = ?, last_error = NULL
      WHERE delivery_id = ? AND status = 'pending'`),
    markFailed: db.prepare(`UPDATE alert_deliveries SET status = 'failed', attempts = attempts + 1, last_error = ?
      WHERE delivery_id = ? AND status = 'pending'`),
    markRetry: db.prepare(`UPDATE alert_deliveries SET attempts = attempts + 1, last_error = ?, next_attempt_at = ?
      WHERE delivery_id = ? AND status = 'pending'`),
    postpone: db.prepare(`UPDATE alert_deliveries SET next_attempt_at = ? WHERE delivery_id = ? AND status = 'pending'`),
    openingPending: db.prepare(`SELECT 1 FROM alert_deliveries WHERE incident_id = ? AND alert_method_id = ? AND event = 'opened' AND status = 'pending'
      AND delivery_id < ?`).pluck(),
    deliveriesOf: db.prepare(`SELECT * FROM alert_deliveries WHERE alert_method_id = ? AND user_id = ?
      ORDER BY created_at DESC, delivery_id DESC LIMIT ?`),
    pruneIncidents: db.prepare(`DELETE FROM incidents WHERE resolved_at IS NOT NULL AND resolved_at < ? - 86400000 * (
        SELECT p.retention_days FROM users u JOIN packages p ON p.package_id = u.package_id WHERE u.id = incidents.user_id)`),
    pruneTestDeliveries: db.prepare(`DELETE FROM alert_deliveries WHERE incident_id IS NULL AND status != 'pending' AND created_at < ?`),
  };

  return {
    /** A monitoring-enabled endpoint with its owner, or undefined (paused or deleted). */
    endpoint: (urlId: number): OwnedMonitoredEndpoint | undefined => endpoints.monitoredById(urlId),
    thresholds: (urlId: number) => q.thresholds.all(urlId) as ThresholdAlertRow[],
    regionStates: (urlId: number) => q.regionStates.all(urlId) as RegionStateRow[],
    conditions: (urlId: number) => q.conditions.all(urlId) as ConditionRow[],
    /** What endpoint, thresholds, regionStates and conditions answer, for many endpoints in one query each
     *  (after a restart every endpoint's first result arrives within a minute; a query per endpoint held the loop). */
    endpoints: (urlIds: readonly number[]) => endpoints.monitoredByIds(urlIds),
    thresholdsOf: (urlIds: readonly number[]) => q.thresholdsOf.all(JSON.stringify(urlIds)) as Array<ThresholdAlertRow & { url_id: number }>,
    regionStatesOf: (urlIds: readonly number[]) => q.regionStatesOf.all(JSON.stringify(urlIds)) as RegionStateRow[],
    conditionsOf: (urlIds: readonly number[]) => q.conditionsOf.all(JSON.stringify(urlIds)) as ConditionRow[],
    saveRegionState: (row: RegionStateRow) => void q.upsertRegionState.run(row),
    saveCondition: (row: ConditionRow) => void q.upsertCondition.run(row),
    forgetEndpoint(urlId: number) {
      q.deleteStates.run(urlId);
      q.deleteConditions.run(urlId);
    },
    forgetCondition(urlId: number, condition: string) {
      q.deleteStatesOf.run(urlId, condition);
      q.deleteConditionOf.run(urlId, condition);
    },
    openIncident: (urlId: number, condition: string) => q.openIncident.get(urlId, condition) as IncidentRow | undefined,
    openIncidentsOf: (urlId: number) => q.openIncidentsOf.all(urlId) as IncidentRow[],
    insertIncident: (i: Omit<IncidentRow, 'incident_id' | 'resolved_at'>): number =>
      Number(q.insertIncident.run(i.user_id, i.url_id, i.condition, i.regions, i.cause, i.flapping, i.opened_at).lastInsertRowid),
    resolveIncident: (id: number, at: number, silently: boolean) => q.resolveIncident.run(at, silently ? 1 : 0, id).changes === 1,
    updateIncident: (id: number, regions: string, cause: string, flapping: boolean) => void q.updateIncident.run(regions, cause, flapping ? 1 : 0, id),
    enabledMethodIds: (userId: number) => q.enabledMethods.all(userId) as number[],
    /** One outbox row; a second row with the same idempotency key is ignored. */
    insertDelivery(d: { userId: number; methodId: number; incidentId: number | null; event: AlertEvent; key: string; now: number;
      done?: { ok: boolean; error: string | null }; step?: number | null; groupId?: number | null }): boolean {
      return q.insertDelivery.run({
        step: d.step ?? null, group_id: d.groupId ?? null,
        user_id: d.userId, alert_method_id: d.methodId, incident_id: d.incidentId, event: eventName(d.event), idempotency_key: d.key,
        payload: JSON.stringify(d.event), status: d.done ? (d.done.ok ? 'delivered' : 'failed') : 'pending', attempts: d.done ? 1 : 0,
        next_attempt_at: d.now, last_error: d.done?.error ?? null, created_at: d.now, delivered_at: d.done?.ok ? d.now : null,
      }).changes === 1;
    },
    due: (now: number, limit: number) => q.due.all(now, limit) as DeliveryRow[],
    nextDueAt: () => q.nextDue.get() as number | null,
    pendingCount: () => q.pending.get() as number,
    markDelivered: (id: number, at: number) => void q.markDelivered.run(at, id),
    markFailed: (id: number, error: string) => void q.markFailed.run(error, id),
    markRetry: (id: number, error: string, nextAt: number) => void q.markRetry.run(error, nextAt, id),
    /** Tries again later without counting a try (it waits for the message it replies to). */
    postpone: (id: number, nextAt: number) => void q.postpone.run(nextAt, id),
    /** Whether an earlier opening message of the incident to the method is still to be sent. */
    openingPending: (incidentId: number, methodId: number, beforeDeliveryId: number) => q.openingPending.get(incidentId, methodId, beforeDeliveryId) !== undefined,
    deliveriesOf: (userId: number, methodId: number, limit: number) => q.deliveriesOf.all(methodId, userId, limit) as DeliveryRow[],
    /** Resolved incidents beyond their owner's plan retention, and old test sends. */
    prune(now: number) {
      q.pruneIncidents.run(now);
      q.pruneTestDeliveries.run(now - 30 * 86_400_000);
    },
    transaction: <T>(fn: () => T): T => db.transaction(fn)(),
  };
}
export type AlertingRepo = ReturnType<typeof createAlertingRepo>;

const EVENT_NAMES: Record<AlertEvent['type'], DeliveryEvent> = {
  'incident.opened': 'opened', 'incident.resolved': 'resolved', 'incident.reminder': 'reminder', 'incident.acknowledged': 'acknowledged', test: 'test',
  'incident.group_opened': 'opened', 'incident.group_resolved': 'resolved',
};
const eventName = (e: AlertEvent): DeliveryEvent => EVENT_NAMES[e.type];
