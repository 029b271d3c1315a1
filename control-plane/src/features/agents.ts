// The agent fleet: the assignment engine (which agent runs which check), agents' open streams, the
// gRPC TLS identity, and the admin service that makes agent tokens and revokes agents.
import { createAgentStreams } from '../grpc/agent-service';
import { loadOrCreateGrpcTls, type GrpcTlsMaterial } from '../grpc/tls';
import type { ResultStore } from '../results/clickhouse-store';
import { createAdminService } from '../services/admin';
import { createRunNowDispatcher } from '../services/run-now';
import { createAssignmentEngine, followChanges } from '../services/assignments';
import { createHeldChecksRepo } from '../store/held-checks-repo';
import type { Foundation } from './foundation';
import { every, type Feature } from './lifecycle';
import { adminRoutes } from '../http/routes/admin';

export function createAgentsFeature(base: Foundation, results: ResultStore | null) {
  const { config } = base;
  const liveAgents = () => {
    const byRegion = new Map<string, Set<string>>();
    for (const a of base.agentsRepo.live(Date.now())) {
      if (!byRegion.has(a.region)) byRegion.set(a.region, new Set());
      byRegion.get(a.region)!.add(a.agent_id);
    }
    return byRegion;
  };
  const engine = createAssignmentEngine({
    endpoints: base.endpointsRepo, catalog: base.catalog, liveAgents, logger: base.logger, startupGraceMs: 3000, metrics: base.metrics,
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
      streams.closeAgents(ids);
      ids.forEach((id) => engine.forget(id));
    },
  });
  // Lapsed leases are noticed here even when no agent calls in (agents are served only with a results store).
  const leases = every(1000, () => engine.tick());
  return {
    name: 'agents',
    services: { engine, streams, tls, admin, runNow },
    routes: () => ({ operator: [adminRoutes(admin, base.adminToken, results)] }),
    start: () => {
      if (results) leases.start();
    },
    stop: () => {
      leases.stop();
      engine.close();
    },
  } satisfies Feature<unknown>;
}
