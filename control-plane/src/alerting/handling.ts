// Incidents people handle: the list with its state and who acknowledged, one incident with its
// timeline, acknowledging (in the app, or through a message's signed link), and MTTA/MTTR. The
// acknowledge is one compare-and-set statement (handling-repo.ts), the only one: every path (the
// app, the bulk and group acknowledge, the link) goes through it, records the timeline entry once
// and wakes the escalator, which ends the escalation and tells Slack and PagerDuty once.
import crypto from 'node:crypto';
import {
  SECRET_FIELDS, type AlertPlatform, type Incident, type IncidentAcker, type IncidentDetail, type IncidentsAcknowledged, type IncidentState, type IncidentStats,
  type IncidentTimelineEntry,
} from '@upfleet/proto/rest';
import { conflict, notFound } from '../errors';
import { safeEqual, type SecretBox } from '../lib/crypto';
import type { Logger } from '../logger';
import type { HandledIncidentRow, HandlingRepo } from './handling-repo';
import { maskSecret } from './settings';
import type { AlertsRepo } from './settings-repo';
import type { TimelineRepo } from './timeline-repo';

export const RESOLVED_CANNOT_ACK = "A resolved incident can't be acknowledged";
export const ALREADY_ACKNOWLEDGED = 'This incident is already acknowledged';
export const INCIDENT_NOT_FOUND = 'Incident not found';
export const GROUP_NOT_FOUND = 'Incident group not found';

const LIST_LIMIT = 500;
const STATS_DEFAULT_RANGE_MS = 30 * 86_400_000;
const iso = (t: number | null) => (t === null ? null : new Date(t).toISOString());

export interface HandlingDeps {
  repo: HandlingRepo;
  timeline: TimelineRepo;
  alerts: AlertsRepo;
  box: SecretBox;
  /** The key acknowledge links are signed with (derived from the server's master key). */
  linkKey: Buffer;
  /** This server's public address for links in messages (PUBLIC_URL, else where it listens). */
  publicUrl: () => string;
  logger: Logger;
  now?: () => number;
  /** Incidents were acknowledged just now (the escalator stops them at once rather than at its next pass). */
  onAcknowledged?(this: void, incidentIds: number[]): void;
}

/** Where a link's acknowledgement stands, for the confirmation page (a storm group's link: its incidents still open). */
export type AckLinkState =
  | { ok: true; incident: Incident; alertMethodId: number; group?: { group_id: number; incidents: Incident[] } }
  | { ok: false; status: 404 | 409 | 410; reason: string };

export function createIncidentHandling(deps: HandlingDeps) {
  const now = deps.now ?? Date.now;
  const log = deps.logger.child({ component: 'incidents' });

  const stateOf = (r: HandledIncidentRow): IncidentState => (r.resolved_at !== null ? 'resolved' : r.acknowledged_at !== null ? 'acknowledged' : 'open');
  const ackerOf = (r: HandledIncidentRow): IncidentAcker | null => {
    if (r.acknowledged_at === null) return null;
    if (r.acknowledged_by === null) return { user_id: null, name: null, email: null, via: 'link' };
    return { user_id: r.acknowledged_by, name: r.acker_name, email: r.acker_email, via: 'app' };
  };
  const toIncident = (r: HandledIncidentRow): Incident => ({
    incident_id: r.incident_id,
    url_id: r.url_id,
    condition: r.condition,
    regions: JSON.parse(r.regions) as string[],
    cause: r.cause,
    flapping: r.flapping === 1,
    opened_at: new Date(r.opened_at).toISOString(),
    resolved_at: iso(r.resolved_at),
    state: stateOf(r),
    acknowledged_at: iso(r.acknowledged_at),
    acknowledged_by: ackerOf(r),
    endpoint_name: r.endpoint_name,
    suppressed_by: r.suppressed_by ?? null,
    group_id: r.group_id ?? null,
  });

  /** A provider's answer may echo a URL or token of the method: shown masked, as the method's own GET shows them. */
  function masker(userId: number): (methodId: number, text: string | null) => string | null {
    const secrets = new Map<number, Array<[string, string]>>();
    return (methodId, text) => {
      if (text === null) return null;
      if (!secrets.has(methodId)) {
        const row = deps.alerts.method(userId, methodId);
        let config: Record<string, string> = {};
        try {
          if (row) config = JSON.parse(deps.box.open(row.config_enc)) as Record<string, string>;
        } catch {
          config = {};
        }
        const fields = [...SECRET_FIELDS, 'signing_secret'];
        secrets.set(methodId, Object.entries(config).filter(([k, v]) => fields.includes(k) && typeof v === 'string' && v.length >= 4));
      }
      let out = text;
      for (const [field, value] of secrets.get(methodId)!) out = out.split(value).join(maskSecret(field, value));
      return out;
    };
  }

  function sign(incidentId: number, methodId: number): string {
    return crypto.createHmac('sha256', deps.linkKey).update(`ack:${incidentId}:${methodId}`).digest('base64url').slice(0, 32);
  }
  const signGroup = (groupId: number, methodId: number) =>
    crypto.createHmac('sha256', deps.linkKey).update(`ack-group:${groupId}:${methodId}`).digest('base64url').slice(0, 32);

  /** The incident and recipient a token names, or null when it is malformed or its signature is wrong. */
  function readToken(token: string): { incidentId: number; methodId: number } | null {
    const m = /^([1-9]\d{0,14})\.([1-9]\d{0,14})\.([A-Za-z0-9_-]{32})$/.exec(token);
    if (!m) return null;
    const incidentId = Number(m[1]);
    const methodId = Number(m[2]);
    return safeEqual(sign(incidentId, methodId), m[3]) ? { incidentId, methodId } : null;
  }

  /** A storm group's token ('g' + group id): the group and recipient, or null. */
  function readGroupToken(token: string): { groupId: number; methodId: number } | null {
    const m = /^g([1-9]\d{0,14})\.([1-9]\d{0,14})\.([A-Za-z0-9_-]{32})$/.exec(token);
    if (!m) return null;
    const groupId = Number(m[1]);
    const methodId = Number(m[2]);
    return safeEqual(signGroup(groupId, methodId), m[3]) ? { groupId, methodId } : null;
  }

  /** A group's incidents (by its signed token, so by id), and of them those still to acknowledge. */
  function groupOf(groupId: number): { all: HandledIncidentRow[]; open: HandledIncidentRow[] } {
    const all = deps.repo.groupMembers(groupId);
    return { all, open: all.filter((r) => r.resolved_at === null && r.acknowledged_at === null) };
  }
  function groupRefusal(g: { all: HandledIncidentRow[]; open: HandledIncidentRow[] }): { status: 404 | 409 | 410; reason: string } | null {
    if (g.all.length === 0) return { status: 404, reason: 'This acknowledge link is not valid.' };
    if (g.open.length > 0) return null;
    if (g.all.every((r) => r.resolved_at !== null)) return { status: 410, reason: 'These incidents are resolved: there is nothing left to acknowledge.' };
    return { status: 409, reason: 'These incidents were already acknowledged or resolved: the link works once.' };
  }

  function refusal(r: HandledIncidentRow | undefined): { status: 404 | 409 | 410; reason: string } | null {
    if (!r) return { status: 404, reason: 'This acknowledge link is not valid.' };
    if (r.resolved_at !== null) return { status: 410, reason: 'This incident is resolved: there is nothing left to acknowledge.' };
    if (r.acknowledged_at !== null) return { status: 409, reason: 'This incident was already acknowledged: the link works once.' };
    return null;
  }

  const api = {
    list(userId: number, f: { urlId: number | null; status: 'open' | 'resolved' | null; state: IncidentState | null }): Incident[] {
      return deps.repo.list(userId, { ...f, limit: LIST_LIMIT }).map(toIncident);
    },

    async detail(userId: number, id: number): Promise<IncidentDetail> {
      const r = deps.repo.incident(userId, id);
      if (!r) throw notFound(INCIDENT_NOT_FOUND);
      const incident = toIncident(r);
      const mask = masker(userId);
      const platforms = new Map(deps.alerts.methods(userId).map((m) => [m.alert_method_id, m.platform as AlertPlatform]));
      const entry = (at: number, type: string, rest: Partial<IncidentTimelineEntry> = {}): IncidentTimelineEntry => ({
        at: new Date(at).toISOString(), type, step: null, alert_method_id: null, platform: null, detail: '', delivery: null, by: null, ...rest,
      });
      const timeline: Array<[number, IncidentTimelineEntry]> = [[r.opened_at, entry(r.opened_at, 'opened', { detail: r.cause })]];
      for (const d of deps.repo.deliveries(userId, id)) {
        timeline.push([d.created_at, entry(d.created_at, 'delivery', {
          step: d.step, alert_method_id: d.alert_method_id, platform: (d.platform as AlertPlatform | null) ?? null, detail: d.event,
          delivery: { delivery_id: d.delivery_id, event: d.event, status: d.status, attempts: d.attempts, last_error: mask(d.alert_method_id, d.last_error), delivered_at: iso(d.delivered_at) },
        })]);
      }
      const events = await deps.timeline.of(id);
      const ackEvent = events.find((e) => e.type === 'acknowledged');
      for (const e of events) {
        if (e.type === 'acknowledged') continue; // shown once, below, with who
        const platform = e.alert_method_id === null ? null : platforms.get(e.alert_method_id) ?? null;
        timeline.push([e.at, entry(e.at, e.type, { step: e.step, alert_method_id: e.alert_method_id, platform, detail: e.detail })]);
      }
      if (r.acknowledged_at !== null) {
        const methodId = ackEvent?.alert_method_id ?? null;
        timeline.push([r.acknowledged_at, entry(r.acknowledged_at, 'acknowledged', {
          alert_method_id: methodId, platform: methodId === null ? null : platforms.get(methodId) ?? null, detail: ackEvent?.detail ?? '', by: incident.acknowledged_by,
        })]);
      }
      if (r.resolved_at !== null) timeline.push([r.resolved_at, entry(r.resolved_at, 'resolved')]);
      // Stable by time; at one instant the order above (opened, deliveries, events, acknowledged, resolved) holds.
      return { ...incident, timeline: timeline.map((t, i) => [t, i] as const).sort((a, b) => a[0][0] - b[0][0] || a[1] - b[1]).map(([t]) => t[1]) };
    },

    /** Acknowledges in the app (editor and above, or an API key): 409 when resolved or already acknowledged. */
    async acknowledge(userId: number, id: number, memberId: number): Promise<Incident> {
      const t = now();
      if (!deps.repo.acknowledge(userId, id, memberId, t)) {
        const r = deps.repo.incident(userId, id);
        if (!r) throw notFound(INCIDENT_NOT_FOUND);
        throw conflict(r.resolved_at !== null ? RESOLVED_CANNOT_ACK : ALREADY_ACKNOWLEDGED);
      }
      deps.onAcknowledged?.([id]);
      await deps.timeline.add({ incident_id: id, at: t, type: 'acknowledged', step: null, alert_method_id: null, detail: 'in the app' });
      log.info({ incidentId: id, memberId }, 'incident acknowledged');
      return toIncident(deps.repo.incident(userId, id)!);
    },

    /** Acknowledges several at once (a storm): each open one of the workspace; the rest are skipped with why. */
    async acknowledgeMany(userId: number, ids: number[], memberId: number | null): Promise<IncidentsAcknowledged> {
      const unique = [...new Set(ids)];
      const t = now();
      const done = new Set(deps.repo.acknowledgeMany(userId, unique, memberId, t));
      if (done.size) deps.onAcknowledged?.([...done]);
      for (const id of done) await deps.timeline.add({ incident_id: id, at: t, type: 'acknowledged', step: null, alert_method_id: null, detail: 'in the app' });
      if (done.size) log.info({ incidentIds: [...done], memberId }, 'incidents acknowledged');
      const skipped = unique.filter((id) => !done.has(id)).map((id) => {
        const r = deps.repo.incident(userId, id);
        return { incident_id: id, reason: !r ? INCIDENT_NOT_FOUND : r.resolved_at !== null ? RESOLVED_CANNOT_ACK : ALREADY_ACKNOWLEDGED };
      });
      return { acknowledged: unique.filter((id) => done.has(id)), skipped };
    },

    /** Acknowledges every open incident of a storm group of the workspace (404: no such group). */
    async acknowledgeGroup(userId: number, groupId: number, memberId: number): Promise<IncidentsAcknowledged> {
      const ids = deps.repo.groupMembers(groupId).filter((r) => r.user_id === userId).map((r) => r.incident_id);
      if (ids.length === 0) throw notFound(GROUP_NOT_FOUND);
      return api.acknowledgeMany(userId, ids, memberId);
    },

    /** The link a storm group's message to `methodId` carries: a POST acknowledges every open incident of the group. */
    groupAckUrl(groupId: number, methodId: number): string {
      return `${deps.publicUrl().replace(/\/+$/, '')}/ack/g${groupId}.${methodId}.${signGroup(groupId, methodId)}`;
    },

    /** The link a message to `methodId` about `incidentId` carries: it acknowledges on POST only. */
    ackUrl(incidentId: number, methodId: number): string {
      return `${deps.publicUrl().replace(/\/+$/, '')}/ack/${incidentId}.${methodId}.${sign(incidentId, methodId)}`;
    },

    /** What the link's confirmation page shows; changes nothing. */
    linkState(token: string): AckLinkState {
      const gt = readGroupToken(token);
      if (gt) {
        const g = groupOf(gt.groupId);
        const refusedGroup = groupRefusal(g);
        if (refusedGroup) return { ok: false, ...refusedGroup };
        return { ok: true, incident: toIncident(g.open[0]), alertMethodId: gt.methodId, group: { group_id: gt.groupId, incidents: g.open.map(toIncident) } };
      }
      const t = readToken(token);
      const r = t ? deps.repo.incidentById(t.incidentId) : undefined;
      const refused = refusal(r);
      if (refused) return { ok: false, ...refused };
      return { ok: true, incident: toIncident(r!), alertMethodId: t!.methodId };
    },

    /** Acknowledges through a link, once: recorded as acknowledged via the link of the recipient's method. */
    async acknowledgeByLink(token: string): Promise<AckLinkState> {
      const gt = readGroupToken(token);
      if (gt) {
        const g = groupOf(gt.groupId);
        const refusedGroup = groupRefusal(g);
        if (refusedGroup) return { ok: false, ...refusedGroup };
        const at = now();
        const done = deps.repo.acknowledgeMany(g.all[0].user_id, g.open.map((r) => r.incident_id), null, at);
        if (done.length === 0) return { ok: false, ...groupRefusal(groupOf(gt.groupId))! };
        deps.onAcknowledged?.(done);
        for (const id of done) await deps.timeline.add({ incident_id: id, at, type: 'acknowledged', step: null, alert_method_id: gt.methodId, detail: 'via group link' });
        log.info({ groupId: gt.groupId, incidentIds: done, alertMethodId: gt.methodId }, 'storm group acknowledged via link');
        const acked = done.map((id) => toIncident(deps.repo.incidentById(id)!));
        return { ok: true, incident: acked[0], alertMethodId: gt.methodId, group: { group_id: gt.groupId, incidents: acked } };
      }
      const t = readToken(token);
      const r = t ? deps.repo.incidentById(t.incidentId) : undefined;
      const refused = refusal(r);
      if (refused) return { ok: false, ...refused };
      const at = now();
      if (!deps.repo.acknowledge(r!.user_id, r!.incident_id, null, at)) return { ok: false, ...refusal(deps.repo.incidentById(r!.incident_id))! };
      deps.onAcknowledged?.([r!.incident_id]);
      await deps.timeline.add({ incident_id: r!.incident_id, at, type: 'acknowledged', step: null, alert_method_id: t!.methodId, detail: 'via link' });
      log.info({ incidentId: r!.incident_id, alertMethodId: t!.methodId }, 'incident acknowledged via link');
      return { ok: true, incident: toIncident(deps.repo.incidentById(r!.incident_id)!), alertMethodId: t!.methodId };
    },

    stats(userId: number, q: { from?: number; to?: number; url_id?: number }): IncidentStats {
      const to = q.to ?? now();
      const from = q.from ?? to - STATS_DEFAULT_RANGE_MS;
      const secs = (ms: number | null) => (ms === null ? null : Math.round(ms) / 1000);
      return {
        from: new Date(from).toISOString(),
        to: new Date(to).toISOString(),
        endpoints: deps.repo.stats(userId, from, to, q.url_id ?? null).map((s) => ({
          url_id: s.url_id, endpoint_name: s.endpoint_name, incidents: s.incidents, acknowledged: s.acknowledged, resolved: s.resolved,
          mtta_seconds: secs(s.mtta_ms), mttr_seconds: secs(s.mttr_ms),
        })),
      };
    },
  };
  return api;
}
export type IncidentHandling = ReturnType<typeof createIncidentHandling>;
