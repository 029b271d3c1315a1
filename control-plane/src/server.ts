// The only place the control plane is wired together. main.ts and tests call startControlPlane().
import fs from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import type { Config } from './config';
import type { Logger } from './logger';
import { createApp } from './http/app';
import { createSecretBox, randomToken } from './lib/crypto';
import { deriveKey, loadMasterKey, readOrCreateSecretFile } from './lib/secrets-files';
import { createAdminService } from './services/admin';
import { createAlertService } from './services/alerts';
import { createAuthService } from './services/auth';
import { createEndpointService, type UptimeSource } from './services/endpoints';
import { createGraphService, type GraphSource } from './services/graphs';
import { createRateLimiter } from './services/rate-limiter';
import { createTokenService } from './services/tokens';
import { createAgentsRepo } from './store/agents-repo';
import { createAlertsRepo } from './store/alerts-repo';
import { createCatalogRepo } from './store/catalog-repo';
import { openDatabase, type Db } from './store/db';
import { createEndpointsRepo } from './store/endpoints-repo';
import { createRateLimitRepo } from './store/rate-limit-repo';
import { seedDatabase } from './store/seed';
import { createSessionsRepo } from './store/sessions-repo';
import { createUsersRepo } from './store/users-repo';

export interface ControlPlane {
  httpPort: number;
  grpcPort: number;
  url: string;
  adminToken: string;
  db: Db;
  close(): Promise<void>;
}

export interface ControlPlaneExtras {
  /** Results store (graphs + uptime); null runs without one (graphs answer 503). */
  results?: (GraphSource & UptimeSource & { close(): Promise<void> }) | null;
}

export async function startControlPlane(config: Config, logger: Logger, extras: ControlPlaneExtras = {}): Promise<ControlPlane> {
  fs.mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  const db = openDatabase(path.join(config.dataDir, 'upfleet.db'));
  seedDatabase(db);

  const master = loadMasterKey(config.dataDir, config.secretKey);
  const box = createSecretBox(deriveKey(master, 'secrets-at-rest'));
  const adminToken = readOrCreateSecretFile(config.dataDir, 'admin-token', () => `upa_${randomToken(24)}`);

  const users = createUsersRepo(db);
  const catalog = createCatalogRepo(db);
  const endpointsRepo = createEndpointsRepo(db);
  const agentsRepo = createAgentsRepo(db);
  const tokens = createTokenService({
    sessions: createSessionsRepo(db),
    signingKey: deriveKey(master, 'access-tokens'),
    accessTtlSeconds: config.accessTokenTtlSeconds,
    refreshTtlDays: config.refreshTokenTtlDays,
  });
  const rl = config.rateLimits;
  const limiter = createRateLimiter(
    createRateLimitRepo(db),
    { login_ip: rl.ipLogins, signup_ip: rl.ipSignups, refresh_ip: rl.ipRefreshes, twofa_ip: rl.ipLogins, account_fail: rl.accountFailures },
    rl.windowSeconds,
  );
  const results = extras.results ?? null;
  const listeners = new Set<() => void>();
  const onChange = () => listeners.forEach((l) => l());
  const endpoints = createEndpointService({ endpoints: endpointsRepo, users, catalog, allowPrivateTargets: config.allowPrivateTargets, uptime: results ?? undefined, onChange });
  const app = createApp({
    logger,
    auth: createAuthService({ users, catalog, tokens, limiter, box }),
    tokens,
    endpoints,
    alerts: createAlertService({ alerts: createAlertsRepo(db), endpoints: endpointsRepo, catalog, box }),
    graphs: createGraphService({ endpoints, source: results }),
    admin: createAdminService({ users, catalog, agents: agentsRepo, onChange }),
    catalog,
    adminToken,
    webDistDir: config.webDistDir,
  });

  const server: Server = await new Promise((resolve, reject) => {
    const s = app.listen(config.port, config.host, () => resolve(s));
    s.once('error', reject);
  });
  const httpPort = (server.address() as AddressInfo).port;
  const url = `http://${config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host}:${httpPort}`;
  logger.info({ port: httpPort }, 'http listening');

  return {
    httpPort,
    grpcPort: 0,
    url,
    adminToken,
    db,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await results?.close();
      db.close();
    },
  };
}
