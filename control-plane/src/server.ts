// The composition root: each feature is built by one function in features/ (its services, its
// routes and its lifecycle), in the order of their dependencies; they start in that order and stop
// in reverse, and their routes match in that order.
// main.ts and tests call startControlPlane().
import type { Server } from 'node:http';
import type { Config } from './config';
import type { Logger } from './logger';
import type { Db } from './store/db';
import type { ResultStore } from './results/clickhouse-store';
import { createAccountsFeature } from './features/accounts';
import { createAgentDownloadsFeature } from './features/agent-downloads';
import { createAgentsFeature } from './features/agents';
import { createAlertingFeature } from './features/alerting';
import { createBillingFeature } from './features/billing';
import { createDataOutFeature } from './features/data-out';
import { createFoundation } from './features/foundation';
import { createHttpFeature } from './features/http';
import { createBrowserRunFeature } from './features/browser-run';
import { createIngestFeature } from './features/ingest';
import { startInOrder } from './features/lifecycle';
import { createLiveStateFeature } from './features/live-state';
import { createMonitoringFeature } from './features/monitoring';
import { createReportsFeature } from './features/reports';
import { createResultsFeature } from './features/results';
import { createScreenshotsFeature } from './features/screenshots';
import { createStatusPagesFeature } from './features/status-pages';
import { createWorkspacesFeature } from './features/workspaces';

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
  /** Queues the monthly reports that are due now (what the timer does; tests with a fake clock call it); answers how many. */
  tickReports(): Promise<number>;
  /** Re-reads plans and regions into memory (after a test or an operator wrote them straight into the database). */
  reloadCatalog(): Promise<void>;
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
  /** How often heartbeat deadlines are checked (default 5 s; also once at start). */
  heartbeatTickMs?: number;
  /** How often custom-domain claims due for their daily check are looked for (default hourly). */
  domainCheckTickMs?: number;
  /** Clock for alerting (incidents, deliveries, escalation steps); tests move it forward. */
  alertingNow?: () => number;
  /** How often due escalation steps are looked for (default 1 s). */
  escalationTickMs?: number;
  /** How long a new incident's first message waits for a storm to form (default STORM_HOLD_MS; 0: no grouping). */
  stormHoldMs?: number;
}

export async function startControlPlane(config: Config, logger: Logger, extras: ControlPlaneExtras = {}): Promise<ControlPlane> {
  const foundation = createFoundation(config, logger, { now: extras.now });
  const base = foundation.services;
  const results = createResultsFeature(base, extras.results);
  const { results: store } = results.services;
  const agents = createAgentsFeature(base, store);
  const statusPages = createStatusPagesFeature(base, store, { maintenanceTickMs: extras.maintenanceTickMs, domainCheckTickMs: extras.domainCheckTickMs });
  const { maintenance } = statusPages.services;
  const live = createLiveStateFeature(base, maintenance, { maintenanceTickMs: extras.maintenanceTickMs });
  const { events } = live.services;
  const alerting = createAlertingFeature(base, { maintenance, statusPages: statusPages.services.statusPages, events, live: live.services.live },
    { now: extras.alertingNow, escalationPollMs: extras.escalationTickMs, stormHoldMs: extras.stormHoldMs });
  const monitoring = createMonitoringFeature(base, { results: store, maintenance, live: live.services.live, ...alerting.services }, { heartbeatTickMs: extras.heartbeatTickMs });
  const reports = createReportsFeature(base, { results: store, maintenance, endpoints: monitoring.services.endpoints, mailer: statusPages.services.subscribers });
  const billing = createBillingFeature(base);
  const workspaces = createWorkspacesFeature(base, { events, billing: billing.services.billing });
  const accounts = createAccountsFeature(base, { billing: billing.services.billing, events }, { pruneIntervalMs: extras.pruneIntervalMs });
  const screenshots = createScreenshotsFeature(base);
  const ingest = createIngestFeature(base, { results: store, agents: agents.services, live: live.services.live, alerting: alerting.services.alerting, screenshots: screenshots.services.screenshots });
  const downloads = createAgentDownloadsFeature(base);
  const dataOut = createDataOutFeature(base, { results: store, endpoints: monitoring.services.endpoints, maintenance, incidents: alerting.services.incidents, live: live.services.live });
  const browserRun = createBrowserRunFeature(base, { runNow: agents.services.runNow });
  const features = [foundation, results, agents, statusPages, live, alerting, monitoring, reports, billing, workspaces, accounts, downloads, dataOut, browserRun, screenshots, ingest];
  const http = createHttpFeature(base, { ...accounts.services, ...workspaces.services, events, results: store }, features);

  const stop = await startInOrder([...features, http]);
  const { port, url } = http.services.address();
  return {
    httpPort: port,
    grpcPort: ingest.services.grpcPort(),
    url,
    adminToken: base.adminToken,
    db: base.db,
    httpServer: http.services.server(),
    tickHeartbeats: () => monitoring.services.heartbeats.tick(),
    tickReports: () => reports.services.reports.schedule.tick(),
    reloadCatalog: () => base.catalog.load(),
    prepareAgentDownload: () => downloads.services.prepare(),
    close: stop,
  };
}
