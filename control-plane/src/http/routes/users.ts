import { Router } from 'express';
import type { Alerting } from '../../alerting';
import { AppError } from '../../errors';
import type { AlertService } from '../../alerting/settings';
import { LIST_GZIP_MIN_BYTES, type EndpointService } from '../../services/endpoints';
import type { ApiKeyService } from '../../services/api-keys';
import type { RateLimiter } from '../../services/rate-limiter';
import type { TokenService } from '../../services/tokens';
import type { CatalogRepo } from '../../store/catalog-repo';
import {
  AlertMethodCreateBody, AlertMethodUpdateBody, AlertThresholdsBody, ENDPOINT_PAGE_MAX, EndpointCreateBody, EndpointListQuery, EndpointToggleBody, EndpointUpdateBody, IncidentsQuery,
} from '@upfleet/proto/schemas';
import { parseId, parseInput } from '../../services/validation';
import { authOf, requireUserOrKey } from '../middleware/auth';
import { limitPerUser } from '../middleware/rate-limit';

export function userRoutes(deps: { endpoints: EndpointService; alerts: AlertService; alerting: Alerting | null; catalog: CatalogRepo; tokens: TokenService; limiter: RateLimiter; apiKeys: ApiKeyService }): Router {
  const r = Router();
  const { endpoints, alerts, catalog } = deps;
  // The data routes: a session, or an API key acting as its owner (account routes are matched before this router).
  r.use('/users', requireUserOrKey(deps.tokens, deps.apiKeys));
  // Each endpoint change recomputes assignments and reaches agents: bounded per user.
  const mutation = limitPerUser(deps.limiter, 'endpoint_mutation');
  const uid = (req: Parameters<typeof authOf>[0]) => authOf(req).userId;
  const endpointId = (raw: unknown) => parseId(raw, 'Endpoint not found');

  r.get('/users/dashboard', (req, res) => {
    res.json({ success: true, data: endpoints.dashboard(uid(req)) });
  });
  r.get('/users/endpoints-with-uptime', async (req, res) => {
    const q = parseInput(EndpointListQuery, req.query);
    if (q.limit !== undefined || q.offset !== undefined) {
      const page = await endpoints.page(uid(req), q.limit ?? ENDPOINT_PAGE_MAX, q.offset ?? 0);
      res.set('X-Total-Count', String(page.total)).json({ success: true, data: page.items });
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
  r.post('/users/endpoints', mutation, (req, res) => {
    res.status(201).json({ success: true, data: endpoints.create(uid(req), parseInput(EndpointCreateBody, req.body)) });
  });
  r.put('/users/endpoints/:id', mutation, (req, res) => {
    res.json({ success: true, data: endpoints.update(uid(req), endpointId(req.params.id), parseInput(EndpointUpdateBody, req.body)) });
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
