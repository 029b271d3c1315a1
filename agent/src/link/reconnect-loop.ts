// The agent's link to the control plane: register once, then run sessions (session.ts: watch,
// report, heartbeat); when one ends, sort the error into transient or fatal (errors.ts) and
// reconnect after a jittered backoff. Checking never waits for the link.
import { grpc, type AgentServiceClient, type Assignment, type CheckResult, type HeartbeatRequest, type RegisterResponse } from '@upfleet/proto';
import type { Logger } from 'pino';
import { Gauge, type Registry } from 'prom-client';
import type { AgentTls } from '../config';
import { controlPlaneAddresses } from '@upfleet/proto/control-plane-address';
import type { AssignmentStore } from '../buffer/assignment-store';
import type { AgentIdentity, IdentityStore } from '../buffer/identity-store';
import type { Outbox } from '../buffer/sqlite-outbox';
import { totalFrom } from '../metrics';
import type { Scheduler } from '../scheduler/scheduler';
import type { AssignmentGate } from './assignment-watch';
import { createBackoff, type Backoff } from './backoff';
import { createAgentClient } from './client';
import { classifyLinkError, LinkFatalError } from './errors';
import { openSession, type Session } from './session';
import { splitJoinToken } from '@upfleet/proto/join-token';

export type LinkState = 'idle' | 'connecting' | 'connected' | 'backoff' | 'stopped' | 'fatal';
const LINK_STATES: LinkState[] = ['idle', 'connecting', 'connected', 'backoff', 'stopped', 'fatal'];

export interface LinkDeps {
  /** HOST:PORT, or several separated by commas: on a failure the link moves to the next, and back around. */
  controlPlane: string;
  tls: AgentTls;
  region: string;
  token: string;
  hostname: string;
  version: string;
  /** whether this agent can run browser checks, sent on every watch */
  browserChecks?: boolean;
  batchSize: number;
  flushIntervalMs: number;
  maxBatchesInFlight: number;
  outbox: Outbox;
  identity: IdentityStore;
  assignments: AssignmentStore;
  gate: AssignmentGate;
  scheduler: Pick<Scheduler, 'replaceAll' | 'upsert' | 'remove'>;
  /** "Run now": one run outside the schedule, answered with ReportRunNow (assignment-watch.ts) */
  runNow?: (check: Assignment) => Promise<CheckResult>;
  heartbeat: () => HeartbeatRequest;
  logger: Logger;
  /** called once with a clear line when retrying cannot help (revoked token or credential) */
  onFatal: (message: string) => void;
  backoff?: Backoff;
  /** a nacked batch waits this long before it is offered again */
  nackDelayMs?: number;
  /** the link's metrics are registered here */
  registry?: Registry;
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

async function register(client: AgentServiceClient, deps: LinkDeps): Promise<AgentIdentity> {
  if (!deps.token) throw new LinkFatalError('no saved agent identity and no bootstrap token: pass --token (UPFLEET_TOKEN)');
  const res = await new Promise<RegisterResponse>((resolve, reject) => {
    client.Register(
      // only the secret: the CA fingerprint a printed token carries stays here
      { bootstrap_token: splitJoinToken(deps.token).secret, region: deps.region, hostname: deps.hostname, version: deps.version },
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
  deps.identity.save(identity);
  deps.logger.info({ agentId: identity.agent_id, region: identity.region }, 'agent registered');
  return identity;
}

export function createLink(deps: LinkDeps): Link {
  const log = deps.logger;
  const backoff = deps.backoff ?? createBackoff();
  const stats: LinkStats = {
    state: 'idle', sessions: 0, batchesSent: 0, batchesAcked: 0, batchesNacked: 0, resultsAcked: 0,
    inFlight: 0, assignmentsVersion: deps.assignments.load().version, lastError: '',
  };
  registerLinkMetrics(deps.registry, stats);
  const sessionDeps = { ...deps, nackDelayMs: deps.nackDelayMs ?? 1000 };
  let stopping = false;
  let session: Session | undefined;
  let wake: (() => void) | undefined;
  let loop: Promise<void> | undefined;
  const addresses = controlPlaneAddresses(deps.controlPlane);
  let current = 0;
  // Failures since the last connection: the backoff waits only once every address failed in turn.
  let failedInRow = 0;

  const sleep = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      const t = setTimeout(() => { wake = undefined; resolve(); }, ms);
      wake = () => { clearTimeout(t); wake = undefined; resolve(); };
    });

  const markConnected = (): void => {
    if (stats.state !== 'connected') {
      stats.state = 'connected';
      backoff.reset();
      failedInRow = 0;
      log.info({ controlPlane: addresses[current] }, 'connected to control plane');
    }
  };

  async function runSession(client: AgentServiceClient, identity: AgentIdentity): Promise<void> {
    const s = openSession(client, identity, stats.assignmentsVersion, sessionDeps, stats, {
      connected: markConnected,
      applied: (version) => { stats.assignmentsVersion = version; },
    });
    session = s;
    try {
      await s.done;
    } finally {
      session = undefined;
    }
  }

  async function run(): Promise<void> {
    while (!stopping) {
      let delay = 0;
      stats.state = 'connecting';
      let client: AgentServiceClient | undefined;
      // Until it has registered, a TLS or auth failure means the agent was started wrong: say so and stop.
      let identity = deps.identity.get();
      let during: 'register' | 'session' = identity ? 'session' : 'register';
      try {
        client = await createAgentClient(addresses[current], deps.tls);
        if (!identity) {
          identity = await register(client, deps);
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
          log.fatal({ controlPlane: addresses[current] }, c.message);
          deps.onFatal(c.message);
          return;
        }
        const failed = addresses[current];
        current = (current + 1) % addresses.length;
        failedInRow++;
        if (failedInRow >= addresses.length) {
          failedInRow = 0;
          delay = backoff.next();
        }
        stats.state = 'backoff';
        log.warn({ err: c.message, controlPlane: failed, next: addresses[current], retryInMs: delay }, 'control plane link down; checks continue');
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
        s.close();
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

function registerLinkMetrics(registry: Registry | undefined, stats: LinkStats): void {
  if (!registry) return;
  totalFrom(registry, 'upfleet_agent_results_acked_total', 'Results the control plane stored.', () => stats.resultsAcked);
  totalFrom(registry, 'upfleet_agent_batches_acked_total', 'Result batches the control plane stored.', () => stats.batchesAcked);
  new Gauge({
    name: 'upfleet_agent_stream_state', help: 'Control-plane link state (1 for the current one).',
    labelNames: ['state'], registers: [registry],
    collect() {
      for (const s of LINK_STATES) this.set({ state: s }, s === stats.state ? 1 : 0);
    },
  });
}
