// The agent fleet: the assignment engine (which agent runs which check), agents' open streams, the
// gRPC TLS identity, and the admin service that makes agent tokens and revokes agents.
import { createAgentIdentityCache } from '../grpc/agent-identity-cache';
import { createAgentStreams } from '../grpc/agent-service';
import { loadOrCreateGrpcTls, type GrpcTlsMaterial } from '../grpc/tls';
import type { ResultStore } from '../results/clickhouse-store';
import { createAdminService } from '../services/admin';
import { createRunNowDispatcher } from '../services/run-now';
import { createAssignmentEngine, followChanges } from '../services/assignments';
import { createLiveAgents } from '../services/live-agents';
import { createHeldChecksRepo } from '../store/held-checks-repo';
import type { Foundation } from './foundation';
import { every, type Feature } from './lifecycle';
import { adminRoutes } from '../http/routes/admin';

export function createAgentsFeature(base: Foundation, results: ResultStore | null) {
  const { config } = base;
  // The engine places checks synchronously: it reads live leases from memory (services/live-agents.ts).
  const live = createLiveAgents({ agents: base.agentsRepo });
  const identities = createAgentIdentityCache({ agents: base.agentsRepo });
  const engine = createAssignmentEngine({
    endpoints: base.endpointsRepo, catalog: base.catalog, liveAgents: () => live.byRegion(), logger: base.logger, startupGraceMs: 3000, metrics: base.metrics,
    privateTargetsDenied: !config.allowPrivateTargets, defaultResolvers: config.dnsResolvers, releaseGraceMs: 2 * config.agentLeaseSeconds * 1000,
    held: createHeldChecksRepo(base.db),
  });
  // One endpoint's change recomputes that endpoint's assignments; a plan or region change, every one.
  followChanges(engine, base.changes);
  const streams = createAgentStreams();
  // "Run now": this process's agents that accept it (features/browser-run.ts sends, ingest settles).
  const runNow = createRunNowDispatcher();
  // The gRPC TLS identity is known before any token is made: printed tokens carry its CA's fingerprint.
  const tls: GrpcTlsMaterial | null = results && !config.grpcTls.insecure ? loadOrCreateGrpcTls(config.dataDir, config.grpcTls) : null;
  const admin = createAdminService({
    workspaces: () => base.workspacesRepo.adminList(),
    users: base.users, catalog: base.catalog, agents: base.agentsRepo, ownedCount: (id) => engine.ownedCount(id), publicUrl: config.publicUrl,
    plans: base.changes.plans,
    caFingerprint: () => tls?.caFingerprint ?? null,
    onAgentsRevoked: (ids) => {
      identities.forget(ids);
      live.forget(ids);
      streams.closeAgents(ids);
      ids.forEach((id) => engine.forget(id));
    },
  });
  // Lapsed leases are noticed here even when no agent calls in (agents are served only with a results store).
  // One query a second, not one per check: leases extended on other processes reach placement here.
  const leases = every(1000, () => {
    live.reload().then(() => engine.tick(), (err: Error) => base.logger.warn({ err: err.message }, 'live agents not reloaded'));
  });
  return {
    name: 'agents',
    services: { engine, streams, tls, admin, live, identities, runNow },
    routes: () => ({ operator: [adminRoutes(admin, base.adminToken, results)] }),
    start: async () => {
      if (!results) return;
      await live.reload();
      leases.start();
    },
    stop: () => {
      leases.stop();
      engine.close();
    },
  } satisfies Feature<unknown>;
}
