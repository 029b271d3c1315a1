// Storms: when more than a workspace's group threshold (default 5) of incidents open within 60 s,
// each alert method gets one grouped message listing them instead of one each. The rule: with a
// hold (STORM_HOLD_MS), every incident's first step waits that long after it opens (a first step
// that waits longer keeps its wait). When a first step falls due, the worker counts the workspace's
// openings over the last 60 s; at or under the threshold it goes out alone, as before; over it,
// every first step of the workspace still waiting and due within one more hold goes out together:
// a group (incident_groups), one outbox row per method listing the incidents that method would
// have been sent, idempotency key `grp{group}-opened-m{method}`. So a storm's first incidents are
// in its first group message, none is sent both alone and grouped, and incidents that open later
// in the storm make the next group. PagerDuty keeps one alert per incident (its dedup_key groups
// on its side). Later steps and reminders of a grouped incident go out per incident, as without a
// storm (not duplicated: the group message was its step 1). A grouped incident's recovery waits
// up to one hold for others of its group, then one grouped recovery per method lists those
// resolved (`grp{group}-resolved-i{first incident}-m{method}`). Everything is written in the
// worker's transaction with compare-and-sets, so a restart mid-storm neither loses nor doubles.
import type { Logger } from '../logger';
import type { EscalationRepo, EscalationRow } from './escalation-repo';
import { endpointView, incidentEvent, incidentView, type IncidentOwner } from './incident-event';
import type { AlertingRepo, IncidentRow } from './repo';
import type { StormsRepo } from './storms-repo';
import type { AlertEvent, GroupedIncident } from './types';

/** How long a new incident's first message waits for others of its workspace (a storm forming). */
export const STORM_HOLD_MS = 3_000;
/** Openings counted for a storm: those of the last minute. */
export const STORM_WINDOW_MS = 60_000;
/** At most this many first steps go out in one group. */
const GROUP_MAX = 200;
const BATCH = 500;
/** Platforms never grouped: one alert per incident, deduplicated on their side. */
const UNGROUPED: ReadonlySet<string> = new Set(['pagerduty']);

/** One outbox row as the escalator would queue it; answers 1 when queued. */
export type Deliver = (d: Parameters<AlertingRepo['insertDelivery']>[0]) => number;

export interface StormGrouperDeps {
  repo: AlertingRepo;
  esc: EscalationRepo;
  storms: StormsRepo;
  logger: Logger;
  holdMs: number;
  fire(row: EscalationRow, incident: IncidentRow, owner: IncidentOwner, at: number, deliver: Deliver): number;
  ownerOf(incident: IncidentRow): IncidentOwner | null;
}

export function createStormGrouper(deps: StormGrouperDeps) {
  const { repo, esc, storms } = deps;
  const log = deps.logger.child({ component: 'storms' });
  const platformOf = (userId: number, methodId: number) => esc.method(userId, methodId)?.platform ?? '';
  const groupEvent = (type: 'incident.group_opened' | 'incident.group_resolved', groupId: number, at: number, incidents: GroupedIncident[]): AlertEvent => ({
    type, occurred_at: new Date(at).toISOString(), incident: null, endpoint: null, group: { id: groupId, incidents },
  });
  const item = (i: IncidentRow, owner: { id: number; name: string; url: string }): GroupedIncident => ({
    incident: incidentView(i), endpoint: endpointView(owner),
  });

  return {
    /** More than the workspace's threshold of incidents opened within the last minute. */
    inStorm: (userId: number, t: number): boolean => storms.openedSince(userId, t - STORM_WINDOW_MS) > storms.threshold(userId),

    /** Sends the workspace's waiting first steps as one group (alone when only one waits); in the caller's transaction. */
    fireGroup(userId: number, t: number): number {
      const rows = storms.pendingFirstSteps(userId, t + deps.holdMs, GROUP_MAX);
      const members: Array<{ row: EscalationRow; incident: IncidentRow; owner: IncidentOwner }> = [];
      for (const row of rows) {
        const incident = esc.incident(row.incident_id);
        const owner = incident ? deps.ownerOf(incident) : null;
        if (!incident || !owner) {
          esc.stop(row.incident_id);
          continue;
        }
        members.push({ row, incident, owner });
      }
      if (members.length < 2) return members.reduce((n, m) => n + deps.fire(m.row, m.incident, m.owner, t, (d) => (repo.insertDelivery(d) ? 1 : 0)), 0);
      const groupId = storms.createGroup(userId, t);
      const perMethod = new Map<number, GroupedIncident[]>();
      let queued = 0;
      for (const m of members) {
        storms.setGroup(m.incident.incident_id, groupId);
        const grouped = { ...m.incident, group_id: groupId };
        queued += deps.fire(m.row, grouped, m.owner, t, (d) => {
          if (UNGROUPED.has(platformOf(userId, d.methodId))) return repo.insertDelivery(d) ? 1 : 0;
          const list = perMethod.get(d.methodId) ?? [];
          list.push(item(grouped, m.owner));
          perMethod.set(d.methodId, list);
          return 0;
        });
        esc.event(m.incident.incident_id, t, 'grouped', null, null, `Sent in a group of ${members.length} incidents (a storm)`);
      }
      for (const [methodId, incidents] of perMethod) {
        const e = groupEvent('incident.group_opened', groupId, t, incidents);
        if (repo.insertDelivery({ userId, methodId, incidentId: null, groupId, event: e, key: `grp${groupId}-opened-m${methodId}`, now: t })) queued++;
      }
      log.info({ userId, groupId, incidents: members.length, methods: perMethod.size }, 'storm: first messages grouped');
      return queued;
    },

    /** Tells grouped incidents' recoveries, grouped: once all of a group resolved, or a hold after the first unsaid one did. */
    recoveries(t: number): number {
      const byGroup = new Map<number, typeof due>();
      const due = storms.unannouncedRecoveries(BATCH);
      for (const r of due) byGroup.set(r.group_id, [...(byGroup.get(r.group_id) ?? []), r]);
      let queued = 0;
      for (const [groupId, resolved] of byGroup) {
        const oldest = Math.min(...resolved.map((r) => r.resolved_at));
        if (storms.openInGroup(groupId) > 0 && oldest > t - deps.holdMs) continue;
        queued += repo.transaction(() => {
          const openings = storms.openings(groupId);
          const perMethod = new Map<number, GroupedIncident[]>();
          let n = 0;
          for (const r of resolved) {
            if (!storms.markRecoverySent(r.incident_id) || r.resolved_silently === 1) continue;
            const owner = deps.ownerOf(r);
            if (!owner) continue;
            const targets = new Set([...openings.filter((o) => o.incidentIds.includes(r.incident_id)).map((o) => o.methodId), ...esc.notifiedMethodIds(r.incident_id)]);
            for (const m of targets) {
              if (UNGROUPED.has(platformOf(r.user_id, m))) {
                const e = incidentEvent('incident.resolved', r, owner, t);
                if (repo.insertDelivery({ userId: r.user_id, methodId: m, incidentId: r.incident_id, event: e, key: `inc${r.incident_id}-resolved-m${m}`, now: t })) n++;
                continue;
              }
              perMethod.set(m, [...(perMethod.get(m) ?? []), item(r, owner)]);
            }
          }
          const userId = resolved[0].user_id;
          for (const [methodId, incidents] of perMethod) {
            const first = Math.min(...incidents.map((i) => i.incident.id));
            const e = groupEvent('incident.group_resolved', groupId, t, incidents);
            if (repo.insertDelivery({ userId, methodId, incidentId: null, groupId, event: e, key: `grp${groupId}-resolved-i${first}-m${methodId}`, now: t })) n++;
          }
          if (n) log.info({ groupId, incidents: resolved.length }, 'storm: recoveries grouped');
          return n;
        });
      }
      return queued;
    },
  };
}
