// Runs incidents' escalations. An incident starts its escalation when it opens (or, silenced by a
// parent endpoint's incident, when that one resolves): the endpoint's policy as it is then, or
// without one today's rule, every enabled method at once. Where it stands lives in
// incident_escalations; each firing moves that position by compare-and-set and queues the step's
// outbox rows (idempotency key per incident, step, reminder and method) and timeline entries in
// one transaction, so a restart neither skips nor repeats a step. The worker stops at the first
// pass that sees the incident acknowledged (then tells Slack and PagerDuty once) or resolved.
// Storms: with a hold (storms.ts), an incident's first step waits that long; a workspace with more
// than its group threshold of openings within 60 s sends its waiting first steps as one group.
import type { EscalationStep } from '@upfleet/proto/rest';
import type { Logger } from '../logger';
import type { EscalationRepo, EscalationRow } from './escalation-repo';
import type { AlertingRepo, IncidentRow } from './repo';
import { createStormGrouper, type Deliver } from './storms';
import type { StormsRepo } from './storms-repo';
import { incidentEvent, type IncidentOwner } from './incident-event';

/** Platforms told of an acknowledgement (a reply in the Slack thread, PagerDuty's acknowledge). */
export const ACK_PLATFORMS: ReadonlySet<string> = new Set(['slack', 'pagerduty']);
const MINUTE_MS = 60_000;
const BATCH = 100;

export interface EscalatorDeps {
  repo: AlertingRepo;
  esc: EscalationRepo;
  logger: Logger;
  now: () => number;
  /** Outbox rows were queued (the dispatcher looks now). */
  onQueued?(): void;
  /** How often due steps are looked for when nothing wakes the worker (default 1 s). */
  pollMs?: number;
  /** Storm grouping: how long a first step waits for others of its workspace (0 or absent storms: none). */
  storms?: StormsRepo;
  holdMs?: number;
}

export function createEscalator(deps: EscalatorDeps) {
  const { repo, esc } = deps;
  const log = deps.logger.child({ component: 'escalation' });
  let timer: NodeJS.Timeout | null = null;
  let stopped = true;
  const holdMs = deps.storms ? deps.holdMs ?? 0 : 0;

  const event = incidentEvent;

  /** Whether a method may be paged now; a missing (deleted, or of another workspace) or disabled one is skipped on the timeline. */
  function usable(incident: IncidentRow, methodId: number, step: number, at: number): boolean {
    const m = esc.method(incident.user_id, methodId);
    const why = !m ? 'deleted or not an alert method of this workspace' : m.is_enabled !== 1 ? 'disabled' : null;
    if (why) esc.event(incident.incident_id, at, 'method_skipped', step, methodId, why);
    return why === null;
  }

  const single: Deliver = (d) => (repo.insertDelivery(d) ? 1 : 0);

  /**
   * Fires the step or reminder at `row`'s position and moves it on; in the caller's transaction.
   * `deliver` takes each outbox row (a storm's grouper collects the first step's instead).
   */
  function fire(row: EscalationRow, incident: IncidentRow, owner: IncidentOwner, at: number, deliver: Deliver = single): number {
    const steps = JSON.parse(row.steps) as EscalationStep[];
    const scheduled = row.due_at ?? at;
    const implicit = row.escalation_policy_id === null;
    let queued = 0;
    let to: { step: number; repeat: number; dueAt: number | null };
    if (row.next_step < steps.length) {
      const index = row.next_step;
      const step = index + 1;
      const after = index + 1 < steps.length ? { step: index + 1, repeat: 0, dueAt: scheduled + steps[index + 1].wait_minutes * MINUTE_MS }
        : row.repeat > 0 ? { step: steps.length, repeat: 0, dueAt: scheduled + row.repeat_every_minutes * MINUTE_MS }
          : { step: steps.length, repeat: 0, dueAt: null };
      if (!esc.advance(row.incident_id, { step: row.next_step, repeat: row.next_repeat }, after)) return 0;
      to = after;
      if (implicit) {
        // No policy: every enabled method at once, as before policies existed (the same keys).
        const e = event('incident.opened', incident, owner, at);
        for (const m of repo.enabledMethodIds(incident.user_id)) {
          queued += deliver({ userId: incident.user_id, methodId: m, incidentId: incident.incident_id, event: e, key: `inc${incident.incident_id}-opened-m${m}`, now: at });
        }
      } else {
        if (step > 1) esc.event(incident.incident_id, at, 'escalated', step, null, `Escalated to step ${step}`);
        const e = event('incident.opened', incident, owner, at, { step });
        for (const m of steps[index].alert_method_ids) {
          if (!usable(incident, m, step, at)) continue;
          queued += deliver({ userId: incident.user_id, methodId: m, incidentId: incident.incident_id, event: e, key: `inc${incident.incident_id}-s${step}-r0-m${m}`, now: at, step });
        }
      }
    } else if (row.next_repeat < row.repeat) {
      const n = row.next_repeat + 1;
      const step = steps.length;
      const after = { step: row.next_step, repeat: n, dueAt: n < row.repeat ? scheduled + row.repeat_every_minutes * MINUTE_MS : null };
      if (!esc.advance(row.incident_id, { step: row.next_step, repeat: row.next_repeat }, after)) return 0;
      to = after;
      esc.event(incident.incident_id, at, 'reminder', step, null, `Reminder ${n} of ${row.repeat}`);
      const e = event('incident.reminder', incident, owner, at, { step, reminder: { n, of: row.repeat } });
      for (const m of steps[step - 1].alert_method_ids) {
        if (!usable(incident, m, step, at)) continue;
        if (repo.insertDelivery({ userId: incident.user_id, methodId: m, incidentId: incident.incident_id, event: e, key: `inc${incident.incident_id}-s${step}-r${n}-m${m}`, now: at, step })) queued++;
      }
    } else {
      esc.stop(row.incident_id);
      return 0;
    }
    log.info({ incidentId: incident.incident_id, step: to.step, repeat: to.repeat, queued }, 'escalation advanced');
    return queued;
  }

  /** Starts an incident's notifications now: its endpoint's policy, or every enabled method at once. */
  function begin(incident: IncidentRow, owner: IncidentOwner, at: number): number {
    const policy = owner.escalation_policy_id === null ? undefined : esc.policy(incident.user_id, owner.escalation_policy_id);
    const steps: EscalationStep[] = policy ? policy.steps : [{ wait_minutes: 0, alert_method_ids: [] }];
    const row: EscalationRow = {
      incident_id: incident.incident_id, escalation_policy_id: policy?.escalation_policy_id ?? null, steps: JSON.stringify(steps),
      repeat: policy?.repeat ?? 0, repeat_every_minutes: policy?.repeat_every_minutes ?? 0, next_step: 0, next_repeat: 0,
      due_at: at + Math.max(steps[0].wait_minutes * MINUTE_MS, holdMs), ack_sent: 0,
    };
    esc.insert(row);
    return row.due_at! <= at ? fire(row, incident, owner, at) : 0;
  }

  function ownerOf(incident: IncidentRow): IncidentOwner | null {
    const e = repo.endpoint(incident.url_id);
    return e ? { id: e.url_id, name: e.name, url: e.url, user_id: e.user_id, escalation_policy_id: e.escalation_policy_id, depends_on: e.depends_on } : null;
  }

  const grouper = deps.storms && holdMs > 0
    ? createStormGrouper({ repo, esc, storms: deps.storms, logger: deps.logger, holdMs, fire, ownerOf })
    : null;

  /** One pass: release children of resolved parents, fire what is due, tell of acknowledgements. Returns rows queued. */
  function tick(): number {
    const t = deps.now();
    let queued = 0;
    for (const child of esc.releasable(BATCH)) {
      const owner = ownerOf(child);
      if (!owner) continue;
      queued += repo.transaction(() => (esc.get(child.incident_id) ? 0 : begin(child, owner, t)));
      log.info({ incidentId: child.incident_id, parent: child.suppressed_by }, 'suppressed incident released: its parent resolved');
    }
    for (const row of esc.due(t, BATCH)) {
      queued += repo.transaction(() => {
        const incident = esc.incident(row.incident_id);
        const fresh = esc.get(row.incident_id);
        // Moved on meanwhile (sent in a storm's group earlier in this pass): not due any more.
        if (!incident || !fresh || fresh.due_at === null || fresh.due_at > t || incident.resolved_at !== null || incident.acknowledged_at !== null) return 0;
        const owner = ownerOf(incident);
        if (!owner) {
          esc.stop(row.incident_id);
          return 0;
        }
        if (grouper && fresh.next_step === 0 && fresh.next_repeat === 0 && grouper.inStorm(incident.user_id, t)) return grouper.fireGroup(incident.user_id, t);
        return fire(fresh, incident, owner, t);
      });
    }
    if (grouper) queued += grouper.recoveries(t);
    for (const row of esc.acknowledged(BATCH)) {
      queued += repo.transaction(() => {
        const incident = esc.incident(row.incident_id);
        if (!incident || !esc.markAckSent(row.incident_id)) return 0;
        const owner = ownerOf(incident);
        if (!owner || incident.resolved_at !== null) return 0;
        const by = incident.acknowledged_by === null ? 'a member' : esc.username(incident.acknowledged_by);
        const e = event('incident.acknowledged', incident, owner, incident.acknowledged_at ?? t, { acknowledged_by: by });
        let n = 0;
        for (const m of esc.notifiedMethodIds(incident.incident_id)) {
          if (!ACK_PLATFORMS.has(esc.method(incident.user_id, m)?.platform ?? '')) continue;
          if (repo.insertDelivery({ userId: incident.user_id, methodId: m, incidentId: incident.incident_id, event: e, key: `inc${incident.incident_id}-ack-m${m}`, now: t })) n++;
        }
        return n;
      });
    }
    if (queued > 0) deps.onQueued?.();
    return queued;
  }

  function schedule(ms: number) {
    if (stopped) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(run, ms);
    timer.unref();
  }

  function run() {
    timer = null;
    if (stopped) return;
    try {
      tick();
    } catch (err) {
      log.error({ err: (err as Error).message }, 'escalation pass failed');
    }
    const poll = deps.pollMs ?? 1000;
    const next = esc.nextDueAt();
    schedule(next === null ? poll : Math.min(poll, Math.max(50, next - deps.now())));
  }

  return {
    /**
     * An incident opened (in the evaluator's transaction): silenced when the endpoint's parent has
     * an open down incident (a 'suppressed' timeline entry, nothing sent), else its escalation starts.
     */
    opened(incident: IncidentRow, owner: IncidentOwner, at: number): number {
      if (owner.depends_on !== null) {
        const parent = repo.openIncident(owner.depends_on, 'down');
        if (parent) {
          esc.suppress(incident.incident_id, parent.incident_id);
          esc.event(incident.incident_id, at, 'suppressed', null, null, `Suppressed: the endpoint it depends on is down (incident ${parent.incident_id})`);
          log.info({ incidentId: incident.incident_id, parent: parent.incident_id }, 'incident suppressed by its parent');
          return 0;
        }
      }
      return begin(incident, owner, at);
    },
    /**
     * Who hears an incident resolve: with a policy, every method it notified; without one, every
     * enabled method (null); silenced and never released, nobody. Ends the escalation.
     */
    resolveTargets(incident: IncidentRow): number[] | null {
      const row = esc.get(incident.incident_id);
      // No escalation row: silenced and never released, or opened before escalations existed.
      if (!row) return typeof incident.suppressed_by === 'number' ? [] : null;
      esc.stop(incident.incident_id);
      // Sent in a storm's group: its recovery is told grouped too (the worker's next passes).
      if (typeof incident.group_id === 'number') return [];
      // Still held (nothing sent yet): there is nothing to take back.
      if (row.next_step === 0 && row.next_repeat === 0) return [];
      return row.escalation_policy_id === null ? null : esc.notifiedMethodIds(incident.incident_id);
    },
    tick,
    /** Something may be due now (an acknowledgement, a parent resolved). */
    wake() {
      schedule(0);
    },
    start() {
      stopped = false;
      schedule(0);
    },
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = null;
    },
  };
}
export type Escalator = ReturnType<typeof createEscalator>;
