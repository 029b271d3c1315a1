// Incident bookkeeping for the evaluator: open an incident (at most one per endpoint and
// condition), resolve it, and queue one outbox row per enabled alert method of the owner, with
// its idempotency key, in the caller's transaction (the dispatcher delivers them after commit).
import type { Logger } from '../logger';
import type { EndpointContext } from './endpoint-state';
import type { Escalator } from './escalation';
import { incidentEvent, type IncidentOwner } from './incident-event';
import type { AlertingRepo, IncidentRow } from './repo';
import type { AlertEvent, AlertEventType } from './types';

/** Told of incidents as they open and resolve (status pages' auto reports), inside the evaluator's transaction. */
export interface IncidentHooks {
  opened?(incident: IncidentRow): void;
  resolved?(incident: IncidentRow): void;
}

/** `announce` hears each opened or resolved incident with its owner (the caller passes it on after commit). */
/** `escalator` absent: every enabled method hears each opening and resolve at once (no policies, no dependencies). */
export function createIncidentBook(repo: AlertingRepo, log: Logger, announce?: (userId: number, event: AlertEvent) => void, hooks: IncidentHooks = {}, escalator?: Escalator) {
  const ownerOf = (ctx: EndpointContext): IncidentOwner => ({
    id: ctx.row.url_id, name: ctx.row.name, url: ctx.row.url, user_id: ctx.row.user_id,
    escalation_policy_id: ctx.row.escalation_policy_id ?? null, depends_on: ctx.row.depends_on ?? null,
  });

  /** Tells the user's event stream; with `methods` (null: every enabled one) queues one outbox row each. Returns how many. */
  function enqueue(ctx: EndpointContext, type: AlertEventType, incident: IncidentRow, at: number, methods: number[] | null): number {
    const event = incidentEvent(type, incident, { id: ctx.row.url_id, name: ctx.row.name, url: ctx.row.url }, at);
    announce?.(ctx.row.user_id, event);
    const targets = methods ?? repo.enabledMethodIds(ctx.row.user_id);
    const tag = type === 'incident.opened' ? 'opened' : 'resolved';
    for (const m of targets) {
      repo.insertDelivery({ userId: ctx.row.user_id, methodId: m, incidentId: incident.incident_id, event, key: `inc${incident.incident_id}-${tag}-m${m}`, now: at });
    }
    return targets.length;
  }

  return {
    /** Opens the condition's incident unless one is open; returns the deliveries queued. */
    open(ctx: EndpointContext, condition: string, regions: string[], cause: string, flapping: boolean, t: number): number {
      if (repo.openIncident(ctx.row.url_id, condition)) return 0;
      const row = { user_id: ctx.row.user_id, url_id: ctx.row.url_id, condition, regions: JSON.stringify(regions), cause, flapping: flapping ? 1 : 0, opened_at: t };
      const id = repo.insertIncident(row);
      log.info({ urlId: ctx.row.url_id, incidentId: id, condition, cause }, 'incident opened');
      const incident: IncidentRow = { ...row, incident_id: id, resolved_at: null };
      hooks.opened?.(incident);
      if (!escalator) return enqueue(ctx, 'incident.opened', incident, t, null);
      enqueue(ctx, 'incident.opened', incident, t, []);
      return escalator.opened(incident, ownerOf(ctx), t);
    },

    /** Resolves the condition's open incident, if any; returns the deliveries queued. */
    resolve(ctx: EndpointContext, condition: string, t: number): number {
      const open = repo.openIncident(ctx.row.url_id, condition);
      if (!open || !repo.resolveIncident(open.incident_id, t, false)) return 0;
      log.info({ urlId: ctx.row.url_id, incidentId: open.incident_id, condition }, 'incident resolved');
      hooks.resolved?.({ ...open, resolved_at: t });
      return enqueue(ctx, 'incident.resolved', { ...open, resolved_at: t }, t, escalator ? escalator.resolveTargets(open) : null);
    },
  };
}
export type IncidentBook = ReturnType<typeof createIncidentBook>;
