// createApp(deps): the whole REST surface and the web app, without listening (tests and main share it).
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import express, { type Express } from 'express';
import type { Logger } from '../logger';
import { CONTROL_PLANE_VERSION } from '../version';
import type { Alerting } from '../alerting';
import type { AdminService } from '../services/admin';
import type { AlertService } from '../alerting/settings';
import type { ApiKeyService } from '../services/api-keys';
import type { AuthService } from '../services/auth';
import type { BillingService } from '../services/billing';
import type { PriceService } from '../services/billing-prices';
import type { EndpointService } from '../services/endpoints';
import type { GraphService } from '../services/graphs';
import type { Reports } from '../features/reports';
import type { Heartbeats } from '../services/heartbeats';
import { heartbeatPingRoutes } from './routes/heartbeats';
import type { RateLimiter } from '../services/rate-limiter';
import type { StatusPageService } from '../services/status-pages';
import type { MaintenanceService } from '../maintenance';
import type { StatusSubscribers } from '../services/status-subscribers';
import type { TokenService } from '../services/tokens';
import type { WorkspaceService } from '../services/workspaces';
import type { CatalogRepo } from '../store/catalog-repo';
import { requireAdmin } from './middleware/auth';
import { errorHandler, notFoundApi, sendErrorPage } from './middleware/errors';
import { limitPerAddress } from './middleware/rate-limit';
import { agentInstallRoutes, type AgentArtifactSource } from './agent-install/routes';
import { buildOpenApi } from './openapi';
import { securityHeaders } from './middleware/security-headers';
import { adminRoutes, type ResultCounter } from './routes/admin';
import { apiKeyRoutes } from './routes/api-keys';
import { authRoutes } from './routes/auth';
import { billingRoutes, billingWebhookRoute } from './routes/billing';
import { publicRoutes, userRoutes } from './routes/users';
import { workspaceRoutes } from './routes/workspaces';
import { oidcRoutes } from './routes/oidc';
import type { OidcService } from '../services/oidc';
import { auditMutations } from './middleware/audit';
import type { WorkspacesRepo } from '../store/workspaces-repo';
import type { EventHub } from '../services/events';
import { statusPageOwnerRoutes, statusPagePublicApi, statusPageSite } from './routes/status-pages';

const DOCS_DIR = path.join(import.meta.dirname, 'docs');
const SWAGGER_UI_DIR = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
const SWAGGER_UI_FILES = new Set(['swagger-ui-bundle.js', 'swagger-ui.css', 'favicon-32x32.png', 'favicon-16x16.png']);

export interface AppDeps {
  logger: Logger;
  auth: AuthService;
  tokens: TokenService;
  endpoints: EndpointService;
  alerts: AlertService;
  apiKeys: ApiKeyService;
  workspaces: WorkspaceService;
  workspacesRepo: WorkspacesRepo;
  /** A team workspace's Stripe contact (see routes/billing.ts). */
  billingContact?: (memberId: number, workspaceId: number) => { email: string; name: string } | null;
  /** The plan new accounts start on (DEFAULT_PACKAGE's package name). */
  defaultPackage?: () => string;
  /** OpenID Connect sign-in; null when OIDC_* is not configured. */
  oidc?: OidcService | null;
  /** A member's name for the audit log. */
  memberName: (userId: number) => string;
  /** Requests a minute per address to /api/public/* (the catalogue and the public checkout); 300 unless set. */
  publicPerMinute?: number;
  /** The agent executable for GET /downloads/… (absent: those routes are not served). */
  agentArtifact?: AgentArtifactSource;
  /** PUBLIC_URL: the address /install-agent.sh downloads from (else the request's own). */
  publicUrl?: string | null;
  /** ALLOW_HTTP_INSTALL: the install script may be served over plain HTTP beyond this machine. */
  allowHttpInstall?: boolean;
  /** Incidents, deliveries and test sends; null when the control plane runs without a results store. */
  alerting?: Alerting | null;
  /** Per-user live events (GET /api/users/events). */
  events?: EventHub | null;
  /** An event stream ends after this long (the access-token lifetime); the client reconnects. */
  eventStreamMaxMs?: number;
  graphs: GraphService;
  /** SLOs and the SLA report. */
  reports: Reports;
  admin: AdminService;
  billing: BillingService;
  prices: PriceService;
  catalog: CatalogRepo;
  limiter: RateLimiter;
  /** Heartbeat monitors' ping routes and ping log; absent: not served. */
  heartbeats?: Heartbeats | null;
  /** Public status pages. */
  statusPages: StatusPageService;
  /** Maintenance windows (owner routes beside the status pages'). */
  maintenance: MaintenanceService;
  subscribers: StatusSubscribers;
  adminToken: string;
  results: ResultCounter | null;
  webDistDir: string | null;
  trustProxy?: boolean | number | string;
  /** Prometheus text for GET /metrics (admin token, as Prometheus' `authorization` scrape option). */
  metrics?: { render(): string | Promise<string>; observeRequest(method: string, status: number, seconds: number): void };
}

export function createApp(deps: AppDeps): Express {
  const app = express();
  app.set('case sensitive routing', true);
  app.set('strict routing', true);
  app.disable('x-powered-by');
  app.set('trust proxy', deps.trustProxy ?? false);
  const log = deps.logger.child({ component: 'http' });

  app.use((req, res, next) => {
    const start = process.hrtime.bigint();
    res.on('finish', () => {
      if (!req.originalUrl.startsWith('/api/')) return; // req.path is rewritten by the mounted router
      const ms = Number(process.hrtime.bigint() - start) / 1e6;
      deps.metrics?.observeRequest(req.method, res.statusCode, ms / 1000);
      log.debug({ method: req.method, path: req.originalUrl.split('?')[0], status: res.statusCode, ms: Math.round(ms * 10) / 10 }, 'request');
    });
    next();
  });
  app.use(securityHeaders);

  app.use(billingWebhookRoute(deps.billing));
  if (deps.heartbeats) app.use(heartbeatPingRoutes(deps.heartbeats));
  if (deps.agentArtifact) app.use(agentInstallRoutes({ artifact: deps.agentArtifact, publicUrl: deps.publicUrl ?? null, allowHttp: deps.allowHttpInstall, logger: deps.logger }));
  // Strict: a role and an audit action are decided by the route a URL matches, so a URL spelled
  // otherwise (upper case, a trailing slash) must match no route at all.
  const api = express.Router({ caseSensitive: true, strict: true });
  // An endpoint body may carry an HTTP check's request body (up to 64 kB, JSON-escaped): its own limit.
  api.use('/users/endpoints', express.json({ limit: '512kb' }));
  api.use(express.json({ limit: '64kb' }));
  api.use((_req, res, next) => {
    res.setHeader('Cache-Control', 'no-store');
    next();
  });
  api.get('/health', (_req, res) => {
    res.json({ success: true, data: { status: 'ok' } });
  });
  api.use(auditMutations({ workspaces: deps.workspacesRepo, memberName: deps.memberName }));
  // Per-address limit on the public API, except status-page reads: many readers share one address
  // (an office behind NAT) at the worst moment, and those answers are cached renderings.
  const publicLimit = limitPerAddress(deps.publicPerMinute ?? 300);
  api.use('/public', (req, res, next) => ((req.method === 'GET' || req.method === 'HEAD') && req.path.startsWith('/status/') ? next() : publicLimit(req, res, next)));
  api.use(publicRoutes(deps.catalog));
  api.use(statusPagePublicApi(deps));
  api.use(oidcRoutes({ oidc: deps.oidc ?? null, limiter: deps.limiter }));
  api.use(authRoutes(deps.auth, deps.tokens));
  api.use(workspaceRoutes({ workspaces: deps.workspaces, repo: deps.workspacesRepo, tokens: deps.tokens, limiter: deps.limiter }));
  api.use(apiKeyRoutes(deps.apiKeys, deps.tokens, deps.workspaces));
  api.use(statusPageOwnerRoutes(deps));
  api.use(userRoutes({ ...deps, alerting: deps.alerting ?? null }));
  api.use(billingRoutes({ billing: deps.billing, prices: deps.prices, tokens: deps.tokens, adminToken: deps.adminToken, limiter: deps.limiter, workspaces: deps.workspaces, billingContact: deps.billingContact, defaultPackage: deps.defaultPackage }));
  api.use(adminRoutes(deps.admin, deps.adminToken, deps.results));
  // The public API's reference: the OpenAPI document and swagger-ui's static bundle (no CDN).
  const openApi = buildOpenApi({ version: CONTROL_PLANE_VERSION, rateLimitPerMinute: deps.apiKeys.perMinute, publicUrl: deps.publicUrl });
  api.get('/openapi.json', (_req, res) => {
    res.json(openApi);
  });
  api.get('/docs', (req, res, next) => {
    if (req.originalUrl.split('?')[0].endsWith('/')) return next();
    res.redirect(301, `${req.baseUrl}/docs/`); // relative asset URLs need the trailing slash
  });
  api.get('/docs/', (_req, res) => {
    res.setHeader('Cache-Control', 'no-cache');
    res.sendFile(path.join(DOCS_DIR, 'index.html'));
  });
  // Only the product's page and the swagger-ui files it loads: the package's own index.html and
  // swagger-initializer.js (the petstore demo), oauth2-redirect and source maps are not served.
  api.use('/docs', express.static(DOCS_DIR, { index: false }));
  api.get('/docs/:file', (req, res, next) => {
    if (!SWAGGER_UI_FILES.has(req.params.file)) return next();
    res.sendFile(path.join(SWAGGER_UI_DIR, req.params.file), { maxAge: '1h' });
  });
  api.use(notFoundApi);
  app.use('/api', api);
  if (deps.metrics) {
    const metrics = deps.metrics;
    app.get('/metrics', requireAdmin(deps.adminToken), async (_req, res) => {
      res.type('text/plain; version=0.0.4').send(await metrics.render());
    });
  }

  app.use(statusPageSite(deps));

  const dist = deps.webDistDir;
  const indexHtml = dist ? path.join(dist, 'index.html') : null;
  if (dist && indexHtml && fs.existsSync(indexHtml)) {
    app.use(express.static(dist, { index: false, maxAge: '1h' }));
    // Client-side routing: any other GET loads the app (deep links such as /alert-settings).
    // The app's index.html is read per request (a rebuild replaces it and its asset names); while
    // it is missing (a rebuild empties dist) the page says so instead of failing like an API call.
    app.get(/.*/, (_req, res) => {
      res.setHeader('Cache-Control', 'no-cache');
      res.sendFile(indexHtml, (err) => {
        if (!err || res.headersSent) return;
        res.setHeader('Retry-After', '5');
        sendErrorPage(res, 503, 'Upfleet is updating', 'The web app is being replaced. Reload this page in a few seconds.');
      });
    });
  } else {
    app.get(/.*/, (_req, res) => {
      res.status(503).type('text').send('The web app is not built yet: run `npm run build` (npm start does it for you).');
    });
  }
  app.use(errorHandler(deps.logger));
  return app;
}
