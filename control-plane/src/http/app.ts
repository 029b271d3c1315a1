// createApp(deps): the REST surface and the web app over the routes the features declare, without
// listening (tests and main share it). The app decides where each kind of route sits and what runs
// around them all (security headers, JSON limits, audit, the public limit, the API reference).
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import express, { type Express, type Router } from 'express';
import type { Logger } from '../logger';
import { CONTROL_PLANE_VERSION } from '../version';
import { requireAdmin, type SignIn } from './middleware/auth';
import { errorHandler, notFoundApi, sendErrorPage } from './middleware/errors';
import { limitPerAddress } from './middleware/rate-limit';
import { buildOpenApi } from './openapi';
import { securityHeaders } from './middleware/security-headers';
import type { RouteDecl } from './route-table';
import { workspaceDataRouter } from './routes/users';
import type { Readiness } from '../cluster/readiness';
import { healthRoutes } from './routes/health';
import { auditMutations } from './middleware/audit';
import type { WorkspacesRepo } from '../store/workspaces-repo';

const DOCS_DIR = path.join(import.meta.dirname, 'docs');
const SWAGGER_UI_DIR = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
const SWAGGER_UI_FILES = new Set(['swagger-ui-bundle.js', 'swagger-ui.css', 'favicon-32x32.png', 'favicon-16x16.png']);

/**
 * Where a feature's routes sit. Slots are matched in this order, and within a slot in the order of
 * the features: what signs in by itself comes before the workspace data's one sign-in for /users/*.
 */
export interface FeatureRoutes {
  /** Outside /api and before its JSON parser, with a credential of their own (a Stripe signature,
   *  a heartbeat's token, the agent install script). */
  outside?: Router[];
  /** /api for anyone (the catalogue, status pages' JSON), behind the per-address public limit. */
  public?: Router[];
  /** /api routers that sign the caller in themselves (accounts, SSO, workspaces and invitations,
   *  API keys, status-page owners). */
  account?: Router[];
  /** The request's workspace data: a session or an API key, then each route's declared role. */
  workspace?: RouteDecl[];
  /** /api routers after the workspace data (billing, the operator's admin routes). */
  operator?: Router[];
  /** Server-rendered pages after /api, before the web app (status-page sites). */
  pages?: Router[];
}

export interface AppDeps {
  logger: Logger;
  /** The features' routes, in the features' order. */
  routes: FeatureRoutes[];
  signIn: SignIn;
  /** The audit log's workspace and a member's name for it. */
  workspacesRepo: WorkspacesRepo;
  memberName: (userId: number) => string | Promise<string>;
  /** Requests a minute per address to /api/public/* (the catalogue and the public checkout); 300 unless set. */
  publicPerMinute?: number;
  /** An API key's requests a minute, for the API reference. */
  apiKeyPerMinute: number;
  /** PUBLIC_URL, for the API reference's server. */
  publicUrl?: string | null;
  adminToken: string;
  webDistDir: string | null;
  trustProxy?: boolean | number | string;
  /** GET /readyz: the database and ClickHouse reachable, migrations current (absent: always ready). */
  readiness?: Readiness;
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

  // Load balancers' probes first: nothing (no sign-in, no parser) stands before them.
  app.use(healthRoutes(deps.readiness ?? { check: () => Promise.resolve({ ready: true, parts: {} }) }));
  const slot = (k: Exclude<keyof FeatureRoutes, 'workspace'>): Router[] => deps.routes.flatMap((f) => f[k] ?? []);
  for (const r of slot('outside')) app.use(r);
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
  for (const r of slot('public')) api.use(r);
  for (const r of slot('account')) api.use(r);
  api.use(workspaceDataRouter(deps.routes.flatMap((f) => f.workspace ?? []), deps.signIn));
  for (const r of slot('operator')) api.use(r);
  // The public API's reference: the OpenAPI document and swagger-ui's static bundle (no CDN).
  const openApi = buildOpenApi({ version: CONTROL_PLANE_VERSION, rateLimitPerMinute: deps.apiKeyPerMinute, publicUrl: deps.publicUrl });
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

  for (const r of slot('pages')) app.use(r);

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
