// The HTTP server: the app over the routes every feature declares. Stopping it ends event streams,
// stops accepting, and lets requests in flight finish (up to SHUTDOWN_TIMEOUT_SECONDS).
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { createApp } from '../http/app';
import { signInGates } from '../http/middleware/auth';
import { registerHttpMetrics } from '../lib/metrics';
import { createClusterStatus } from '../cluster/status';
import { createReadiness, databaseProbe, type ReadinessProbe } from '../cluster/readiness';
import { clusterRoutes } from '../http/routes/cluster';
import type { ResultStore } from '../results/clickhouse-store';
import type { ApiKeyService } from '../services/api-keys';
import type { EventHub } from '../services/events';
import type { TokenService } from '../services/tokens';
import type { WorkspaceService } from '../services/workspaces';
import type { Foundation } from './foundation';
import type { Feature } from './lifecycle';

/** `features` in the order their routes match (server.ts passes them in their start order). */
export function createHttpFeature(
  base: Foundation,
  deps: { tokens: TokenService; apiKeys: ApiKeyService; workspaces: WorkspaceService; events: EventHub; results: ResultStore | null },
  features: ReadonlyArray<Feature<unknown>>,
) {
  const { config, users, workspacesRepo } = base;
  const signIn = signInGates(deps.tokens, deps.apiKeys, deps.workspaces);
  const probes: Record<string, ReadinessProbe> = { database: databaseProbe(base.sql) };
  // With DATABASE_URL the lease and process list live in Postgres: a process cut off from it cannot coordinate.
  if (config.databaseUrl) probes.postgres = () => databaseProbe(base.clusterSql())();
  const results = deps.results;
  if (results) probes.clickhouse = () => results.ping();
  const cluster = createClusterStatus({ sql: base.clusterSql, processId: base.leadership.processId });
  const app = createApp({
    logger: base.logger,
    // `upfleet cluster status` is the operator's, after every feature's routes.
    routes: [...features.map((f) => f.routes?.(signIn) ?? {}), { operator: [clusterRoutes(cluster, base.adminToken)] }],
    readiness: createReadiness(probes),
    signIn,
    workspacesRepo,
    memberName: async (id) => (await users.byId(id))?.username ?? `user ${id}`,
    publicPerMinute: config.rateLimits.publicPerMinute,
    apiKeyPerMinute: deps.apiKeys.perMinute,
    publicUrl: config.publicUrl,
    adminToken: base.adminToken,
    webDistDir: config.webDistDir,
    trustProxy: config.trustProxy,
    metrics: registerHttpMetrics(base.metrics),
  });
  let server: Server | null = null;
  let drain: ((timeoutMs: number) => Promise<void>) | null = null;
  let address = { port: 0, url: '' };
  return {
    name: 'http',
    services: {
      /** The listening port and the URL to open (after start). */
      address: () => address,
      server: () => server!,
    },
    async start() {
      const s: Server = await new Promise((resolve, reject) => {
        const listening = app.listen(config.port, config.host, () => resolve(listening));
        listening.once('error', reject);
      });
      server = s;
      drain = trackInFlight(s);
      const port = (s.address() as AddressInfo).port;
      address = { port, url: `http://${config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host}:${port}` };
      base.setListeningUrl(address.url);
      base.logger.info({ port }, 'http listening');
    },
    async stop() {
      deps.events.close(); // open event streams would otherwise hold the drain below
      await drain?.(config.shutdownTimeoutSeconds * 1000);
    },
  } satisfies Feature<unknown>;
}

/** Counts requests in flight; the returned drain() stops accepting connections, waits for those
 *  requests up to a bound, then closes every connection (a stuck client cannot hold a stop). */
function trackInFlight(server: Server): (timeoutMs: number) => Promise<void> {
  let inFlight = 0;
  let closing = false;
  let onIdle: (() => void) | null = null;
  server.on('request', (_req, res) => {
    inFlight++;
    if (closing) res.setHeader('Connection', 'close');
    res.once('close', () => {
      inFlight--;
      if (closing) server.closeIdleConnections();
      if (inFlight === 0) onIdle?.();
    });
  });
  return async (timeoutMs) => {
    closing = true;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    if (inFlight > 0) {
      let timer: NodeJS.Timeout | undefined;
      await new Promise<void>((resolve) => {
        onIdle = resolve;
        timer = setTimeout(resolve, timeoutMs);
      });
      clearTimeout(timer);
    }
    server.closeAllConnections();
    await closed;
  };
}
