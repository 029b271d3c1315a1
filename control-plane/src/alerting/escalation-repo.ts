// SQLite access for running escalations. better-sqlite3 on purpose, not Kysely: an incident's first
// step is queued inside the evaluator's synchronous transaction (with the incident row), and the
// worker's advance (compare-and-set of the position, the step's outbox rows and timeline entries)
// must be one synchronous transaction too, or a crash between them would skip or repeat a step.
import type { EscalationStep } from '@upfleet/proto/rest';
import type { Db } from '../store/db';
import type { IncidentRow } from './repo';

export interface EscalationRow {
  incident_id: number;
  escalation_policy_id: number | null;
  steps: string;
  repeat: number;
  repeat_every_minutes: number;
  /** 0-based index of the next step to fire; steps.length once all fired (then reminders). */
  next_step: number;
  /** Reminders already sent (the last step's repeats). */
  next_repeat: number;
  /** When the next step or reminder is due; null: nothing more. */
  due_at: number | null;
  ack_sent: number;
}

export type IncidentEventType = 'escalated' | 'reminder' | 'method_skipped' | 'suppressed' | 'grouped';

export interface PolicySnapshot {
  escalation_policy_id: number;
  steps: EscalationStep[];
  repeat: number;
  repeat_every_minutes: number;
}

export function createEscalationRepo(db: Db) {
  const q = {
    policy: db.prepare('SELECT escalation_policy_id, steps, repeat, repeat_every_minutes FROM escalation_policies WHERE escalation_policy_id = ? AND user_id = ?'),
    insert: db.prepare(`INSERT OR IGNORE INTO incident_escalations (incident_id, escalation_policy_id, steps, repeat, repeat_every_minutes, next_step, next_repeat, due_at, ack_sent)
      VALUES (@incident_id, @escalation_policy_id, @steps, @repeat, @repeat_every_minutes, @next_step, @next_repeat, @due_at, 0)`),
    get: db.prepare('SELECT * FROM incident_escalations WHERE incident_id = ?'),
    advance: db.prepare(`UPDATE incident_escalations SET next_step = @to_step, next_repeat = @to_repeat, due_at = @due_at
      WHERE incident_id = @incident_id AND next_step = @from_step AND next_repeat = @from_repeat`),
    stop: db.prepare('UPDATE incident_escalations SET due_at = NULL WHERE incident_id = ?'),
    due: db.prepare(`SELECT e.* FROM incident_escalations e JOIN incidents i ON i.incident_id = e.incident_id
      WHERE e.due_at IS NOT NULL AND e.due_at <= ? AND i.resolved_at IS NULL AND i.acknowledged_at IS NULL
      ORDER BY e.due_at, e.incident_id LIMIT ?`),
    nextDue: db.prepare(`SELECT MIN(e.due_at) FROM incident_escalations e JOIN incidents i ON i.incident_id = e.incident_id
      WHERE e.due_at IS NOT NULL AND i.resolved_at IS NULL AND i.acknowledged_at IS NULL`).pluck(),
    acked: db.prepare(`SELECT e.* FROM incident_escalations e JOIN incidents i ON i.incident_id = e.incident_id
      WHERE e.ack_sent = 0 AND i.acknowledged_at IS NOT NULL ORDER BY e.incident_id LIMIT ?`),
    markAck: db.prepare('UPDATE incident_escalations SET ack_sent = 1, due_at = NULL WHERE incident_id = ? AND ack_sent = 0'),
    releasable: db.prepare(`SELECT c.* FROM incidents c JOIN incidents p ON p.incident_id = c.suppressed_by
      WHERE c.resolved_at IS NULL AND p.resolved_at IS NOT NULL
        AND NOT EXISTS (SELECT 1 FROM incident_escalations e WHERE e.incident_id = c.incident_id)
      ORDER BY c.incident_id LIMIT ?`),
    notified: db.prepare(`SELECT DISTINCT alert_method_id FROM alert_deliveries WHERE incident_id = ? AND event IN ('opened', 'reminder')
      ORDER BY alert_method_id`).pluck(),
    method: db.prepare('SELECT platform, is_enabled FROM alert_methods WHERE alert_method_id = ? AND user_id = ?'),
    incident: db.prepare('SELECT * FROM incidents WHERE incident_id = ?'),
    suppress: db.prepare('UPDATE incidents SET suppressed_by = ? WHERE incident_id = ?'),
    event: db.prepare('INSERT INTO incident_events (incident_id, at, type, step, alert_method_id, detail) VALUES (?, ?, ?, ?, ?, ?)'),
    username: db.prepare('SELECT username FROM users WHERE id = ?').pluck(),
  };
  return {
    policy(userId: number, policyId: number): PolicySnapshot | undefined {
      const r = q.policy.get(policyId, userId) as { escalation_policy_id: number; steps: string; repeat: number; repeat_every_minutes: number } | undefined;
      return r && { ...r, steps: JSON.parse(r.steps) as EscalationStep[] };
    },
    insert: (row: Omit<EscalationRow, 'ack_sent'>) => void q.insert.run(row),
    get: (incidentId: number) => q.get.get(incidentId) as EscalationRow | undefined,
    /** Compare-and-set: moves from the position read to the next; false when another pass moved it first. */
    advance: (incidentId: number, from: { step: number; repeat: number }, to: { step: number; repeat: number; dueAt: number | null }): boolean =>
      q.advance.run({ incident_id: incidentId, from_step: from.step, from_repeat: from.repeat, to_step: to.step, to_repeat: to.repeat, due_at: to.dueAt }).changes === 1,
    stop: (incidentId: number) => void q.stop.run(incidentId),
    due: (now: number, limit: number) => q.due.all(now, limit) as EscalationRow[],
    nextDueAt: () => q.nextDue.get() as number | null,
    acknowledged: (limit: number) => q.acked.all(limit) as EscalationRow[],
    /** Compare-and-set: true once per incident. */
    markAckSent: (incidentId: number): boolean => q.markAck.run(incidentId).changes === 1,
    /** Open incidents silenced by a parent incident that has resolved since, not started yet. */
    releasable: (limit: number) => q.releasable.all(limit) as IncidentRow[],
    notifiedMethodIds: (incidentId: number) => q.notified.all(incidentId) as number[],
    method: (userId: number, methodId: number) => q.method.get(methodId, userId) as { platform: string; is_enabled: number } | undefined,
    incident: (incidentId: number) => q.incident.get(incidentId) as (IncidentRow & { acknowledged_at: number | null; acknowledged_by: number | null; suppressed_by: number | null }) | undefined,
    suppress: (incidentId: number, parentIncidentId: number) => void q.suppress.run(parentIncidentId, incidentId),
    event: (incidentId: number, at: number, type: IncidentEventType, step: number | null, methodId: number | null, detail: string) =>
      void q.event.run(incidentId, at, type, step, methodId, detail),
    username: (userId: number) => (q.username.get(userId) as string | undefined) ?? `user ${userId}`,
  };
}
export type EscalationRepo = ReturnType<typeof createEscalationRepo>;
