// Live events (Server-Sent Events) of the request's workspace.
import { AppError } from '../../errors';
import { EVENT_STREAMS_PER_USER, type EventHub } from '../../services/events';
import { authOf } from '../middleware/auth';
import { route, type RouteDecl } from '../route-table';

export function eventRoutes(deps: { events?: EventHub | null; eventStreamMaxMs?: number }): RouteDecl[] {
  return [
    route('get', '/users/events', 'viewer', (req, res) => {
      const userId = authOf(req).userId;
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
    }),
  ];
}
