// Live events (Server-Sent Events) of the request's workspace.
import { AppError } from '../../errors';
import type { EventHub } from '../../services/events';
import { authOf } from '../middleware/auth';
import { route, type RouteDecl } from '../route-table';

export function eventRoutes(deps: { events?: EventHub | null; eventStreamMaxMs?: number }): RouteDecl[] {
  return [
    route('get', '/users/events', 'viewer', (req, res) => {
      const userId = authOf(req).userId;
      if (!deps.events) throw new AppError('unavailable', 'Live events are not running on this server');
      const raw = req.get('Last-Event-ID');
      const lastEventId = raw !== undefined && /^\d{1,16}$/.test(raw.trim()) ? Number(raw.trim()) : null;
      res.status(200).set({ 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-cache, no-transform', 'X-Accel-Buffering': 'no' });
      res.flushHeaders();
      req.socket.setNoDelay(true);
      // Ends when that member's access here does, when its API key is revoked, or when the same person
      // (or key) opens more than EVENT_STREAMS_PER_USER streams: the oldest of theirs goes.
      const close = deps.events.subscribe(userId, res, lastEventId, authOf(req).memberId, authOf(req).apiKeyId);
      // A stream lives as long as an access token: a signed-out or revoked session stops hearing
      // events within that time (the client reconnects with a fresh token and Last-Event-ID, losing nothing).
      const expiry = setTimeout(() => res.end(), deps.eventStreamMaxMs ?? 15 * 60_000);
      res.on('close', () => {
        clearTimeout(expiry);
        close();
      });
    }),
  ];
}
