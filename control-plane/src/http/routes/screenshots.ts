// Browser checks' screenshots of an endpoint in the request's workspace: the list, and one image.
import type { ScreenshotStore } from '../../screenshots/screenshot-store';
import { isScreenshotId } from '../../screenshots/screenshot-id';
import { notFound } from '../../errors';
import { parseId } from '../../services/validation';
import { authOf } from '../middleware/auth';
import { route, type RouteDecl } from '../route-table';

export interface ScreenshotRoutesDeps {
  screenshots: Pick<ScreenshotStore, 'list' | 'read'>;
  /** Whether the workspace has this endpoint (another workspace's is a 404, as a missing one). */
  endpointIn(workspaceId: number, endpointId: number): boolean;
}

export function screenshotRoutes(deps: () => ScreenshotRoutesDeps): RouteDecl[] {
  const endpointOf = (workspaceId: number, raw: string | undefined) => {
    const id = parseId(raw, 'Endpoint not found');
    if (!deps().endpointIn(workspaceId, id)) throw notFound('Endpoint not found');
    return id;
  };
  return [
    route('get', '/users/endpoints/:id/screenshots', 'viewer', async (req, res) => {
      const workspaceId = authOf(req).userId;
      const id = endpointOf(workspaceId, String(req.params.id));
      res.json({ success: true, data: await deps().screenshots.list(workspaceId, id) });
    }),
    route('get', '/users/endpoints/:id/screenshots/:shot', 'viewer', async (req, res) => {
      const workspaceId = authOf(req).userId;
      const id = endpointOf(workspaceId, String(req.params.id));
      const shot = String(req.params.shot ?? '');
      const found = isScreenshotId(shot) ? await deps().screenshots.read(workspaceId, id, shot) : null;
      if (!found) throw notFound('Screenshot not found');
      // An image a signed-in member fetches: never cached by a shared cache, never sniffed as anything else.
      res.status(200).set({ 'Content-Type': found.mime, 'Cache-Control': 'private, max-age=3600', 'X-Content-Type-Options': 'nosniff', 'Content-Length': String(found.data.length) })
        .end(found.data);
    }),
  ];
}
