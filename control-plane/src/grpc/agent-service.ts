// AgentService handlers: Register, Heartbeat, WatchAssignments; ReportResults comes from report-results.ts.
import crypto from 'node:crypto';
import { Gauge, type Registry } from 'prom-client';
import { grpc, type AgentServiceHandlers, type AssignmentUpdate, type CheckResult } from '@upfleet/proto';
import { splitJoinToken } from '@upfleet/proto/join-token';
import { AppError } from '../errors';
import type { Logger } from '../logger';
import { randomToken, safeEqual, sha256 } from '../lib/crypto';
import type { AssignmentEngine } from '../services/assignments';
import type { RunNowDispatcher } from '../services/run-now';
import type { ResultStore } from '../results/clickhouse-store';
import type { LiveAgents } from '../services/live-agents';
import type { AgentsRepo } from '../store/agents-repo';
import type { CatalogRepo } from '../store/catalog-repo';
import { CONTROL_PLANE_VERSION, compareVersions } from '../version';
import { createAgentIdentityCache, type AgentIdentityCache } from './agent-identity-cache';
import { createAssignmentSender } from './assignment-stream';
import { createReportResultsHandler, type AuthenticatedAgent, type ReportResultsDeps } from './report-results';
import { createResultAdmission } from './result-admission';

export { CONTROL_PLANE_VERSION, compareVersions } from '../version';

/**
 * The open streams of each agent, so a revocation ends them at once instead of at the next
 * reconnect. server.ts makes one and gives it to the handlers and to the admin service.
 */
export function createAgentStreams() {
  const open = new Map<string, Set<(status: Partial<grpc.ServiceError>) => void>>();
  return {
    track(agentId: string, close: (status: Partial<grpc.ServiceError>) => void): () => void {
      let set = open.get(agentId);
      if (!set) open.set(agentId, (set = new Set()));
      set.add(close);
      return () => {
        set.delete(close);
        if (set.size === 0 && open.get(agentId) === set) open.delete(agentId);
      };
    },
    /** Ends every open stream of these agents with PERMISSION_DENIED. */
    closeAgents(agentIds: string[]): number {
      let n = 0;
      for (const id of agentIds) {
        for (const close of [...(open.get(id) ?? [])]) {
          close({ code: grpc.status.PERMISSION_DENIED, details: 'agent credential revoked', message: 'agent credential revoked' });
          n++;
        }
        open.delete(id);
      }
      return n;
    },
    count: (agentId: string) => open.get(agentId)?.size ?? 0,
  };
}
export type AgentStreams = ReturnType<typeof createAgentStreams>;

const HEARTBEAT_INTERVAL_SECONDS_MAX = 5;

function fail(code: grpc.status, details: string): grpc.ServiceError {
  return Object.assign<Error, Omit<grpc.ServiceError, keyof Error>>(new Error(details), { code, details, metadata: new grpc.Metadata() });
}

export function createAgentServiceHandlers(deps: {
  agents: AgentsRepo;
  catalog: CatalogRepo;
  engine: AssignmentEngine;
  store: Pick<ResultStore, 'insertBatch'>;
  /** Stores admitted results' screenshots (services/ingest.ts IngestDeps.keepScreenshots). */
  keepScreenshots?: ReportResultsDeps['keepScreenshots'];
  /** Sees every stored batch's results (alert evaluation); see ReportResultsDeps.onStored. */
  onResultsStored?(this: void, results: CheckResult[]): void;
  leaseSeconds: number;
  logger: Logger;
  now?: () => number;
  /** The service registers its own metrics here (live agents, outbox depths; ingest via ReportResults). */
  metrics?: Registry;
  streams?: AgentStreams;
  /** Credentials as every call checks them, cached (agent-identity-cache.ts); the admin service forgets revoked ones. */
  identities?: AgentIdentityCache;
  /** The placement snapshot: this process's heartbeats extend an agent's lease in it at once. */
  live?: LiveAgents;
  /** "Run now": agents that accept it are offered here; their answers (ReportRunNow) settle it. */
  runNow?: RunNowDispatcher;
}): AgentServiceHandlers {
  const streams = deps.streams ?? createAgentStreams();
  const identities = deps.identities ?? createAgentIdentityCache({ agents: deps.agents, now: deps.now });
  const now = deps.now ?? Date.now;
  const log = deps.logger.child({ component: 'agent-service' });
  /** On connect: the version the agent runs now (agents older than the field send ''), and a warning when it is behind. */
  const noteAgentVersion = (agentId: string, sent: string): void => {
    const version = sent.slice(0, 50);
    if (version) {
      void deps.agents.setVersion(agentId, version).catch((err: Error) => log.warn({ agentId, err: err.message }, 'agent version not saved'));
    }
    if (!version || compareVersions(version, CONTROL_PLANE_VERSION) < 0) {
      log.warn({ agentId, agentVersion: version || '(not sent: older than 0.1.0)', controlPlaneVersion: CONTROL_PLANE_VERSION },
        'agent is older than the control plane: upgrade it (curl …/install-agent.sh | sudo sh -s -- …, or a newer upfleet-agent binary)');
    }
  };
  const leaseMs = deps.leaseSeconds * 1000;
  const heartbeatSeconds = Math.max(1, Math.min(HEARTBEAT_INTERVAL_SECONDS_MAX, Math.floor(deps.leaseSeconds / 3)));
  if (deps.metrics) registerAgentMetrics(deps.metrics, deps.agents, now);

  async function authenticate(call: { metadata: grpc.Metadata }): Promise<AuthenticatedAgent> {
    const raw = String(call.metadata.get('authorization')[0] ?? '');
    const m = /^Bearer ([0-9a-f-]{36})\.([A-Za-z0-9_-]+)$/.exec(raw);
    if (!m) throw fail(grpc.status.UNAUTHENTICATED, 'missing agent credential');
    const agent = await identities.get(m[1]);
    if (!agent || !safeEqual(agent.secret_hash, sha256(m[2]))) throw fail(grpc.status.UNAUTHENTICATED, 'unknown agent credential');
    if (agent.revoked_at !== null) throw fail(grpc.status.PERMISSION_DENIED, 'agent credential revoked');
    return { agentId: agent.agent_id, region: agent.region, registeredAt: agent.created_at };
  }

  return {
    Register(call, callback) {
      register(call.request).then((res) => callback(null, res), (err: unknown) => callback(asServiceError(err)));
    },

    Heartbeat(call, callback) {
      heartbeat(call).then((res) => callback(null, res), (err: unknown) => callback(asServiceError(err)));
    },

    WatchAssignments(call) {
      void watchAssignments(call);
    },

    ReportRunNow(call, callback) {
      authenticate(call).then((agent) => {
        const { run_id: runId, result } = call.request;
        // Answered only to the request waiting for it; never stored, evaluated or alerted on.
        const accepted = Boolean(result && deps.runNow?.settle(agent.agentId, String(runId ?? ''), result));
        callback(null, { accepted });
      }, (err: unknown) => callback(asServiceError(err)));
    },

    ReportResults: createReportResultsHandler({
      store: deps.store,
      logger: deps.logger,
      onStored: deps.onResultsStored,
      keepScreenshots: deps.keepScreenshots,
      metrics: deps.metrics,
      admit: createResultAdmission({ assignedTo: deps.engine.assignedTo, prepareBatch: deps.engine.prepareBatch, now }),
      // After a restart every agent reconnects with a backlog: their snapshots first, the backlogs after.
      holdIngestWhile: deps.engine.snapshotsPending,
      // Per batch: the cached answer, never a database round trip (agent-identity-cache.ts).
      stillAllowed: (a) => identities.allowedNow(a.agentId),
      track: (a, close) => streams.track(a.agentId, close),
      authenticate: async (call) => {
        try {
          return await authenticate(call);
        } catch (e) {
          const err = e as grpc.ServiceError;
          if (typeof err.code !== 'number') throw e;
          throw new AppError(err.code === grpc.status.PERMISSION_DENIED ? 'forbidden' : 'unauthorized', err.details);
        }
      },
    }),
  };

  /** A failure of our own (the database) is UNAVAILABLE: the agent retries it, as any transient error. */
  function asServiceError(err: unknown): grpc.ServiceError {
    if (typeof (err as { code?: unknown })?.code === 'number' && (err as { metadata?: unknown }).metadata) return err as grpc.ServiceError;
    log.error({ err: (err as Error)?.message }, 'agent call failed');
    return fail(grpc.status.UNAVAILABLE, 'control plane unavailable, retry');
  }

  async function register(req: Parameters<AgentServiceHandlers['Register']>[0]['request']) {
    const token = await deps.agents.tokenByHash(sha256(splitJoinToken(req.bootstrap_token ?? '').secret));
    const t = now();
    if (!token) throw fail(grpc.status.UNAUTHENTICATED, 'unknown bootstrap token');
    if (token.revoked_at !== null) throw fail(grpc.status.PERMISSION_DENIED, 'bootstrap token revoked');
    if (token.expires_at !== null && token.expires_at <= t) throw fail(grpc.status.PERMISSION_DENIED, 'bootstrap token expired');
    if (req.region && req.region !== token.region) {
      throw fail(grpc.status.INVALID_ARGUMENT, `token is for region ${token.region}, not ${req.region}`);
    }
    if (!deps.catalog.regionByKey(token.region)) throw fail(grpc.status.FAILED_PRECONDITION, `region ${token.region} no longer exists`);
    const agentId = crypto.randomUUID();
    const secret = randomToken(32);
    const registered = await deps.agents.registerAgent(
      { agentId, secretHash: sha256(secret), region: token.region, hostname: String(req.hostname ?? '').slice(0, 200), version: String(req.version ?? '').slice(0, 50), tokenId: token.token_id },
      t,
    );
    if (!registered) {
      throw fail(grpc.status.PERMISSION_DENIED, `bootstrap token already used ${token.max_uses === 1 ? 'once (single-use)' : `${token.max_uses} times`}`);
    }
    log.info({ agentId, region: token.region, hostname: req.hostname }, 'agent registered');
    return { agent_id: agentId, agent_secret: secret, region: token.region, lease_seconds: deps.leaseSeconds, heartbeat_interval_seconds: heartbeatSeconds };
  }

  async function heartbeat(call: Parameters<AgentServiceHandlers['Heartbeat']>[0]) {
    const agent = await authenticate(call);
    const r = call.request;
    const t = now();
    await deps.agents.heartbeat(agent.agentId, t, t + leaseMs, {
      checks_owned: deps.engine.ownedCount(agent.agentId),
      checks_per_minute: Number.isFinite(r.checks_per_minute) ? r.checks_per_minute : 0,
      outbox_depth: Number(r.outbox_depth) || 0,
      lag: Number.isFinite(r.scheduling_lag_ms_p99) ? r.scheduling_lag_ms_p99 : 0,
      browser_checks: r.browser_checks === true,
      browser_unavailable: String(r.browser_unavailable ?? '').slice(0, 200),
    });
    deps.live?.noteLease(agent.agentId, agent.region, t + leaseMs);
    deps.engine.tick();
    return { lease_seconds: deps.leaseSeconds };
  }

  async function watchAssignments(call: Parameters<AgentServiceHandlers['WatchAssignments']>[0]) {
    let agent: AuthenticatedAgent;
    try {
      agent = await authenticate(call);
      const t = now();
      await deps.agents.touch(agent.agentId, t, t + leaseMs);
      deps.live?.noteLease(agent.agentId, agent.region, t + leaseMs);
    } catch (e) {
      call.destroy(asServiceError(e));
      return;
    }
    // The agent may have hung up while we read the database.
    if (call.cancelled || call.destroyed) return;
    noteAgentVersion(agent.agentId, String(call.request?.agent_version ?? ''));
    let closed = false;
    const untrack = streams.track(agent.agentId, (status) => {
      if (closed) return;
      closed = true;
      call.emit('error', status);
    });
    const sender = createAssignmentSender(call, { chunks: call.request?.accepts_snapshot_chunks === true });
    const stop = deps.engine.watch({
      agentId: agent.agentId,
      region: agent.region,
      send: (u: AssignmentUpdate) => sender.send(u),
      // an older agent leaves it false: it gets no browser checks
      browserChecks: call.request?.browser_checks === true,
    });
    const detachRunNow = call.request?.accepts_run_now === true && deps.runNow
      ? deps.runNow.attach({ agentId: agent.agentId, region: agent.region, browserChecks: call.request?.browser_checks === true, send: (u) => sender.send(u) })
      : () => undefined;
    const end = () => {
      closed = true;
      untrack();
      stop();
      detachRunNow();
    };
    call.on('cancelled', end);
    call.on('close', end);
    call.on('error', end);
  }
}

function registerAgentMetrics(registry: Registry, agents: AgentsRepo, now: () => number): void {
  new Gauge({
    name: 'upfleet_agents_live',
    help: 'Agents with a live lease, by region',
    labelNames: ['region'],
    registers: [registry],
    async collect() {
      const rows = await agents.live(now());
      this.reset();
      const byRegion = new Map<string, number>();
      for (const a of rows) byRegion.set(a.region, (byRegion.get(a.region) ?? 0) + 1);
      for (const [region, n] of byRegion) this.set({ region }, n);
    },
  });
  new Gauge({
    name: 'upfleet_agent_outbox_depth',
    help: 'Results buffered on each agent (last heartbeat)',
    labelNames: ['agent_id', 'region'],
    registers: [registry],
    async collect() {
      const rows = await agents.listAgents();
      this.reset();
      for (const a of rows) if (a.revoked_at === null) this.set({ agent_id: a.agent_id, region: a.region }, a.outbox_depth);
    },
  });
}
