// Maintenance windows: the owner's CRUD, and an in-memory view of every window's span that alerting,
// the live state, the uptime queries and status pages ask (alerting asks for every result it
// evaluates, so the answer comes from memory, not SQLite).
import type { MaintenanceWindow } from '@upfleet/proto/rest';
import type { MaintenanceBody } from '@upfleet/proto/schemas';
import { badRequest, notFound } from '../errors';
import type { StatusPagesRepo } from '../store/status-pages-repo';

/** An endpoint's maintenance window, as the uptime queries leave it out. */
export interface MaintenanceSpan { endpointId: number; startsAt: number; endsAt: number }

const DAY_MS = 86_400_000;
/** Windows are looked back this far: results older than this are not asked about (the 7-day uptime is the longest look back). */
const SPAN_LOOKBACK_MS = 8 * DAY_MS;
/** The span cache is re-read this often even without a change (windows start and end by the clock). */
const SPAN_REFRESH_MS = 60_000;

export type MaintenanceRepo = Pick<
  StatusPagesRepo,
  'windowsOf' | 'ownedWindow' | 'createWindow' | 'updateWindow' | 'deleteWindow' | 'windowSpans' | 'spansFor' | 'windowsForEndpoints' | 'ownsEndpoint'
>;

export function createMaintenanceService(deps: {
  repo: MaintenanceRepo;
  /** A window was created or changed (subscribers' mail). */
  windowChanged?: (window: MaintenanceWindow) => void;
  now?: () => number;
}) {
  const { repo } = deps;
  const now = deps.now ?? Date.now;
  let version = 0;

  let spans: { version: number; at: number; byEndpoint: Map<number, Array<[number, number]>> } | null = null;
  function spansNow(t: number) {
    if (!spans || spans.version !== version || t - spans.at > SPAN_REFRESH_MS) {
      const byEndpoint = new Map<number, Array<[number, number]>>();
      for (const [urlId, start, end] of repo.windowSpans(t - SPAN_LOOKBACK_MS)) {
        const list = byEndpoint.get(urlId) ?? [];
        list.push([start, end]);
        byEndpoint.set(urlId, list);
      }
      spans = { version, at: t, byEndpoint };
    }
    return spans.byEndpoint;
  }

  function checkWindowEndpoints(ownerId: number, ids: number[]) {
    for (const id of ids) if (!repo.ownsEndpoint(ownerId, id)) throw notFound('Endpoint not found');
  }

  return {
    listWindows: (ownerId: number): MaintenanceWindow[] => repo.windowsOf(ownerId, now()),
    getWindow(ownerId: number, windowId: number): MaintenanceWindow {
      const w = repo.ownedWindow(ownerId, windowId, now());
      if (!w) throw notFound('Maintenance window not found');
      return w;
    },
    createWindow(ownerId: number, body: MaintenanceBody): MaintenanceWindow {
      checkWindowEndpoints(ownerId, body.endpoint_ids);
      if (body.ends_at <= now()) throw badRequest('The end must be in the future');
      const id = repo.createWindow(ownerId, body, now());
      version++;
      const w = repo.ownedWindow(ownerId, id, now())!;
      deps.windowChanged?.(w);
      return w;
    },
    updateWindow(ownerId: number, windowId: number, body: MaintenanceBody): MaintenanceWindow {
      if (!repo.ownedWindow(ownerId, windowId, now())) throw notFound('Maintenance window not found');
      checkWindowEndpoints(ownerId, body.endpoint_ids);
      repo.updateWindow(ownerId, windowId, body);
      version++;
      const w = repo.ownedWindow(ownerId, windowId, now())!;
      deps.windowChanged?.(w);
      return w;
    },
    removeWindow(ownerId: number, windowId: number): { id: number } {
      if (!repo.deleteWindow(ownerId, windowId)) throw notFound('Maintenance window not found');
      version++;
      return { id: windowId };
    },

    /** Whether an endpoint was in a maintenance window at `at` (alerting skips such results; from memory). */
    inMaintenance(urlId: number, at: number): boolean {
      const list = spansNow(now()).get(urlId);
      return list !== undefined && list.some(([s, e]) => at >= s && at < e);
    },
    /** Endpoints with a window in progress now (from memory). */
    inMaintenanceNow(): Set<number> {
      const t = now();
      const out = new Set<number>();
      for (const [urlId, list] of spansNow(t)) if (list.some(([s, e]) => t >= s && t < e)) out.add(urlId);
      return out;
    },
    /** The windows of these endpoints that overlap [fromMs, untilMs] (from memory: an endpoint without one costs a map lookup). */
    spansFor(urlIds: readonly number[], fromMs: number, untilMs: number): MaintenanceSpan[] {
      const byEndpoint = spansNow(now());
      const out: MaintenanceSpan[] = [];
      if (byEndpoint.size === 0) return out;
      for (const endpointId of urlIds) {
        for (const [startsAt, endsAt] of byEndpoint.get(endpointId) ?? []) if (endsAt > fromMs && startsAt <= untilMs) out.push({ endpointId, startsAt, endsAt });
      }
      return out;
    },
    /** Windows of these endpoints that started since `sinceMs` and before `beforeMs`, from SQLite (longer look backs than the cache's). */
    spansSince(urlIds: readonly number[], sinceMs: number, beforeMs: number): MaintenanceSpan[] {
      return repo.spansFor([...urlIds], sinceMs).filter(([, s]) => s < beforeMs).map(([endpointId, startsAt, endsAt]) => ({ endpointId, startsAt, endsAt }));
    },
    /** Windows touching these endpoints and [fromMs, untilMs], with their state at `at`. */
    windowsForEndpoints: (urlIds: number[], fromMs: number, untilMs: number, at: number) => repo.windowsForEndpoints(urlIds, fromMs, untilMs, at),
    /** Changes whenever a maintenance window is created, edited or deleted. */
    version: () => version,
  };
}
export type MaintenanceService = ReturnType<typeof createMaintenanceService>;
