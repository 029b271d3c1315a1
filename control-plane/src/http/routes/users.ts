import { Router, type NextFunction, type Request, type Response } from 'express';
import type { Alerting } from '../../alerting';
import { AppError, badRequest } from '../../errors';
import type { AlertService } from '../../alerting/settings';
import { LIST_GZIP_MIN_BYTES, type EndpointService } from '../../services/endpoints';
import type { ApiKeyService } from '../../services/api-keys';
import type { RateLimiter } from '../../services/rate-limiter';
import type { TokenService } from '../../services/tokens';
import type { CatalogRepo } from '../../store/catalog-repo';
import { EVENT_STREAMS_PER_USER, type EventHub } from '../../services/events';
import {
  AlertMethodCreateBody, AlertMethodUpdateBody, AlertThresholdsBody, ENDPOINT_PAGE_MAX, EndpointCreateBody, EndpointListQuery, EndpointToggleBody, EndpointUpdateBody, IncidentsQuery,
} from '@upfleet/proto/schemas';
import { parseId, parseInput } from '../../services/validation';
import { authOf, inWorkspace, requireUserOrKey } from '../middleware/auth';
import { workspaceRoleGate } from '../middleware/roles';
import type { WorkspaceService } from '../../services/workspaces';
import { limitPerUser } from '../middleware/rate-limit';

/** `dry_run` on an endpoint save: 1/true or 0/false; anything else is a 400. */
const isDryRun = (raw: unknown) => raw === '1' || raw === 'true';
function dryRunParam(raw: unknown): boolean {
  if (raw === undefined || raw === '0' || raw === 'false') return false;
  if (isDryRun(raw)) return true;
  throw badRequest('dry_run must be 1 or 0');
}

export function userRoutes(deps: { endpoints: EndpointService; alerts: AlertService; alerting: Alerting | null; catalog: CatalogRepo; tokens: TokenService; limiter: RateLimiter; apiKeys: ApiKeyService; workspaces: WorkspaceService; events?: EventHub | null; eventStreamMaxMs?: number }): Router {
  const r = Router();
  const { endpoints, alerts, catalog } = deps;
  // The data routes: a session, or an API key acting as its owner (account routes are matched before this router).
  // Each acts on the request's workspace (X-Workspace-Id, or the personal one) within the caller's role there.
  r.use('/users', requireUserOrKey(deps.tokens, deps.apiKeys), inWorkspace(deps.workspaces), workspaceRoleGate());
  // Each endpoint change recomputes assignments and reaches agents: bounded per user.
  const mutation = limitPerUser(deps.limiter, 'endpoint_mutation');
  const uid = (req: Parameters<typeof authOf>[0]) => authOf(req).userId;
  const endpointId = (raw: unknown) => parseId(raw, 'Endpoint not found');

  r.get('/users/dashboard', (req, res) => {
    res.json({ success: true, data: endpoints.dashboard(uid(req)) });
  });
  r.get('/users/endpoints-with-uptime', async (req, res) => {
    const q = parseInput(EndpointListQuery, req.query);
    const paged = q.limit !== undefined || q.offset !== undefined;
    if (q.q !== undefined || q.status !== undefined || q.sort !== undefined) {
      // Without limit/offset every match is answered; X-Total-Count counts the matches. A search or
      // filter without sort answers down first; the plain list (and its pages) keeps the oldest
      // endpoint first, as clients of the SPEC's list rely on.
      const sort = q.sort ?? { key: 'status' as const, desc: false };
      const page = await endpoints.queryBody(uid(req), { ...q, sort, limit: paged ? q.limit ?? ENDPOINT_PAGE_MAX : Number.MAX_SAFE_INTEGER, offset: q.offset ?? 0 });
      res.set('X-Total-Count', String(page.total)).type('json').send(page.body);
      return;
    }
    if (paged) {
      const page = await endpoints.pageBody(uid(req), q.limit ?? ENDPOINT_PAGE_MAX, q.offset ?? 0);
      res.set('X-Total-Count', String(page.total)).type('json').send(page.body);
      return;
    }
    // The whole list: rendered by the service (large lists once per change); the ETag lets a client revalidate,
    // and a large body goes gzipped (made once per rendering) to clients that accept it.
    const list = await endpoints.listBody(uid(req));
    res.set('ETag', list.etag).type('json').vary('Accept-Encoding');
    if (list.body.length >= LIST_GZIP_MIN_BYTES && req.acceptsEncodings('gzip', 'identity') === 'gzip') {
      res.set('Content-Encoding', 'gzip').send(await list.gzipped());
    } else {
      res.send(list.body);
    }
  });
  r.get('/users/events', (req, res) => {
    const userId = uid(req);
    if (!deps.events) throw new AppError('unavailable', 'Live events are not running on this server');
    if (deps.events.streamsOf(userId) >= EVENT_STREAMS_PER_USER) throw new AppError('rate_limited', `At most ${EVENT_STREAMS_PER_USER} event streams may be open at once`);
    const raw = req.get('Last-Event-ID');
    const lastEventId = raw !== undefined && /^\d{1,16}$/.test(raw.trim()) ? Number(raw.trim()) : null;
    res.status(200).set({ 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-cache, no-transform', 'X-Accel-Buffering': 'no' });
    res.flushHeaders();
    req.socket.setNoDelay(true);
    const close = deps.events.subscribe(userId, res, lastEventId, authOf(req).memberId); // ends when that member's access here does
    // A stream lives as long as an access token: a signed-out or revoked session stops hearing
    // events within that time (the client reconnects with a fresh token and Last-Event-ID, losing nothing).
    const expiry = setTimeout(() => res.end(), deps.eventStreamMaxMs ?? 15 * 60_000);
    res.on('close', () => {
      clearTimeout(expiry);
      close();
    });
  });
  // ?dry_run=1: every check of a save, nothing saved, 200 { dry_run: true, endpoint } (`upfleet monitors
  // apply` checks a whole file this way first); not counted as a mutation.
  const orDryRun = (req: Request, res: Response, next: NextFunction) => (isDryRun(req.query.dry_run) ? next() : mutation(req, res, next));
  r.post('/users/endpoints', orDryRun, (req, res) => {
    const body = parseInput(EndpointCreateBody, req.body);
    if (dryRunParam(req.query.dry_run)) {
      res.json({ success: true, data: { dry_run: true, endpoint: endpoints.check(uid(req), body) } });
      return;
    }
    res.status(201).json({ success: true, data: endpoints.create(uid(req), body) });
  });
  // One endpoint (a heartbeat's answer carries its ping URL and state, issue 22).
  r.get('/users/endpoints/:id', (req, res) => {
    res.json({ success: true, data: endpoints.get(uid(req), endpointId(req.params.id)) });
  });
  r.put('/users/endpoints/:id', orDryRun, (req, res) => {
    const id = endpointId(req.params.id);
    const body = parseInput(EndpointUpdateBody, req.body);
    if (dryRunParam(req.query.dry_run)) {
      res.json({ success: true, data: { dry_run: true, endpoint: endpoints.check(uid(req), body, id) } });
      return;
    }
    res.json({ success: true, data: endpoints.update(uid(req), id, body) });
  });
  r.patch('/users/endpoints/:id/toggle', mutation, (req, res) => {
    res.json({ success: true, data: endpoints.toggle(uid(req), endpointId(req.params.id), parseInput(EndpointToggleBody, req.body)) });
  });
  r.delete('/users/endpoints/:id', mutation, (req, res) => {
    res.json({ success: true, data: endpoints.remove(uid(req), endpointId(req.params.id)) });
  });
  r.get('/users/endpoints/:id/alert-thresholds', (req, res) => {
    res.json({ success: true, data: alerts.listThresholds(uid(req), endpointId(req.params.id)) });
  });
  r.put('/users/endpoints/:id/alert-thresholds', mutation, (req, res) => {
    res.json({ success: true, data: alerts.saveThresholds(uid(req), endpointId(req.params.id), parseInput(AlertThresholdsBody, req.body)) });
  });
  r.get('/users/regions', (_req, res) => {
    res.json({ success: true, data: catalog.listRegions() });
  });
  r.get('/users/monitor-types', (_req, res) => {
    res.json({ success: true, data: catalog.listMonitorTypes() });
  });
  const methodId = (raw: unknown) => parseId(raw, 'Alert method not found');
  r.get('/users/alert-methods', (req, res) => {
    res.json({ success: true, data: alerts.listMethods(uid(req)) });
  });
  r.post('/users/alert-methods', (req, res) => {
    res.status(201).json({ success: true, data: alerts.createMethod(uid(req), parseInput(AlertMethodCreateBody, req.body)) });
  });
  r.put('/users/alert-methods/:id', (req, res) => {
    res.json({ success: true, data: alerts.updateMethod(uid(req), methodId(req.params.id), parseInput(AlertMethodUpdateBody, req.body)) });
  });
  r.delete('/users/alert-methods/:id', (req, res) => {
    res.json({ success: true, data: alerts.deleteMethod(uid(req), methodId(req.params.id)) });
  });
  r.get('/users/alert-methods/:id/signing-secret', (req, res) => {
    res.json({ success: true, data: alerts.signingSecret(uid(req), methodId(req.params.id)) });
  });
  const alerting = () => {
    if (!deps.alerting) throw new AppError('unavailable', 'Alerting is not running on this server');
    return deps.alerting;
  };
  r.post('/users/alert-methods/:id/test', async (req, res) => {
    alerting();
    alerts.admitTestSend(uid(req), methodId(req.params.id), authOf(req).memberId ?? uid(req));
    res.json({ success: true, data: await alerting().sendTest(uid(req), methodId(req.params.id)) });
  });
  r.get('/users/alert-methods/:id/deliveries', (req, res) => {
    res.json({ success: true, data: alerting().listDeliveries(uid(req), methodId(req.params.id)) });
  });
  r.get('/users/incidents', (req, res) => {
    // An empty parameter (endpoint_id=&status=) means "any", as the web app sends it.
    const raw = Object.fromEntries(Object.entries(req.query as Record<string, unknown>).filter(([, v]) => v !== ''));
    const q = parseInput(IncidentsQuery, raw);
    res.json({ success: true, data: alerting().listIncidents(uid(req), { endpointId: q.endpoint_id ?? null, status: q.status ?? null }) });
  });
  return r;
}

export function publicRoutes(catalog: CatalogRepo): Router {
  const r = Router();
  r.get('/public/packages', (_req, res) => {
    res.json({ success: true, data: catalog.listPackages() });
  });
  r.get('/public/regions', (_req, res) => {
    res.json({ success: true, data: catalog.listRegions() });
  });
  return r;
}
