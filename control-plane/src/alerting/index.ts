// Alerting as one part: the evaluator (results → incidents + outbox rows), the dispatcher (outbox →
// channels), and what the REST routes read (incidents, deliveries, test sends).
import crypto from 'node:crypto';
import { Counter, Gauge, Summary, type Registry } from 'prom-client';
import type { CheckResult } from '@upfleet/proto';
import type { AlertDelivery, AlertPlatform } from '@upfleet/proto/rest';
import { badRequest, notFound } from '../errors';
import type { SecretBox } from '../lib/crypto';
import type { Logger } from '../logger';
import type { AlertsRepo } from './settings-repo';
import { createDispatcher, type MethodForDelivery } from './dispatcher';
import { createAlertEvaluator } from './evaluator';
import { createEscalator } from './escalation';
import type { EscalationRepo } from './escalation-repo';
import type { ThreadsRepo } from './threads-repo';
import { STORM_HOLD_MS } from './storms';
import type { StormsRepo } from './storms-repo';
import type { IncidentHooks } from './incidents';
import type { AlertingRepo } from './repo';
import type { AlertEvent, Channel } from './types';
import type { ChangeHub } from '../change-hub';

export interface AlertingDeps {
  repo: AlertingRepo;
  alerts: AlertsRepo;
  box: SecretBox;
  logger: Logger;
  regionLabel(this: void, key: string): string;
  primaryRegion(this: void): string | null;
  /** One channel per platform (createChannels(settings) in production). */
  channels: Record<AlertPlatform, Channel>;
  now?: () => number;
  pollMs?: number;
  /** Alerting registers its own metrics here: delivery tries, incident events, evaluation time, outbox depth. */
  metrics?: Registry;
  /** Email and SMS go out only for accounts with a verified email; unset: all do. */
  emailVerified?(userId: number): boolean | Promise<boolean>;
  /** Each incident opened or resolved, with its owner, once committed (the user's event stream). */
  onIncidentEvent?(this: void, userId: number, event: AlertEvent): void;
  /** Whether an endpoint was in a maintenance window at a result's time: such results are not evaluated. */
  inMaintenance?(this: void, urlId: number, tsMs: number): boolean;
  /** Told of incidents opening and resolving (status pages' auto reports). */
  incidentHooks?: IncidentHooks;
  /** The acknowledge link an opened incident's message to a method carries. */
  ackUrl?(this: void, incidentId: number, methodId: number): string;
  /** Running escalations (policies, reminders, dependencies); absent: every enabled method at once. */
  escalations?: EscalationRepo;
  /** How often the escalation worker looks for due steps (default 1 s). */
  escalationPollMs?: number;
  /** Incidents' threads per method (Slack replies and updates); absent: every message stands alone. */
  threads?: ThreadsRepo;
  /** Storms (with escalations): grouped messages; absent: every incident's messages go alone. */
  storms?: StormsRepo;
  /** How long a new incident's first message waits for a storm to form (default STORM_HOLD_MS; 0: no grouping). */
  stormHoldMs?: number;
  /** The acknowledge link of a storm group's message to a method (every open incident of the group). */
  groupAckUrl?(this: void, groupId: number, methodId: number): string;
}

/** Why an email or SMS delivery of an unverified account fails. */
export const UNVERIFIED_DELIVERY = 'Not sent: verify the account\'s email address first';

const DELIVERIES_SHOWN = 50;
const PRUNE_EVERY_MS = 3600_000;

export function createAlerting(deps: AlertingDeps) {
  const now = deps.now ?? Date.now;
  const log = deps.logger.child({ component: 'alerting' });
  const { channels } = deps;
  const registers = deps.metrics ? [deps.metrics] : [];
  const deliveries = new Counter({ name: 'upfleet_alert_deliveries_total', help: 'Alert delivery tries by platform and outcome', labelNames: ['platform', 'result'], registers });
  const events = new Counter({ name: 'upfleet_alert_events_queued_total', help: 'Outbox rows queued for incident events', registers });
  const evalSeconds = new Summary({ name: 'upfleet_alert_evaluation_duration_seconds', help: 'Time to evaluate one stored batch', percentiles: [], registers });
  new Gauge({
    name: 'upfleet_alert_outbox_pending', help: 'Alert deliveries waiting to be sent or retried', registers,
    collect() {
      this.set(deps.repo.pendingCount());
    },
  });

  // Per delivery (not per check): one account read with the method is fine here.
  async function method(userId: number, methodId: number): Promise<MethodForDelivery | null> {
    const row = deps.alerts.method(userId, methodId);
    if (!row) return null;
    let config: Record<string, string>;
    try {
      config = JSON.parse(deps.box.open(row.config_enc)) as Record<string, string>;
    } catch {
      config = {};
    }
    const platform = row.platform as AlertPlatform;
    const refused = (platform === 'email' || platform === 'sms') && deps.emailVerified && !(await deps.emailVerified(userId)) ? UNVERIFIED_DELIVERY : undefined;
    return { platform, enabled: row.is_enabled === 1, config, ...(refused ? { refused } : {}) };
  }

  const dispatcher = createDispatcher({
    repo: deps.repo, channels, method, logger: deps.logger, now, pollMs: deps.pollMs, ackUrl: deps.ackUrl, groupAckUrl: deps.groupAckUrl, threads: deps.threads,
    onOutcome: (platform, result) => deliveries.inc({ platform, result }),
  });
  const escalator = deps.escalations
    ? createEscalator({
      repo: deps.repo, esc: deps.escalations, logger: deps.logger, now, onQueued: () => dispatcher.wake(), pollMs: deps.escalationPollMs,
      storms: deps.storms, holdMs: deps.stormHoldMs ?? STORM_HOLD_MS,
    })
    : undefined;
  const evaluator = createAlertEvaluator({
    repo: deps.repo, logger: deps.logger, regionLabel: deps.regionLabel, primaryRegion: deps.primaryRegion, now,
    onQueued: () => dispatcher.wake(), skipResult: deps.inMaintenance, incidentHooks: deps.incidentHooks,
    onIncidentEvent: deps.onIncidentEvent, escalator,
  });
  let pruneTimer: NodeJS.Timeout | null = null;

  return {
    /** From report-results after a batch is stored. Never throws: alerting must not fail an ack. */
    onResultsStored(results: readonly CheckResult[]) {
      const done = evalSeconds.startTimer();
      try {
        events.inc(evaluator.evaluate(results).queued);
      } catch (err) {
        log.error({ err: (err as Error).message }, 'alert evaluation failed');
      } finally {
        done();
      }
    },
    evaluate: (results: readonly CheckResult[]) => evaluator.evaluate(results),
    /** A heartbeat went down (opens its down incident) or came back (resolves it); never throws. */
    heartbeat(urlId: number, down: boolean, cause: string, t: number): void {
      try {
        events.inc(evaluator.pushed(urlId, down, cause, t));
      } catch (err) {
        log.error({ urlId, err: (err as Error).message }, 'heartbeat incident not recorded');
      }
    },
    /** Endpoint edited, thresholds saved, plan changed: re-read what the evaluator caches. */
    invalidate: (urlId?: number) => evaluator.invalidate(urlId),
    /**
     * Follows the change hub: an endpoint's change re-reads its context, one no longer monitored has
     * its open incidents resolved silently, a plan or catalogue change re-reads every context.
     */
    followChanges(hub: ChangeHub): void {
      hub.endpoints.subscribe({
        changed: (id) => evaluator.invalidate(id ?? undefined),
        removed: (id) => evaluator.closeEndpoint(id),
      });
      hub.plans.subscribe({ changed: () => evaluator.invalidate() });
    },
    endpointClosed: (urlId: number) => evaluator.closeEndpoint(urlId),
    thresholdsChanged: (urlId: number) => evaluator.thresholdsChanged(urlId),

    listDeliveries(userId: number, methodId: number): AlertDelivery[] {
      if (!deps.alerts.method(userId, methodId)) throw notFound('Alert method not found');
      return deps.repo.deliveriesOf(userId, methodId, DELIVERIES_SHOWN).map((d) => ({
        delivery_id: d.delivery_id,
        incident_id: d.incident_id,
        event: d.event,
        status: d.status,
        attempts: d.attempts,
        last_error: d.last_error,
        created_at: new Date(d.created_at).toISOString(),
        delivered_at: d.delivered_at === null ? null : new Date(d.delivered_at).toISOString(),
        next_attempt_at: d.status === 'pending' ? new Date(d.next_attempt_at).toISOString() : null,
      }));
    },

    /** Sends a test message now; the provider's reason comes back as the error. */
    async sendTest(userId: number, methodId: number): Promise<{ delivered: true }> {
      if (!deps.alerts.method(userId, methodId)) throw notFound('Alert method not found');
      const event: AlertEvent = { type: 'test', occurred_at: new Date(now()).toISOString(), incident: null, endpoint: null };
      const outcome = await dispatcher.sendNow(userId, methodId, `test-${methodId}-${crypto.randomUUID()}`, event);
      if (!outcome.ok) throw badRequest(outcome.error);
      return { delivered: true };
    },

    /**
     * Incidents were acknowledged (by handling.ts, the one acknowledge path): the escalation worker
     * looks now, so their steps and reminders end and Slack and PagerDuty hear it without waiting a poll.
     */
    acknowledged(): void {
      escalator?.wake();
    },
    /** One escalation pass now (tests with a fake clock); returns the outbox rows it queued. */
    escalationTick: (): number => escalator?.tick() ?? 0,

    start() {
      dispatcher.start();
      escalator?.start();
      const prune = () => {
        try {
          deps.repo.prune(now());
        } catch (err) {
          log.warn({ err: (err as Error).message }, 'incident retention prune failed');
        }
      };
      prune();
      pruneTimer = setInterval(prune, PRUNE_EVERY_MS);
      pruneTimer.unref();
    },
    async stop() {
      escalator?.stop();
      if (pruneTimer) clearInterval(pruneTimer);
      await dispatcher.stop();
    },
  };
}
export type Alerting = ReturnType<typeof createAlerting>;
