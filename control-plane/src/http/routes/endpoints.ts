// Endpoints: the dashboard, the list with live state, create/update/toggle/delete (with ?dry_run),
// alert thresholds and a heartbeat's ping log. Acts on the request's workspace (routes/users.ts).
import type { NextFunction, Request, Response } from 'express';
import {
  AlertThresholdsBody, ENDPOINT_PAGE_MAX, EndpointCreateBody, EndpointListQuery, EndpointToggleBody, EndpointUpdateBody,
} from '@upfleet/proto/schemas';
import { badRequest } from '../../errors';
import type { AlertService } from '../../alerting/settings';
import { LIST_GZIP_MIN_BYTES, type EndpointService } from '../../services/endpoints';
import type { Heartbeats } from '../../services/heartbeats';
import type { RateLimiter } from '../../services/rate-limiter';
import { parseId, parseInput } from '../../services/validation';
import { roleAllows } from '../../services/workspaces';
import { authOf } from '../middleware/auth';
import { limitPerUser } from '../middleware/rate-limit';
import { route, type RouteDecl } from '../route-table';

/** `dry_run` on an endpoint save: 1/true or 0/false; anything else is a 400. */
const isDryRun = (raw: unknown) => raw === '1' || raw === 'true';
function dryRunParam(raw: unknown): boolean {
  if (raw === undefined || raw === '0' || raw === 'false') return false;
  if (isDryRun(raw)) return true;
  throw badRequest('dry_run must be 1 or 0');
}

export function endpointRoutes(deps: { endpoints: EndpointService; alerts: AlertService; limiter: RateLimiter; heartbeats?: Heartbeats | null }): RouteDecl[] {
  const { endpoints, alerts } = deps;
  // Each endpoint change recomputes assignments and reaches agents: bounded per user.
  const mutation = limitPerUser(deps.limiter, 'endpoint_mutation');
  // ?dry_run=1: every check of a save, nothing saved, 200 { dry_run: true, endpoint } (`upfleet monitors
  // apply` checks a whole file this way first); not counted as a mutation.
  const orDryRun = (req: Request, res: Response, next: NextFunction) => (isDryRun(req.query.dry_run) ? next() : mutation(req, res, next));
  const uid = (req: Request) => authOf(req).userId;
  const endpointId = (raw: unknown) => parseId(raw, 'Endpoint not found');

  return [
    route('get', '/users/dashboard', 'viewer', async (req, res) => {
      res.json({ success: true, data: await endpoints.dashboard(uid(req)) });
    }),
    route('get', '/users/endpoints-with-uptime', 'viewer', async (req, res) => {
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
    }),
    route('post', '/users/endpoints', { role: 'editor', action: 'endpoint.create' }, orDryRun, async (req, res) => {
      const body = parseInput(EndpointCreateBody, req.body);
      if (dryRunParam(req.query.dry_run)) {
        res.json({ success: true, data: { dry_run: true, endpoint: await endpoints.check(uid(req), body) } });
        return;
      }
      res.status(201).json({ success: true, data: await endpoints.create(uid(req), body) });
    }),
    // One endpoint (a heartbeat's answer carries its state, and its ping URL for editors and above).
    route('get', '/users/endpoints/:id', 'viewer', (req, res) => {
      const showPingUrl = roleAllows(authOf(req).role ?? 'viewer', 'editor');
      res.json({ success: true, data: endpoints.get(uid(req), endpointId(req.params.id), { showPingUrl }) });
    }),
    route('put', '/users/endpoints/:id', { role: 'editor', action: 'endpoint.update' }, orDryRun, async (req, res) => {
      const id = endpointId(req.params.id);
      const body = parseInput(EndpointUpdateBody, req.body);
      if (dryRunParam(req.query.dry_run)) {
        res.json({ success: true, data: { dry_run: true, endpoint: await endpoints.check(uid(req), body, id) } });
        return;
      }
      res.json({ success: true, data: await endpoints.update(uid(req), id, body) });
    }),
    route('patch', '/users/endpoints/:id/toggle', { role: 'editor', action: 'endpoint.toggle' }, mutation, async (req, res) => {
      res.json({ success: true, data: await endpoints.toggle(uid(req), endpointId(req.params.id), parseInput(EndpointToggleBody, req.body)) });
    }),
    route('delete', '/users/endpoints/:id', { role: 'editor', action: 'endpoint.delete' }, mutation, (req, res) => {
      res.json({ success: true, data: endpoints.remove(uid(req), endpointId(req.params.id)) });
    }),
    route('get', '/users/endpoints/:id/alert-thresholds', 'viewer', (req, res) => {
      res.json({ success: true, data: alerts.listThresholds(uid(req), endpointId(req.params.id)) });
    }),
    route('put', '/users/endpoints/:id/alert-thresholds', { role: 'editor', action: 'thresholds.update' }, mutation, (req, res) => {
      res.json({ success: true, data: alerts.saveThresholds(uid(req), endpointId(req.params.id), parseInput(AlertThresholdsBody, req.body)) });
    }),
    route('post', '/users/endpoints/:id/rotate-ping-url', { role: 'editor', action: 'endpoint.rotate_ping_url' }, mutation, (req, res) => {
      res.json({ success: true, data: endpoints.rotatePingUrl(uid(req), endpointId(req.params.id)) });
    }),
    // A heartbeat's ping log: its last 100 pings, newest first.
    route('get', '/users/endpoints/:id/pings', 'viewer', (req, res) => {
      const e = endpoints.get(uid(req), endpointId(req.params.id));
      if (e.kind !== 'heartbeat' || !deps.heartbeats) throw badRequest('Only a heartbeat endpoint has a ping log');
      res.json({ success: true, data: deps.heartbeats.pings(e.url_id) });
    }),
  ];
}
