// Ingest: the agents' gRPC service (stored results reach the live state and alerting) and the
// embedded agent in the primary region. Served only with a results store.
import path from 'node:path';
import type { Alerting } from '../alerting';
import { startEmbeddedAgent, type EmbeddedAgent } from '../embedded-agent';
import { createAgentServiceHandlers } from '../grpc/agent-service';
import { startGrpcServer, type GrpcServerHandle } from '../grpc/server';
import type { ResultStore } from '../results/clickhouse-store';
import type { LiveStateService } from '../services/live-state';
import type { ScreenshotStore } from '../screenshots/screenshot-store';
import { regionKey } from '../store/catalog-repo';
import type { Foundation } from './foundation';
import type { Feature } from './lifecycle';
import type { createAgentsFeature } from './agents';

type Agents = ReturnType<typeof createAgentsFeature>['services'];

export function createIngestFeature(base: Foundation, deps: { results: ResultStore | null; agents: Agents; live: LiveStateService; alerting: Alerting; screenshots?: Pick<ScreenshotStore, 'keep'> }) {
  const { config, logger } = base;
  const { results, agents, live, alerting } = deps;
  let grpcServer: GrpcServerHandle | null = null;
  let embedded: EmbeddedAgent | null = null;
  return {
    name: 'ingest',
    services: { grpcPort: () => grpcServer?.port ?? 0 },
    async start() {
      if (!results) return;
      const handlers = createAgentServiceHandlers({
        agents: base.agentsRepo, catalog: base.catalog, engine: agents.engine, store: results, leaseSeconds: config.agentLeaseSeconds, logger, metrics: base.metrics, streams: agents.streams,
        identities: agents.identities, live: agents.live, runNow: agents.runNow,
        keepScreenshots: deps.screenshots?.keep,
        onResultsStored: (rows) => {
          try {
            live.onResults(rows);
          } catch (err) {
            logger.error({ err: (err as Error).message }, 'live state update failed');
          }
          alerting.onResultsStored(rows);
        },
      });
      const { tls } = agents;
      grpcServer = await startGrpcServer(handlers, config.host, config.grpcPort, tls);
      logger.info({ port: grpcServer.port, tls: Boolean(tls) }, 'grpc listening');
      const primary = base.catalog.primaryRegion();
      if (config.embeddedAgent && primary) {
        const { token } = await agents.admin.createAgentToken({ region: regionKey(primary), expires_in_seconds: 600, max_uses: 1 });
        embedded = startEmbeddedAgent({
          grpcPort: grpcServer.port, region: regionKey(primary), token, dataDir: path.join(config.dataDir, 'agent'),
          caFile: tls?.caFile ?? null, fingerprint: tls?.fingerprint ?? null, allowPrivateTargets: config.allowPrivateTargets, logger,
        });
      }
    },
    async stop() {
      await embedded?.stop();
      await grpcServer?.close();
    },
  } satisfies Feature<unknown>;
}
