// Alerting: incidents from stored results and heartbeats, their deliveries, and the alert settings
// (thresholds and methods) the owner edits.
import { createAlerting } from '../alerting';
import { createChannels } from '../alerting/channels';
import { createIncidentHandling } from '../alerting/handling';
import { createHandlingRepo } from '../alerting/handling-repo';
import { createAlertingRepo } from '../alerting/repo';
import { createEscalationRepo } from '../alerting/escalation-repo';
import { createThreadsRepo } from '../alerting/threads-repo';
import { createStormsRepo } from '../alerting/storms-repo';
import { createAlertService } from '../alerting/settings';
import { createAlertsRepo } from '../alerting/settings-repo';
import { createTimelineRepo } from '../alerting/timeline-repo';
import { createEscalationPolicyService } from '../alerting/escalation-policies';
import { createEscalationPoliciesRepo } from '../alerting/escalation-policies-repo';
import type { MaintenanceService } from '../maintenance';
import type { EventHub } from '../services/events';
import type { LiveStateService } from '../services/live-state';
import type { StatusPageService } from '../services/status-pages';
import type { Foundation } from './foundation';
import { whileLeader, type Feature } from './lifecycle';
import { alertMethodRoutes } from '../http/routes/alert-methods';
import { incidentRoutes } from '../http/routes/incidents';
import { incidentHandlingRoutes } from '../http/routes/incident-handling';
import { ackLinkRoutes } from '../http/routes/ack-links';
import { escalationPolicyRoutes } from '../http/routes/escalation-policies';

export function createAlertingFeature(base: Foundation, deps: { maintenance: MaintenanceService; statusPages: StatusPageService; events: EventHub; live: LiveStateService },
  opts: { now?: () => number; escalationPollMs?: number; stormHoldMs?: number } = {}) {
  const { config } = base;
  const alertsRepo = createAlertsRepo(base.db);
  const storms = createStormsRepo(base.db);
  const incidents = createIncidentHandling({
    repo: createHandlingRepo(base.db), timeline: createTimelineRepo(base.sql.db), alerts: alertsRepo, box: base.box,
    linkKey: base.key('incident-ack-links'), publicUrl: base.publicUrl, logger: base.logger, now: base.now,
    // Read when an acknowledgement happens, after both are built.
    onAcknowledged: () => alerting.acknowledged(),
  });
  // Auto reports are written after the incident (the evaluator does not wait on the database); a failure is logged.
  const hookFailed = (err: Error) => base.logger.error({ err: err.message }, 'status page auto report failed');
  const alerting = createAlerting({
    inMaintenance: (urlId, ts) => deps.maintenance.inMaintenance(urlId, ts),
    // The dashboard row's state, auto reports on status pages, and fresh component states.
    incidentHooks: {
      opened: (i) => {
        deps.live.incidentChanged(i.url_id);
        void deps.statusPages.incidentHooks.opened(i).catch(hookFailed);
      },
      resolved: (i) => {
        deps.live.incidentChanged(i.url_id);
        void deps.statusPages.incidentHooks.resolved(i).catch(hookFailed);
      },
    },
    emailVerified: base.emailVerified,
    ackUrl: (incidentId, methodId) => incidents.ackUrl(incidentId, methodId),
    repo: createAlertingRepo(base.db),
    escalations: createEscalationRepo(base.db),
    storms,
    stormHoldMs: opts.stormHoldMs ?? config.alerting.groupHoldSeconds * 1000,
    groupAckUrl: (groupId, methodId) => incidents.groupAckUrl(groupId, methodId),
    threads: createThreadsRepo(base.sql.db),
    now: opts.now,
    escalationPollMs: opts.escalationPollMs,
    alerts: alertsRepo,
    box: base.box,
    logger: base.logger,
    regionLabel: base.regionLabel,
    primaryRegion: base.primaryRegionKey,
    channels: createChannels({
      publicUrl: config.publicUrl,
      allowPrivateTargets: config.allowPrivateTargets,
      slackApiUrl: config.alerting.slackApiUrl,
      telegramApiUrl: config.alerting.telegramApiUrl,
      pagerdutyApiUrl: config.alerting.pagerdutyApiUrl,
      twilio: config.alerting.twilio,
      smtp: { url: config.alerting.smtpUrl, from: config.alerting.smtpFrom },
    }),
    metrics: base.metrics,
    onIncidentEvent: (userId, e) => deps.events.publish(userId, e.type as 'incident.opened' | 'incident.resolved', { url_id: e.endpoint?.id ?? null, ...e }),
  });
  alerting.followChanges(base.changes);
  const alerts = createAlertService({
    alerts: alertsRepo, endpoints: base.endpointsRepo, catalog: base.catalog, box: base.box, onThresholdsChanged: (urlId) => alerting.thresholdsChanged(urlId),
    limiter: base.limiter, advancedAlerts: async (userId) => (await base.planOf(userId)).advanced_alerts, emailVerified: base.emailVerified,
    storms, now: base.now,
  });
  const escalationPolicies = createEscalationPolicyService({ repo: createEscalationPoliciesRepo(base.sql.db), planOf: base.planOf, now: base.now });
  return {
    name: 'alerting',
    services: { alerting, alerts, incidents, escalationPolicies },
    routes: () => ({
      // An acknowledge link carries its own credential (a signed token): outside /api, like a heartbeat's ping.
      outside: [ackLinkRoutes({ incidents })],
      workspace: [
        ...alertMethodRoutes({ alerts, alerting }), ...incidentRoutes({ incidents }), ...incidentHandlingRoutes({ incidents }),
        ...escalationPolicyRoutes({ escalationPolicies }),
      ],
    }),
    // The delivery outbox, escalations and incident retention run once in a cluster: on the lease holder.
    ...whileLeader(base.leadership, { start: () => alerting.start(), stop: () => alerting.stop() }),
  } satisfies Feature<unknown>;
}
