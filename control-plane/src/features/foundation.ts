// What every feature shares: the database and its repos, the secrets derived from the master key,
// the metrics registry, the rate limiter, the change hub and the control plane's own address.
import fs from 'node:fs';
import path from 'node:path';
import { Registry } from 'prom-client';
import { ConfigError, type Config } from '../config';
import type { Logger } from '../logger';
import { createChangeHub } from '../change-hub';
import { lockDataDir } from '../cluster/data-dir-lock';
import { createSecretBox, randomToken } from '../lib/crypto';
import { deriveKey, loadMasterKey, readOrCreateSecretFile } from '../lib/secrets-files';
import { createAccountMailer } from '../services/account-mail';
import { planLookup } from '../services/plan-of';
import { createRateLimiter, rateLimitRules } from '../services/rate-limiter';
import { createAgentsRepo } from '../store/agents-repo';
import { createCatalogRepo, regionKey, regionLabel } from '../store/catalog-repo';
import { openDatabase } from '../store/db';
import { createEndpointsRepo } from '../store/endpoints-repo';
import { createRateLimitRepo } from '../store/rate-limit-repo';
import { seedDatabase } from '../store/seed';
import { openSql, sqliteSql, type Sql } from '../store/sql/open';
import { createLeaderLease } from '../cluster/leader-lease';
import { CONTROL_PLANE_VERSION } from '../version';
import { createUsersRepo } from '../store/users-repo';
import { createWorkspacesRepo } from '../store/workspaces-repo';
import type { Feature } from './lifecycle';

export interface FoundationOptions {
  /** Clock for billing (the past-due grace) and verification links; tests move it forward. */
  now?: () => number;
}

export function createFoundation(config: Config, logger: Logger, opts: FoundationOptions = {}) {
  fs.mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  // Before the database is opened: a second process must not even migrate it.
  const dataDirLock = lockDataDir(config.dataDir);
  let db: ReturnType<typeof openDatabase>;
  try {
    db = openDatabase(path.join(config.dataDir, 'upfleet.db'));
  } catch (err) {
    dataDirLock.release();
    throw err;
  }
  const closeDb = () => {
    db.close();
    dataDirLock.release();
  };
  seedDatabase(db);
  // Kysely on the same SQLite handle: converted repos and the rest share one connection.
  const sql = sqliteSql(db);

  const master = loadMasterKey(config.dataDir, config.secretKey);
  const users = createUsersRepo(sql.db);
  // Reads come from a snapshot that start() loads (catalog-repo.ts says why).
  const catalog = createCatalogRepo(sql.db);
  const box = createSecretBox(deriveKey(master, 'secrets-at-rest'));
  const defaultPackage = () => catalog.packageByName(config.defaultPackage) ?? catalog.freePackage();
  // The database the processes of a cluster share: Postgres with DATABASE_URL (opened at start), else this SQLite.
  let clusterSql: Sql = sql;
  const leadership = createLeaderLease({
    sql: () => clusterSql, alone: !config.databaseUrl, ttlMs: config.leaderLeaseSeconds * 1000, version: CONTROL_PLANE_VERSION, logger,
  });
  // One registry per control plane; each part registers its own metrics on it.
  const metrics = new Registry();
  // PUBLIC_URL, else the address the HTTP server listens on (known once it does: links made before are for mail sent later).
  let listeningUrl = '';

  const services = {
    config,
    logger,
    now: opts.now,
    db,
    sql,
    /** The database the processes of a cluster coordinate in (the lease, the process list). */
    clusterSql: () => clusterSql,
    /** The leader lease: once-only work runs while this process holds it (whileLeader). */
    leadership,
    box,
    /** A key of its own per purpose, derived from the master key. */
    key: (purpose: string) => deriveKey(master, purpose),
    adminToken: readOrCreateSecretFile(config.dataDir, 'admin-token', () => `upa_${randomToken(24)}`),
    metrics,
    users,
    catalog,
    endpointsRepo: createEndpointsRepo(db, box),
    agentsRepo: createAgentsRepo(sql.db),
    workspacesRepo: createWorkspacesRepo(sql.db),
    limiter: createRateLimiter(createRateLimitRepo(sql.db), rateLimitRules(config.rateLimits), { metrics }),
    // Endpoint and plan changes reach the assignment engine, alerting and the live state through
    // one hub: one endpoint's change recomputes that endpoint; a plan or region change, every one.
    changes: createChangeHub(),
    planOf: planLookup(users, catalog),
    /** The package a new account or workspace starts on (DEFAULT_PACKAGE). */
    defaultPackageId: () => defaultPackage().package_id,
    defaultPackageName: () => defaultPackage().package_name,
    // Without SMTP every address counts as verified. A workspace's account is as verified as its
    // first owner, so a new workspace is no way around it.
    emailVerified: async (userId: number): Promise<boolean> => !config.alerting.smtpUrl || (await users.accountVerified(userId)),
    accountMailer: createAccountMailer({ smtpUrl: config.alerting.smtpUrl, from: config.alerting.smtpFrom }),
    publicUrl: () => config.publicUrl ?? listeningUrl,
    setListeningUrl: (url: string) => {
      listeningUrl = url;
    },
    /** 'EU-Germany' → 'EU - Germany' (the key itself when the region is gone). */
    regionLabel: (key: string) => {
      const r = catalog.regionByKey(key);
      return r ? regionLabel(r) : key;
    },
    primaryRegionKey: () => {
      const p = catalog.primaryRegion();
      return p ? regionKey(p) : null;
    },
  };
  return {
    name: 'foundation',
    services,
    // DATABASE_URL is experimental: its schema is migrated (a newer one stops the start) and it holds the
    // lease and process list; the product's state stays in SQLite.
    // The lease is claimed before any other feature starts: on SQLite this process holds it from here on.
    start: async () => {
      try {
        await catalog.load();
        // Checked once the packages exist (seeded, or renamed by an operator): a typo must not put
        // every new account on some other plan.
        if (!catalog.packageByName(config.defaultPackage)) {
          const names = catalog.listPackages().map((p) => p.package_name).join(', ');
          throw new ConfigError(`DEFAULT_PACKAGE names no package (got '${config.defaultPackage}'); packages: ${names}`);
        }
        if (config.databaseUrl) clusterSql = await openSql({ dialect: 'postgres', url: config.databaseUrl });
        await leadership.start();
      } catch (err) {
        await clusterSql.close();
        closeDb();
        throw err;
      }
    },
    stop: async () => {
      await leadership.stop();
      await clusterSql.close();
      closeDb();
    },
  } satisfies Feature<typeof services>;
}
export type Foundation = ReturnType<typeof createFoundation>['services'];
