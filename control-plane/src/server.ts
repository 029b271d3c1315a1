// The only place the control plane is wired together. main.ts and tests call startControlPlane().
import fs from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { Registry } from 'prom-client';
import { ConfigError, type Config } from './config';
import type { Logger } from './logger';
import { buildingAgentSource } from './http/agent-install/routes';
import { createApp } from './http/app';
import { createAlerting } from './alerting';
import { createChannels } from './alerting/channels';
import { createAlertingRepo } from './alerting/repo';
import { createSecretBox, randomToken } from './lib/crypto';
import { registerHttpMetrics } from './lib/metrics';
import { deriveKey, loadMasterKey, readOrCreateSecretFile } from './lib/secrets-files';
import { createAdminService } from './services/admin';
import { createAlertService, TEST_SEND_LIMITED, TEST_SENDS_PER_WINDOW } from './alerting/settings';
import { createApiKeyService } from './services/api-keys';
import { createAuthService } from './services/auth';
import { createAccountMailer } from './services/account-mail';
import { createBillingService } from './services/billing';
import { createPriceService } from './services/billing-prices';
import { createPlanChanger } from './services/plan-change';
import { createStripeClient } from './lib/stripe';
import { createBillingRepo } from './store/billing-repo';
import { createEndpointService, type UptimeSource } from './services/endpoints';
import { createGraphService } from './services/graphs';
import { createRateLimiter } from './services/rate-limiter';
import { createTokenService } from './services/tokens';
import { createAgentsRepo } from './store/agents-repo';
import { createAlertsRepo } from './alerting/settings-repo';
import { createApiKeysRepo } from './store/api-keys-repo';
import { createCatalogRepo } from './store/catalog-repo';
import { openDatabase, type Db } from './store/db';
import { createEndpointsRepo } from './store/endpoints-repo';
import { createRateLimitRepo } from './store/rate-limit-repo';
import { seedDatabase } from './store/seed';
import { createSessionsRepo } from './store/sessions-repo';
import { createUsersRepo } from './store/users-repo';
import { createWorkspacesRepo } from './store/workspaces-repo';
import { createWorkspaceService } from './services/workspaces';
import { createOidcService } from './services/oidc';
import { createAgentServiceHandlers, createAgentStreams } from './grpc/agent-service';
import { createStatusPageService, type StatusPageService } from './services/status-pages';
import { createStatusPagesRepo } from './store/status-pages-repo';
import { createTxtLookup } from './lib/dns-txt';
import { createStatusMailRepo } from './store/status-mail-repo';
import { createStatusSubscribers } from './services/status-subscribers';
import { dailyUptimeFrom, type RowReader } from './results/status-queries';
import { startGrpcServer, type GrpcServerHandle } from './grpc/server';
import { loadOrCreateGrpcTls, type GrpcTlsMaterial } from './grpc/tls';
import { createResultStore, type ResultStore } from './results/clickhouse-store';
import { createAssignmentEngine, followChanges } from './services/assignments';
import { createHeldChecksRepo } from './store/held-checks-repo';
import { createChangeHub } from './change-hub';
import { cachedUptime } from './services/uptime-cache';
import { createEventHub } from './services/events';
import { createLiveState } from './services/live-state';
import { createHeartbeats } from './services/heartbeats';
import { regionKey, regionLabel } from './store/catalog-repo';
import { startEmbeddedAgent, type EmbeddedAgent } from './embedded-agent';
import { UPTIME_WINDOW_MS } from './checks';

export interface ControlPlane {
  httpPort: number;
  grpcPort: number;
  url: string;
  adminToken: string;
  db: Db;
  httpServer: Server;
  /** Stops accepting, lets in-flight HTTP requests finish (up to SHUTDOWN_TIMEOUT_SECONDS), then
   *  closes agents' streams, the results store and the database. */
  close(): Promise<void>;
  /** Builds the agent executable for GET /downloads now (in the background) when it is missing. */
  prepareAgentDownload(): void;
  /** Checks heartbeat deadlines now (what the timer does; tests with a fake clock call it); answers how many went down. */
  tickHeartbeats(): number;
}

export interface ControlPlaneExtras {
  /** Results store; undefined makes the configured one (chDB or CLICKHOUSE_URL), null runs without
   *  one (graphs answer 503, agents are not served) for tests of the REST surface alone. */
  results?: ResultStore | null;
  /** Clock for billing (the past-due grace) and verification links (48 h); tests move it forward. */
  now?: () => number;
  /** How often expired sessions and refresh tokens are pruned (default hourly; also once at start). */
  pruneIntervalMs?: number;
  /** How often maintenance started/completed notices are looked for (default 15 s). */
  maintenanceTickMs?: number;
  heartbeatTickMs?: number;
  /** How often custom-domain claims due for their daily check are looked for (default hourly). */
  domainCheckTickMs?: number;
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
  // Checked once the packages exist (seeded, or renamed by an operator): a typo must not put
  // every new account on some other plan.
  if (!catalog.packageByName(config.defaultPackage)) {
    const names = catalog.listPackages().map((p) => p.package_name).join(', ');
    db.close();
    throw new ConfigError(`DEFAULT_PACKAGE names no package (got '${config.defaultPackage}'); packages: ${names}`);
  }
  const defaultPackageId = () => (catalog.packageByName(config.defaultPackage) ?? catalog.freePackage()).package_id;
  const endpointsRepo = createEndpointsRepo(db, box);
  const agentsRepo = createAgentsRepo(db);
  const tokens = createTokenService({
    sessions: createSessionsRepo(db),
    signingKey: deriveKey(master, 'access-tokens'),
    accessTtlSeconds: config.accessTokenTtlSeconds,
    refreshTtlDays: config.refreshTokenTtlDays,
    reuseGraceSeconds: config.refreshReuseGraceSeconds,
  });
  const pruneSessions = () => {
    const pruned = tokens.prune();
    if (pruned.sessions + pruned.tokens > 0) logger.info(pruned, 'pruned expired sessions');
  };
  pruneSessions();
  const pruneTimer = setInterval(pruneSessions, extras.pruneIntervalMs ?? 3600_000);
  pruneTimer.unref();
  const rl = config.rateLimits;
  // One registry per control plane; each part registers its own metrics on it.
  const metrics = new Registry();
  const perWindow = (max: number) => ({ max, windowSeconds: rl.windowSeconds });
  const limiter = createRateLimiter(createRateLimitRepo(db), {
    login_ip: perWindow(rl.ipLogins),
    signup_ip: perWindow(rl.ipSignups),
    refresh_ip: perWindow(rl.ipRefreshes),
    twofa_ip: perWindow(rl.ipLogins),
    account_fail: perWindow(rl.accountFailures),
    endpoint_mutation: { max: rl.endpointMutationsPerMinute, windowSeconds: 60, message: 'Too many changes to endpoints. Please wait a minute and try again.' },
    // issue 17: anonymous checkouts per address, test sends (a free relay otherwise), verification mails
    checkout_ip: { ...perWindow(rl.ipSignups), message: 'Too many checkouts from this address. Please try again later.' },
    test_send_user: { max: TEST_SENDS_PER_WINDOW, windowSeconds: 600, message: TEST_SEND_LIMITED },
    // the same allowance per person across all their workspaces (a new workspace is not a new one)
    test_send_person: { max: TEST_SENDS_PER_WINDOW, windowSeconds: 600, message: TEST_SEND_LIMITED },
    test_send_method: { max: TEST_SENDS_PER_WINDOW, windowSeconds: 600, message: TEST_SEND_LIMITED },
    verify_email_user: { max: 3, windowSeconds: 3600, message: 'Too many verification emails. Please try again later.' },
    // issue 23: each invitation is a mail to an address the member chose
    invitation_user: { max: 30, windowSeconds: 3600, message: 'Too many invitations. Please try again later.' },
    // Status pages: wrong page passwords per address and page, subscriptions per address and per page.
    status_password: { max: 10, windowSeconds: 600 },
    subscribe_email: { max: 3, windowSeconds: 3600, message: 'Too many subscription requests. Please try again later.' },
    subscribe_page: { max: 100, windowSeconds: 3600, message: 'Too many subscription requests. Please try again later.' },
  }, { metrics });
  let results: ResultStore | null;
  if (extras.results === undefined) {
    results = createResultStore({ clickhouseUrl: config.clickhouseUrl, dataDir: config.dataDir, logger });
    await results.init();
  } else results = extras.results;
  // Status pages are made after endpoints (they need the plan); uptime, alerting and the live state, made first, reach them late.
  const late: { statusPages: StatusPageService | null } = { statusPages: null };
  const uptimeSource: UptimeSource | undefined = results
    ? cachedUptime({
        uptime: (ids) => {
          const now = Date.now();
          const sinceMs = now - UPTIME_WINDOW_MS;
          // Maintenance windows (issue 21) leave their results out; only endpoints with one pay for it.
          const maintenance = late.statusPages?.spansFor(ids, sinceMs, now) ?? [];
          return results!.uptime(ids, { sinceMs, untilMs: now, createdAtMs: endpointsRepo.createdAtMs(ids), maintenance });
        },
      }, undefined, undefined, () => late.statusPages?.windowsVersion() ?? 0)
    : undefined;

  const liveAgents = () => {
    const byRegion = new Map<string, Set<string>>();
    for (const a of agentsRepo.live(Date.now())) {
      if (!byRegion.has(a.region)) byRegion.set(a.region, new Set());
      byRegion.get(a.region)!.add(a.agent_id);
    }
    return byRegion;
  };
  const engine = createAssignmentEngine({
    endpoints: endpointsRepo, catalog, liveAgents, logger, startupGraceMs: 3000, metrics,
    privateTargetsDenied: !config.allowPrivateTargets, defaultResolvers: config.dnsResolvers, releaseGraceMs: 2 * config.agentLeaseSeconds * 1000,
    held: createHeldChecksRepo(db),
  });
  const streams = createAgentStreams();
  // The gRPC TLS identity is known before any token is made: printed tokens carry its CA's fingerprint.
  const tls: GrpcTlsMaterial | null = results && !config.grpcTls.insecure ? loadOrCreateGrpcTls(config.dataDir, config.grpcTls) : null;
  const alertsRepo = createAlertsRepo(db);
  // Without SMTP every address counts as verified (issue 17).
  // A workspace's account is as verified as its first owner, so a new workspace is no way around it.
  const emailVerified = (userId: number) => !config.alerting.smtpUrl || users.accountVerified(userId);
  // The dashboard's live side: per-endpoint state from stored results, and per-user event streams.
  const events = createEventHub();
  const live = createLiveState({
    // An endpoint in a maintenance window in progress reads `maintenance` (issue 21).
    inMaintenance: (urlId, at) => late.statusPages?.inMaintenance(urlId, at) ?? false,
    db, publish: (userId, type, data) => events.publish(userId, type, data),
    regionLabel: (key) => {
      const r = catalog.regionByKey(key);
      return r ? regionLabel(r) : key;
    },
  });
  const alerting = createAlerting({
    inMaintenance: (urlId, ts) => late.statusPages?.inMaintenance(urlId, ts) ?? false,
    incidentHooks: {
      opened: (i) => {
        live.incidentChanged(i.url_id);
        late.statusPages?.incidentHooks.opened(i);
      },
      resolved: (i) => {
        live.incidentChanged(i.url_id);
        late.statusPages?.incidentHooks.resolved(i);
      },
    },
    emailVerified,
    repo: createAlertingRepo(db),
    alerts: alertsRepo,
    box,
    logger,
    regionLabel: (key) => {
      const r = catalog.regionByKey(key);
      return r ? regionLabel(r) : key;
    },
    primaryRegion: () => {
      const p = catalog.primaryRegion();
      return p ? regionKey(p) : null;
    },
    channels: createChannels({
      publicUrl: config.publicUrl,
      allowPrivateTargets: config.allowPrivateTargets,
      slackApiUrl: config.alerting.slackApiUrl,
      telegramApiUrl: config.alerting.telegramApiUrl,
      twilio: config.alerting.twilio,
      smtp: { url: config.alerting.smtpUrl, from: config.alerting.smtpFrom },
    }),
    metrics,
    onIncidentEvent: (userId, e) => events.publish(userId, e.type as 'incident.opened' | 'incident.resolved', { url_id: e.endpoint?.id ?? null, ...e }),
  });
  alerting.start();
  // Endpoint and plan changes reach the assignment engine and alerting through one hub
  // (change-hub.ts): one endpoint's change recomputes that endpoint's assignments and evaluator
  // context; a plan or region change recomputes every assignment and context.
  const changes = createChangeHub();
  followChanges(engine, changes);
  alerting.followChanges(changes);
  // The dashboard's live state forgets or re-reads an endpoint that changed (and tells its owner's streams).
  changes.endpoints.subscribe({ changed: (id) => id !== null && live.endpointChanged(id), removed: (id) => live.endpointChanged(id) });
  // Heartbeat monitors (issue 22): pings are results (region push) and their misses open incidents.
  const heartbeats = createHeartbeats({
    db, box, logger, now: extras.now,
    publicUrl: () => config.publicUrl ?? listeningUrl,
    storeResults: results ? (batchId, rows) => results!.insertBatch(batchId, 'push', rows) : undefined,
    onResults: (rows) => live.onResults(rows),
    retentionDays: (urlId) => endpointsRepo.monitoredById(urlId)?.retention_days,
    setDown: (urlId, down, cause, t) => alerting.heartbeat(urlId, down, cause, t),
  });
  const endpoints = createEndpointService({
    endpoints: endpointsRepo, users, catalog, allowPrivateTargets: config.allowPrivateTargets, uptime: uptimeSource, live,
    changes: changes.endpoints, heartbeats,
  });
  const workspacesRepo = createWorkspacesRepo(db);
  const admin = createAdminService({
    workspaces: () => workspacesRepo.adminList(),
    users, catalog, agents: agentsRepo, ownedCount: (id) => engine.ownedCount(id), publicUrl: config.publicUrl,
    plans: changes.plans,
    caFingerprint: () => tls?.caFingerprint ?? null,
    onAgentsRevoked: (ids) => {
      streams.closeAgents(ids);
      ids.forEach((id) => engine.forget(id));
    },
  });
  // Billing is off without STRIPE_SECRET_KEY: checkout answers 503, everything else works.
  const stripe = config.stripe.secretKey ? createStripeClient(config.stripe.secretKey, config.stripe.apiBase) : null;
  const billingRepo = createBillingRepo(db);
  let listeningUrl = '';
  const billing = createBillingService({
    stripe, webhookSecret: config.stripe.webhookSecret, billing: billingRepo, users, catalog, logger, now: extras.now, metrics,
    plans: createPlanChanger({
      users, catalog, endpoints: endpointsRepo, billing: billingRepo, now: extras.now, metrics,
      // A plan change edits many endpoints at once: agents get deltas, alerting re-reads them.
      changes,
    }),
    publicUrl: () => config.publicUrl ?? listeningUrl,
  });
  const accountMailer = createAccountMailer({ smtpUrl: config.alerting.smtpUrl, from: config.alerting.smtpFrom });
  const workspaces = createWorkspaceService({
    workspaces: workspacesRepo, users, planOf: endpoints.planOf, freePackageId: defaultPackageId,
    endpointChanges: changes.endpoints, mailer: accountMailer, publicUrl: () => config.publicUrl ?? listeningUrl, logger, now: extras.now,
    emailVerified, maxWorkspacesPerUser: config.maxWorkspacesPerUser, billingEnabled: () => billing.enabled(),
    onAccessEnded: (workspaceId, memberId) => events.endStreams(workspaceId, memberId),
  });
  const auth = createAuthService({
    users, catalog, tokens, limiter, box, checkout: billing, logger, now: extras.now, defaultPackageId,
    mailer: accountMailer,
    publicUrl: () => config.publicUrl ?? listeningUrl,
  });
  const agentArtifact = buildingAgentSource(logger);
  const statusPagesRepo = createStatusPagesRepo(db);
  const subscribers = createStatusSubscribers({
    mail: createStatusMailRepo(db), pages: statusPagesRepo, limiter, logger,
    smtp: { url: config.alerting.smtpUrl, from: config.alerting.smtpFrom },
    publicUrl: () => config.publicUrl ?? listeningUrl,
    key: deriveKey(master, 'status-page-unsubscribe'),
  });
  const statusPages = createStatusPageService({
    repo: statusPagesRepo,
    events: { reportChanged: (p, r, kind) => subscribers.reportChanged(p, r, kind), windowChanged: (w) => subscribers.windowScheduled(w) },
    planOf: endpoints.planOf,
    uptime: results && 'select' in results ? dailyUptimeFrom(results as unknown as RowReader) : undefined,
    cookieKey: deriveKey(master, 'status-page-cookies'),
    lookupTxt: createTxtLookup(config.dnsResolvers),
    ownHost: () => {
      try {
        return new URL(config.publicUrl ?? listeningUrl).hostname.replace(/^\[|\]$/g, '');
      } catch {
        return null;
      }
    },
    logger, now: extras.now,
  });
  late.statusPages = statusPages;
  // Each claim is looked up again about a day after its last check; a tick takes a bounded batch.
  let domainCheck: Promise<unknown> = Promise.resolve();
  const domainTimer = setInterval(() => {
    domainCheck = domainCheck.then(() => statusPages.recheckDomains()).catch((err: Error) => logger.warn({ err: err.message }, 'custom domain check failed'));
  }, extras.domainCheckTickMs ?? 3_600_000);
  domainTimer.unref();
  subscribers.start(extras.maintenanceTickMs);
  // The dashboard's `maintenance` status is computed when read; open dashboards hear when it flips
  // (a window starts, ends, or is created, moved or deleted) on the same tick.
  let maintained = statusPages.inMaintenanceNow();
  const maintenanceTimer = setInterval(() => {
    try {
      const next = statusPages.inMaintenanceNow();
      for (const id of next) if (!maintained.has(id)) live.maintenanceChanged(id);
      for (const id of maintained) if (!next.has(id)) live.maintenanceChanged(id);
      maintained = next;
    } catch {
      // the database is closing: the next tick tries again
    }
  }, Math.min(extras.maintenanceTickMs ?? 5000, 5000));
  maintenanceTimer.unref();
  const app = createApp({
    heartbeats,
    statusPages,
    subscribers,
    logger,
    publicPerMinute: config.rateLimits.publicPerMinute,
    agentArtifact,
    publicUrl: config.publicUrl,
    allowHttpInstall: config.allowHttpInstall,
    auth,
    tokens,
    endpoints,
    alerts: createAlertService({
      alerts: alertsRepo, endpoints: endpointsRepo, catalog, box, onThresholdsChanged: (urlId) => alerting.thresholdsChanged(urlId),
      limiter, advancedAlerts: (userId) => endpoints.planOf(userId).advanced_alerts, emailVerified,
    }),
    alerting,
    workspaces,
    workspacesRepo,
    oidc: config.oidc
      ? createOidcService({
          config: config.oidc, db, users, workspaces: workspacesRepo, issueTokens: (id) => tokens.issue(id),
          revokeSessions: (id, reason) => tokens.revokeOthers(id, '', reason), verifySecondFactor: (id, code) => auth.verifySecondFactor(id, code),
          freePackageId: defaultPackageId, publicUrl: () => config.publicUrl ?? listeningUrl, logger, now: extras.now,
        })
      : null,
    memberName: (id) => users.byId(id)?.username ?? `user ${id}`,
    defaultPackage: () => (catalog.packageByName(config.defaultPackage) ?? catalog.freePackage()).package_name,
    billingContact: (memberId, workspaceId) => {
      const w = workspacesRepo.get(workspaceId);
      const member = users.byId(memberId);
      return w && !w.personal && member ? { email: member.email, name: w.name } : null;
    },
    events,
    eventStreamMaxMs: config.accessTokenTtlSeconds * 1000,
    apiKeys: createApiKeyService({ keys: createApiKeysRepo(db), planOf: endpoints.planOf, perMinute: config.rateLimits.apiKeyPerMinute, onRevoked: (id) => events.endKeyStreams(id) }),
    graphs: createGraphService({
      endpoints, source: results, metrics,
      // The same count as the badge (uptimeSource) over the graph's range, so the two never disagree.
      uptime: results
        ? async (id, fromMs, toMs) => (await results!.uptime([id], {
          sinceMs: fromMs, untilMs: toMs, createdAtMs: endpointsRepo.createdAtMs([id]), maintenance: late.statusPages?.spansFor([id], fromMs, toMs) ?? [],
        })).get(id) ?? null
        : undefined,
    }),
    admin,
    billing,
    prices: createPriceService({ stripe, catalog }),
    catalog,
    limiter,
    adminToken,
    results,
    webDistDir: config.webDistDir,
    trustProxy: config.trustProxy,
    metrics: registerHttpMetrics(metrics),
  });

  const server: Server = await new Promise((resolve, reject) => {
    const s = app.listen(config.port, config.host, () => resolve(s));
    s.once('error', reject);
  });
  const drain = trackInFlight(server);
  // Deadlines are checked now (a ping missed while the control plane was away) and every few seconds.
  const stopHeartbeats = heartbeats.start(extras.heartbeatTickMs);
  const httpPort = (server.address() as AddressInfo).port;
  const url = `http://${config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host}:${httpPort}`;
  listeningUrl = url;
  logger.info({ port: httpPort }, 'http listening');
  // Past-due subscriptions past their 7-day grace fall back to Free even when nobody signs in.
  const graceTimer = stripe ? setInterval(() => {
    try {
      billing.expireGrace();
    } catch (err) {
      logger.error({ err }, 'past-due grace check failed');
    }
  }, 60_000) : null;
  graceTimer?.unref();

  let grpcServer: GrpcServerHandle | null = null;
  let leaseTimer: NodeJS.Timeout | null = null;
  let embedded: EmbeddedAgent | null = null;
  if (results) {
    const handlers = createAgentServiceHandlers({
      agents: agentsRepo, catalog, engine, store: results, leaseSeconds: config.agentLeaseSeconds, logger, metrics, streams,
      onResultsStored: (rows) => {
        try {
          live.onResults(rows);
        } catch (err) {
          logger.error({ err: (err as Error).message }, 'live state update failed');
        }
        alerting.onResultsStored(rows);
      },
    });
    grpcServer = await startGrpcServer(handlers, config.host, config.grpcPort, tls);
    logger.info({ port: grpcServer.port, tls: Boolean(tls) }, 'grpc listening');
    // Lapsed leases are noticed here even when no agent calls in.
    leaseTimer = setInterval(() => engine.tick(), 1000);
    leaseTimer.unref();
    const primary = catalog.primaryRegion();
    if (config.embeddedAgent && primary) {
      const token = admin.createAgentToken({ region: regionKey(primary), expires_in_seconds: 600, max_uses: 1 }).token;
      embedded = startEmbeddedAgent({
        grpcPort: grpcServer.port, region: regionKey(primary), token, dataDir: path.join(config.dataDir, 'agent'),
        caFile: tls?.caFile ?? null, fingerprint: tls?.fingerprint ?? null, allowPrivateTargets: config.allowPrivateTargets, logger,
      });
    }
  }

  return {
    httpPort,
    grpcPort: grpcServer?.port ?? 0,
    url,
    adminToken,
    db,
    httpServer: server,
    tickHeartbeats: () => heartbeats.tick(),
    prepareAgentDownload() {
      agentArtifact().catch((err: unknown) => logger.warn({ err }, 'the agent executable could not be built; GET /downloads will try again'));
    },
    async close() {
      clearInterval(pruneTimer);
      stopHeartbeats();
      events.close(); // open event streams would otherwise hold the drain below
      await drain(config.shutdownTimeoutSeconds * 1000);
      if (leaseTimer) clearInterval(leaseTimer);
      if (graceTimer) clearInterval(graceTimer);
      engine.close();
      await alerting.stop();
      await subscribers.stop();
      await embedded?.stop();
      await grpcServer?.close();
      if (extras.results === undefined) await results?.close();
      clearInterval(maintenanceTimer);
      clearInterval(domainTimer);
      await domainCheck;
      live.close();
      db.close();
    },
  };
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
