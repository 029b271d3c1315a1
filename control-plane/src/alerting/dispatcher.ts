// Drains the delivery outbox: due rows go to their channel; an ok marks them delivered, a final
// failure marks them failed, anything else is retried with exponential backoff and jitter (5 s up
// to 10 min between tries, for up to 24 h; a 429's Retry-After wins). A row is marked only after
// its try, so a crash in between sends it again after restart: at least once, with its idempotency key.
import type { AlertPlatform } from '@upfleet/proto/rest';
import type { Logger } from '../logger';
import type { AlertingRepo, DeliveryRow } from './repo';
import type { ThreadsRepo } from './threads-repo';
import type { AlertEvent, Channel, SendOutcome, ThreadContext, ThreadRef } from './types';

export const RETRY_MIN_MS = 5_000;
export const RETRY_MAX_MS = 10 * 60_000;
export const GIVE_UP_AFTER_MS = 24 * 3600_000;
/** Platforms whose channel threads an incident's messages (the dispatcher keeps their threads). */
const THREADED: ReadonlySet<AlertPlatform> = new Set(['slack']);
/** How long a reply waits for its thread's opening message before looking again. */
export const THREAD_WAIT_MS = 2_000;

export interface MethodForDelivery {
  platform: AlertPlatform;
  enabled: boolean;
  config: Record<string, string>;
  /** Set when this method may not send for its account now (e.g. email/SMS before verification). */
  refused?: string;
}

export interface DispatcherDeps {
  repo: AlertingRepo;
  channels: Record<AlertPlatform, Channel>;
  /** The method's decrypted config, or null when it no longer exists. */
  method(userId: number, methodId: number): MethodForDelivery | null | Promise<MethodForDelivery | null>;
  logger: Logger;
  now?: () => number;
  random?: () => number;
  /** How often due rows are looked for when nothing wakes the dispatcher. */
  pollMs?: number;
  concurrency?: number;
  onOutcome?(platform: AlertPlatform, result: 'delivered' | 'retry' | 'failed'): void;
  /** The acknowledge link for a message to one method about one incident (absent: messages carry none). */
  ackUrl?(incidentId: number, methodId: number): string;
  /** Incidents' threads per method (Slack); absent: every message stands alone. */
  threads?: ThreadsRepo;
  /** The acknowledge link of a storm group's message to one method. */
  groupAckUrl?(groupId: number, methodId: number): string;
}

/** Delay before try `attempt + 1` after `attempt` failed tries: doubling from 5 s, at most 10 min, ±25 % jitter. */
export function backoffMs(attempt: number, random: () => number = Math.random): number {
  const base = Math.min(RETRY_MAX_MS, RETRY_MIN_MS * 2 ** Math.max(0, attempt - 1));
  return Math.round(Math.min(RETRY_MAX_MS, Math.max(RETRY_MIN_MS, base * (0.75 + 0.5 * random()))));
}

export function createDispatcher(deps: DispatcherDeps) {
  const { repo } = deps;
  const now = deps.now ?? Date.now;
  const random = deps.random ?? Math.random;
  const concurrency = deps.concurrency ?? 32;
  const log = deps.logger.child({ component: 'alert-dispatcher' });
  const inFlight = new Map<number, Promise<void>>();
  let timer: NodeJS.Timeout | null = null;
  let stopped = true;

  async function send(platform: AlertPlatform, id: string, event: AlertEvent, config: Record<string, string>, ackUrl: string | null, thread?: ThreadContext): Promise<SendOutcome> {
    try {
      return await deps.channels[platform].send({ id, event, ...(ackUrl ? { ack_url: ackUrl } : {}) }, config, thread);
    } catch (err) {
      return { ok: false, final: false, error: (err as Error).message };
    }
  }

  async function attempt(row: DeliveryRow): Promise<void> {
    const m = await deps.method(row.user_id, row.alert_method_id);
    if (!m) return repo.markFailed(row.delivery_id, 'Alert method was deleted');
    if (!m.enabled) return repo.markFailed(row.delivery_id, 'Alert method is disabled');
    if (m.refused) return repo.markFailed(row.delivery_id, m.refused);
    const event = JSON.parse(row.payload) as AlertEvent;
    // Signed, so every retry carries the same link; made at send time, so it names this server's address now.
    let ackUrl = row.incident_id !== null && event.type === 'incident.opened' && deps.ackUrl ? deps.ackUrl(row.incident_id, row.alert_method_id) : null;
    if (event.type === 'incident.group_opened' && event.group) {
      // A storm's message: each incident's own link, and the group's (acknowledges every open one of it).
      for (const g of event.group.incidents) g.ack_url = deps.ackUrl ? deps.ackUrl(g.incident.id, row.alert_method_id) : null;
      ackUrl = deps.groupAckUrl ? deps.groupAckUrl(event.group.id, row.alert_method_id) : null;
    }
    let started: ThreadRef | null = null;
    const thread: ThreadContext | undefined = deps.threads && row.incident_id !== null && THREADED.has(m.platform)
      ? { ref: await deps.threads.get(row.incident_id, row.alert_method_id), started: (ref) => { started = ref; } }
      : undefined;
    // A reply whose thread is not started yet waits for the opening still being sent (a reminder or
    // an acknowledgement is not a new conversation).
    if (thread && !thread.ref && row.event !== 'opened' && repo.openingPending(row.incident_id!, row.alert_method_id, row.delivery_id)) {
      return repo.postpone(row.delivery_id, now() + THREAD_WAIT_MS);
    }
    const outcome = await send(m.platform, row.idempotency_key, event, m.config, ackUrl, thread);
    const t = now();
    if (outcome.ok) {
      if (started && row.incident_id !== null) await deps.threads!.save(row.incident_id, row.alert_method_id, started, t);
      repo.markDelivered(row.delivery_id, t);
      deps.onOutcome?.(m.platform, 'delivered');
      return;
    }
    if (!outcome.final) {
      const delay = outcome.retryAfterMs !== undefined ? Math.max(1000, outcome.retryAfterMs) : backoffMs(row.attempts + 1, random);
      if (t + delay <= row.created_at + GIVE_UP_AFTER_MS) {
        repo.markRetry(row.delivery_id, outcome.error, t + delay);
        deps.onOutcome?.(m.platform, 'retry');
        log.info({ deliveryId: row.delivery_id, platform: m.platform, error: outcome.error, retryInMs: delay }, 'delivery will be retried');
        return;
      }
    }
    repo.markFailed(row.delivery_id, outcome.final ? outcome.error : `gave up after 24 h: ${outcome.error}`);
    deps.onOutcome?.(m.platform, 'failed');
    log.warn({ deliveryId: row.delivery_id, platform: m.platform, error: outcome.error }, 'delivery failed');
  }

  function schedule(ms: number) {
    if (stopped) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(tick, ms);
    timer.unref();
  }

  function tick() {
    timer = null;
    if (stopped) return;
    try {
      const free = concurrency - inFlight.size;
      if (free > 0) {
        for (const row of repo.due(now(), free + inFlight.size)) {
          if (inFlight.has(row.delivery_id) || inFlight.size >= concurrency) continue;
          const p = attempt(row)
            .catch((err) => log.error({ err: (err as Error).message, deliveryId: row.delivery_id }, 'delivery bookkeeping failed'))
            .finally(() => {
              inFlight.delete(row.delivery_id);
              schedule(0);
            });
          inFlight.set(row.delivery_id, p);
        }
      }
    } catch (err) {
      log.error({ err: (err as Error).message }, 'outbox read failed');
    }
    const next = repo.nextDueAt();
    const poll = deps.pollMs ?? 1000;
    schedule(next === null ? poll : Math.min(poll, Math.max(50, next - now())));
  }

  return {
    start() {
      stopped = false;
      schedule(0);
    },
    /** New rows were queued: look now rather than at the next poll. */
    wake() {
      schedule(0);
    },
    /** Tries one send now, outside the outbox queue, and records it (the "Send test" button). */
    async sendNow(userId: number, methodId: number, key: string, event: AlertEvent): Promise<SendOutcome> {
      const m = await deps.method(userId, methodId);
      if (!m) return { ok: false, final: true, error: 'Alert method not found' };
      const outcome = await send(m.platform, key, event, m.config, null);
      repo.insertDelivery({ userId, methodId, incidentId: null, event, key, now: now(), done: { ok: outcome.ok, error: outcome.ok ? null : outcome.error } });
      return outcome;
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = null;
      await Promise.allSettled([...inFlight.values()]);
    },
  };
}
export type Dispatcher = ReturnType<typeof createDispatcher>;
