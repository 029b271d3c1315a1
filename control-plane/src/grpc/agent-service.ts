// AgentService handlers: Register, Heartbeat, WatchAssignments; ReportResults comes from report-results.ts.
import crypto from 'node:crypto';
import { Gauge, type Registry } from 'prom-client';
import { grpc, type AgentServiceHandlers, type AssignmentUpdate, type CheckResult } from '@upfleet/proto';
import { AppError } from '../errors';
import type { Logger } from '../logger';
import { randomToken, safeEqual, sha256 } from '../lib/crypto';
import type { AssignmentEngine } from '../services/assignments';
import type { ResultStore } from '../results/clickhouse-store';
import type { AgentsRepo } from '../store/agents-repo';
import type { CatalogRepo } from '../store/catalog-repo';
import { createReportResultsHandler, type AuthenticatedAgent } from './report-results';

const HEARTBEAT_INTERVAL_SECONDS_MAX = 5;

function fail(code: grpc.status, details: string): grpc.ServiceError {
  return Object.assign(new Error(details), { code, details, metadata: new grpc.Metadata() }) as grpc.ServiceError;
}

export function createAgentServiceHandlers(deps: {
  agents: AgentsRepo;
  catalog: CatalogRepo;
  engine: AssignmentEngine;
  store: Pick<ResultStore, 'insertBatch'>;
  /** Sees every stored batch's results (alert evaluation); see ReportResultsDeps.onStored. */
  onResultsStored?(results: CheckResult[]): void;
  leaseSeconds: number;
  logger: Logger;
  now?: () => number;
  /** The service registers its own metrics here (live agents, outbox depths; ingest via ReportResults). */
  metrics?: Registry;
}): AgentServiceHandlers {
  const now = deps.now ?? Date.now;
  const log = deps.logger.child({ component: 'agent-service' });
  const leaseMs = deps.leaseSeconds * 1000;
  const heartbeatSeconds = Math.max(1, Math.min(HEARTBEAT_INTERVAL_SECONDS_MAX, Math.floor(deps.leaseSeconds / 3)));
  if (deps.metrics) registerAgentMetrics(deps.metrics, deps.agents, now);

  function authenticate(call: { metadata: grpc.Metadata }): AuthenticatedAgent {
    const raw = String(call.metadata.get('authorization')[0] ?? '');
    const m = /^Bearer ([0-9a-f-]{36})\.([A-Za-z0-9_-]+)$/.exec(raw);
    if (!m) throw fail(grpc.status.UNAUTHENTICATED, 'missing agent credential');
    const agent = deps.agents.agent(m[1]);
    if (!agent || !safeEqual(agent.secret_hash, sha256(m[2]))) throw fail(grpc.status.UNAUTHENTICATED, 'unknown agent credential');
    if (agent.revoked_at !== null) throw fail(grpc.status.PERMISSION_DENIED, 'agent credential revoked');
    return { agentId: agent.agent_id, region: agent.region };
  }

  return {
    Register(call, callback) {
      const req = call.request;
      const token = deps.agents.tokenByHash(sha256(req.bootstrap_token ?? ''));
      const t = now();
      if (!token) return callback(fail(grpc.status.UNAUTHENTICATED, 'unknown bootstrap token'));
      if (token.revoked_at !== null) return callback(fail(grpc.status.PERMISSION_DENIED, 'bootstrap token revoked'));
      if (token.expires_at !== null && token.expires_at <= t) return callback(fail(grpc.status.PERMISSION_DENIED, 'bootstrap token expired'));
      if (req.region && req.region !== token.region) {
        return callback(fail(grpc.status.INVALID_ARGUMENT, `token is for region ${token.region}, not ${req.region}`));
      }
      if (!deps.catalog.regionByKey(token.region)) return callback(fail(grpc.status.FAILED_PRECONDITION, `region ${token.region} no longer exists`));
      const agentId = crypto.randomUUID();
      const secret = randomToken(32);
      deps.agents.registerAgent(
        { agentId, secretHash: sha256(secret), region: token.region, hostname: String(req.hostname ?? '').slice(0, 200), version: String(req.version ?? '').slice(0, 50), tokenId: token.token_id },
        t,
      );
      log.info({ agentId, region: token.region, hostname: req.hostname }, 'agent registered');
      callback(null, { agent_id: agentId, agent_secret: secret, region: token.region, lease_seconds: deps.leaseSeconds, heartbeat_interval_seconds: heartbeatSeconds });
    },

    Heartbeat(call, callback) {
      let agent: AuthenticatedAgent;
      try {
        agent = authenticate(call);
      } catch (e) {
        return callback(e as grpc.ServiceError);
      }
      const r = call.request;
      const t = now();
      deps.agents.heartbeat(agent.agentId, t, t + leaseMs, {
        checks_owned: deps.engine.ownedCount(agent.agentId),
        checks_per_minute: Number.isFinite(r.checks_per_minute) ? r.checks_per_minute : 0,
        outbox_depth: Number(r.outbox_depth) || 0,
        lag: Number.isFinite(r.scheduling_lag_ms_p99) ? r.scheduling_lag_ms_p99 : 0,
      });
      deps.engine.tick();
      callback(null, { lease_seconds: deps.leaseSeconds });
    },

    WatchAssignments(call) {
      let agent: AuthenticatedAgent;
      try {
        agent = authenticate(call);
      } catch (e) {
        call.destroy(e as Error);
        return;
      }
      const t = now();
      deps.agents.touch(agent.agentId, t, t + leaseMs);
      const stop = deps.engine.watch({
        agentId: agent.agentId,
        region: agent.region,
        send: (u: AssignmentUpdate) => {
          if (!call.cancelled && !call.destroyed) call.write(u);
        },
      });
      const end = () => stop();
      call.on('cancelled', end);
      call.on('close', end);
      call.on('error', end);
    },

    ReportResults: createReportResultsHandler({
      store: deps.store,
      logger: deps.logger,
      onStored: deps.onResultsStored,
      metrics: deps.metrics,
      authenticate: (call) => {
        try {
          return authenticate(call);
        } catch (e) {
          const err = e as grpc.ServiceError;
          throw new AppError(err.code === grpc.status.PERMISSION_DENIED ? 'forbidden' : 'unauthorized', err.details);
        }
      },
    }),
  };
}

function registerAgentMetrics(registry: Registry, agents: AgentsRepo, now: () => number): void {
  new Gauge({
    name: 'upfleet_agents_live',
    help: 'Agents with a live lease, by region',
    labelNames: ['region'],
    registers: [registry],
    collect() {
      this.reset();
      const byRegion = new Map<string, number>();
      for (const a of agents.live(now())) byRegion.set(a.region, (byRegion.get(a.region) ?? 0) + 1);
      for (const [region, n] of byRegion) this.set({ region }, n);
    },
  });
  new Gauge({
    name: 'upfleet_agent_outbox_depth',
    help: 'Results buffered on each agent (last heartbeat)',
    labelNames: ['agent_id', 'region'],
    registers: [registry],
    collect() {
      this.reset();
      for (const a of agents.listAgents()) if (a.revoked_at === null) this.set({ agent_id: a.agent_id, region: a.region }, a.outbox_depth);
    },
  });
}
