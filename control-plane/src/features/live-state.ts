// The dashboard's live side: per-endpoint state from stored results, and per-user event streams.
import type { MaintenanceService } from '../maintenance';
import { createEventHub } from '../services/events';
import { createLiveState } from '../services/live-state';
import type { Foundation } from './foundation';
import { every, type Feature } from './lifecycle';
import { eventRoutes } from '../http/routes/events';

export function createLiveStateFeature(base: Foundation, maintenance: MaintenanceService, opts: { maintenanceTickMs?: number }) {
  const events = createEventHub();
  const live = createLiveState({
    // An endpoint in a maintenance window in progress reads `maintenance`.
    inMaintenance: (urlId, at) => maintenance.inMaintenance(urlId, at),
    db: base.db, publish: (userId, type, data) => events.publish(userId, type, data),
    regionLabel: base.regionLabel,
  });
  // An endpoint that changed is forgotten or re-read (and its owner's streams told).
  base.changes.endpoints.subscribe({ changed: (id) => id !== null && live.endpointChanged(id), removed: (id) => live.endpointChanged(id) });

  // The `maintenance` status is computed when read; open dashboards hear when it flips (a window
  // starts, ends, or is created, moved or deleted) on the same tick.
  let maintained = new Set<number>();
  const flips = every(Math.min(opts.maintenanceTickMs ?? 5000, 5000), () => {
    try {
      const next = maintenance.inMaintenanceNow();
      for (const id of next) if (!maintained.has(id)) live.maintenanceChanged(id);
      for (const id of maintained) if (!next.has(id)) live.maintenanceChanged(id);
      maintained = next;
    } catch {
      // the database is closing: the next tick tries again
    }
  });
  return {
    name: 'live state',
    services: { events, live },
    // An event stream ends with the access token's lifetime; the client reconnects with a fresh one.
    routes: () => ({ workspace: eventRoutes({ events, eventStreamMaxMs: base.config.accessTokenTtlSeconds * 1000 }) }),
    start: () => {
      maintained = maintenance.inMaintenanceNow();
      flips.start();
    },
    stop: () => {
      flips.stop();
      live.close();
    },
  } satisfies Feature<unknown>;
}
