// The agent's link to the control plane: register once, then per session heartbeat, watch
// assignments and drain the outbox on ReportResults; any failure ends the session and, unless it
// is fatal, a new one starts after a jittered backoff. Checking never waits for the link.
import {
  grpc,
  type AgentServiceClient, type AssignmentUpdate, type BatchAck, type HeartbeatRequest, type RegisterResponse,
  type ResultBatch,
} from '@upfleet/proto';
import type { Logger } from 'pino';
import type { AgentTls } from '../config';
import type { Outbox, AgentIdentity } from '../buffer/sqlite-outbox';
import type { Scheduler } from '../scheduler/scheduler';
import { createBackoff, type Backoff } from './backoff';
import { agentMetadata, createAgentClient } from './client';
import { classifyLinkError, LinkFatalError } from './errors';

export type LinkState = 'idle' | 'connecting' | 'connected' | 'backoff' | 'stopped' | 'fatal';
export const LINK_STATES: LinkState[] = ['idle', 'connecting', 'connected', 'backoff', 'stopped', 'fatal'];

export interface LinkDeps {
  controlPlane: string;
  tls: AgentTls;
  region: string;
  token: string;
  hostname: string;
  version: string;
  batchSize: number;
  flushIntervalMs: number;
  maxBatchesInFlight: number;
  outbox: Outbox;
  scheduler: Pick<Scheduler, 'replaceAll' | 'upsert' | 'remove'>;
  heartbeat: () => HeartbeatRequest;
  logger: Logger;
  /** called once with a clear line when retrying cannot help (revoked token or credential) */
  onFatal: (message: string) => void;
  backoff?: Backoff;
  /** a nacked batch waits this long before it is offered again */
  nackDelayMs?: number;
}

export interface LinkStats {
  state: LinkState;
  sessions: number;
  batchesSent: number;
  batchesAcked: number;
  batchesNacked: number;
  resultsAcked: number;
  inFlight: number;
  assignmentsVersion: number;
  lastError: string;
}

export interface Link {
  start(): void;
  /** sends what it can within flushMs, then closes the streams */
  stop(flushMs?: number): Promise<void>;
  /** new results are waiting: send now if a batch is full */
  nudge(): void;
  stats(): LinkStats;
}

interface Session {
  pump(force: boolean): void;
  /** pending rows and in-flight batches */
  idle(): boolean;
  close(): void;
}

export function createLink(deps: LinkDeps): Link {
  const log = deps.logger;
  const backoff = deps.backoff ?? createBackoff();
  const nackDelayMs = deps.nackDelayMs ?? 1000;
  const stats: LinkStats = {
    state: 'idle', sessions: 0, batchesSent: 0, batchesAcked: 0, batchesNacked: 0, resultsAcked: 0,
    inFlight: 0, assignmentsVersion: deps.outbox.loadAssignments().version, lastError: '',
  };
  let stopping = false;
  let session: Session | undefined;
  let wake: (() => void) | undefined;
  let loop: Promise<void> | undefined;
  let endSession: ((err?: unknown) => void) | undefined;

  const sleep = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      const t = setTimeout(() => { wake = undefined; resolve(); }, ms);
      wake = () => { clearTimeout(t); wake = undefined; resolve(); };
    });

  async function register(client: AgentServiceClient): Promise<AgentIdentity> {
    if (!deps.token) throw new LinkFatalError('no saved agent identity and no bootstrap token: pass --token (UPFLEET_TOKEN)');
    const res = await new Promise<RegisterResponse>((resolve, reject) => {
      client.Register(
        { bootstrap_token: deps.token, region: deps.region, hostname: deps.hostname, version: deps.version },
        new grpc.Metadata(),
        { deadline: Date.now() + 15_000 },
        (err, r) => (err ? reject(err) : resolve(r!)),
      );
    });
    const identity: AgentIdentity = {
      agent_id: res.agent_id,
      agent_secret: res.agent_secret,
      region: res.region || deps.region,
      lease_seconds: res.lease_seconds,
      heartbeat_interval_seconds: res.heartbeat_interval_seconds,
    };
    deps.outbox.saveIdentity(identity);
    log.info({ agentId: identity.agent_id, region: identity.region }, 'agent registered');
    return identity;
  }

  function applyUpdate(u: AssignmentUpdate): void {
    // `update` names the oneof member that is set; unset members decode as null.
    const kind = u.update ?? (u.snapshot ? 'snapshot' : u.delta ? 'delta' : undefined);
    if (kind === 'snapshot' && u.snapshot) {
      const list = u.snapshot.assignments ?? [];
      deps.scheduler.replaceAll(list);
      deps.outbox.saveSnapshot(u.version, list);
      log.info({ version: u.version, assignments: list.length }, 'assignment snapshot');
    } else if (kind === 'delta' && u.delta) {
      const ups = u.delta.upserts ?? [];
      const removed = u.delta.removed_check_ids ?? [];
      deps.scheduler.remove(removed);
      deps.scheduler.upsert(ups);
      deps.outbox.applyDelta(u.version, ups, removed);
      log.debug({ version: u.version, upserts: ups.length, removed: removed.length }, 'assignment delta');
    }
    stats.assignmentsVersion = u.version;
  }

  /** One connected session; resolves or rejects when any of its calls ends. */
  function runSession(client: AgentServiceClient, identity: AgentIdentity): Promise<void> {
    const md = agentMetadata(identity.agent_id, identity.agent_secret);
    return new Promise<void>((resolve, reject) => {
      const inflight = new Set<string>();
      let lastSendAt = 0;
      let holdUntil = 0;
      let ended = false;
      let flushTimer: NodeJS.Timeout | undefined;
      let hbTimer: NodeJS.Timeout | undefined;

      const markConnected = (): void => {
        if (stats.state !== 'connected') {
          stats.state = 'connected';
          backoff.reset();
          log.info({ controlPlane: deps.controlPlane }, 'connected to control plane');
        }
      };

      const watch = client.WatchAssignments({ known_version: stats.assignmentsVersion }, md);
      const report = client.ReportResults(md);

      const finish = (err?: unknown): void => {
        if (ended) return;
        ended = true;
        clearInterval(flushTimer);
        clearInterval(hbTimer);
        watch.removeAllListeners('data');
        report.removeAllListeners('data');
        watch.on('error', () => {});
        report.on('error', () => {});
        watch.cancel();
        report.cancel();
        for (const id of inflight) deps.outbox.release(id);
        inflight.clear();
        stats.inFlight = 0;
        session = undefined;
        endSession = undefined;
        if (err) reject(err);
        else resolve();
      };
      endSession = finish;

      const pump = (force: boolean): void => {
        if (ended) return;
        const now = Date.now();
        if (now < holdUntil && !force) return;
        while (inflight.size < deps.maxBatchesInFlight) {
          const full = deps.outbox.pendingBatches() > 0 || deps.outbox.unbatched() >= deps.batchSize;
          const due = force || now - lastSendAt >= deps.flushIntervalMs;
          if (!full && !(due && deps.outbox.unbatched() > 0)) break;
          const batch: ResultBatch | undefined = deps.outbox.takeBatch(deps.batchSize);
          if (!batch) break;
          inflight.add(batch.batch_id);
          stats.inFlight = inflight.size;
          stats.batchesSent++;
          lastSendAt = now;
          report.write(batch);
        }
      };

      session = {
        pump,
        idle: () => inflight.size === 0 && deps.outbox.unbatched() === 0 && deps.outbox.pendingBatches() === 0,
        close: () => finish(),
      };

      watch.on('data', (u: AssignmentUpdate) => {
        markConnected();
        try {
          applyUpdate(u);
        } catch (err) {
          log.error({ err }, 'cannot apply assignment update');
        }
      });
      watch.on('error', (err) => finish(err));
      watch.on('end', () => finish(new Error('assignment stream ended by the control plane')));

      report.on('data', (ack: BatchAck) => {
        if (!inflight.delete(ack.batch_id)) return;
        stats.inFlight = inflight.size;
        if (ack.ok) {
          stats.batchesAcked++;
          stats.resultsAcked += deps.outbox.ack(ack.batch_id);
        } else {
          stats.batchesNacked++;
          deps.outbox.release(ack.batch_id);
          holdUntil = Date.now() + nackDelayMs;
          log.warn({ batchId: ack.batch_id, error: ack.error }, 'control plane refused a batch; will resend');
        }
        pump(false);
      });
      report.on('error', (err) => finish(err));
      report.on('end', () => finish(new Error('result stream ended by the control plane')));

      const heartbeat = (): void => {
        client.Heartbeat(deps.heartbeat(), md, { deadline: Date.now() + 10_000 }, (err) => {
          if (err) finish(err);
          else markConnected();
        });
      };
      heartbeat();
      hbTimer = setInterval(heartbeat, Math.max(1, identity.heartbeat_interval_seconds || 10) * 1000);
      flushTimer = setInterval(() => pump(false), Math.min(deps.flushIntervalMs, 250));
      pump(false);
    });
  }

  async function run(): Promise<void> {
    while (!stopping) {
      let delay = 0;
      stats.state = 'connecting';
      let client: AgentServiceClient | undefined;
      let during: 'register' | 'session' = 'session';
      try {
        client = await createAgentClient(deps.controlPlane, deps.tls);
        let identity = deps.outbox.getIdentity();
        if (!identity) {
          during = 'register';
          identity = await register(client);
          during = 'session';
        }
        if (stopping) break;
        stats.sessions++;
        await runSession(client, identity);
      } catch (err) {
        if (stopping) break;
        const c = classifyLinkError(err, during);
        stats.lastError = c.message;
        if (c.kind === 'fatal') {
          stats.state = 'fatal';
          log.fatal({ controlPlane: deps.controlPlane }, c.message);
          deps.onFatal(c.message);
          return;
        }
        delay = backoff.next();
        stats.state = 'backoff';
        log.warn({ err: c.message, retryInMs: delay }, 'control plane link down; checks continue');
      } finally {
        client?.close();
      }
      if (!stopping && delay > 0) await sleep(delay);
    }
    stats.state = 'stopped';
  }

  return {
    start() {
      if (!loop) loop = run();
    },
    async stop(flushMs = 3000) {
      if (stopping) return loop;
      stopping = true;
      const s = session;
      if (s) {
        const deadline = Date.now() + flushMs;
        while (Date.now() < deadline && session === s && !s.idle()) {
          s.pump(true);
          await new Promise((r) => setTimeout(r, 25));
        }
        endSession?.();
      }
      wake?.();
      await loop;
      stats.state = 'stopped';
    },
    nudge() {
      session?.pump(false);
    },
    stats: () => ({ ...stats }),
  };
}
