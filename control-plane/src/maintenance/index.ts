// Maintenance windows: the owner's CRUD, and an in-memory view of every window's span that alerting,
// the live state, the uptime queries and status pages ask (alerting asks for every result it
// evaluates, so the answer comes from memory, not the database: no round trip per check). The
// spans are loaded by refresh() at start, after each window change here, and every minute (windows
// start and end by the clock; another process's change arrives with that refresh).
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
  windowChanged?: (window: MaintenanceWindow) => void | Promise<void>;
  now?: () => number;
}) {
  const { repo } = deps;
  const now = deps.now ?? Date.now;
  let version = 0;

  let byEndpoint = new Map<number, Array<[number, number]>>();
  let refreshing: Promise<void> | null = null;
  let again = false;
  /** Re-reads the spans into memory; calls during a read run one more read after it (none is lost). */
  function refresh(): Promise<void> {
    if (refreshing) {
      again = true;
      return refreshing;
    }
    const run = (async () => {
      do {
        again = false;
        const next = new Map<number, Array<[number, number]>>();
        for (const [urlId, start, end] of await repo.windowSpans(now() - SPAN_LOOKBACK_MS)) {
          const list = next.get(urlId) ?? [];
          list.push([start, end]);
          next.set(urlId, list);
        }
        byEndpoint = next;
      } while (again);
    })().finally(() => {
      refreshing = null;
    });
    refreshing = run;
    return run;
  }
  const spansNow = () => byEndpoint;

  async function checkWindowEndpoints(ownerId: number, ids: number[]) {
    for (const id of ids) if (!(await repo.ownsEndpoint(ownerId, id))) throw notFound('Endpoint not found');
  }
  async function changed() {
    version++;
    await refresh();
    version++;
  }

  return {
    refresh,
    /** How often refresh() should run without a change here (the feature's timer). */
    refreshEveryMs: SPAN_REFRESH_MS,
    listWindows: (ownerId: number): Promise<MaintenanceWindow[]> => repo.windowsOf(ownerId, now()),
    async getWindow(ownerId: number, windowId: number): Promise<MaintenanceWindow> {
      const w = await repo.ownedWindow(ownerId, windowId, now());
      if (!w) throw notFound('Maintenance window not found');
      return w;
    },
    async createWindow(ownerId: number, body: MaintenanceBody): Promise<MaintenanceWindow> {
      await checkWindowEndpoints(ownerId, body.endpoint_ids);
      if (body.ends_at <= now()) throw badRequest('The end must be in the future');
      const id = await repo.createWindow(ownerId, body, now());
      await changed();
      const w = (await repo.ownedWindow(ownerId, id, now()))!;
      await deps.windowChanged?.(w);
      return w;
    },
    async updateWindow(ownerId: number, windowId: number, body: MaintenanceBody): Promise<MaintenanceWindow> {
      if (!(await repo.ownedWindow(ownerId, windowId, now()))) throw notFound('Maintenance window not found');
      await checkWindowEndpoints(ownerId, body.endpoint_ids);
      await repo.updateWindow(ownerId, windowId, body);
      await changed();
      const w = (await repo.ownedWindow(ownerId, windowId, now()))!;
      await deps.windowChanged?.(w);
      return w;
    },
    async removeWindow(ownerId: number, windowId: number): Promise<{ id: number }> {
      if (!(await repo.deleteWindow(ownerId, windowId))) throw notFound('Maintenance window not found');
      await changed();
      return { id: windowId };
    },

    /** Whether an endpoint was in a maintenance window at `at` (alerting skips such results; from memory). */
    inMaintenance(urlId: number, at: number): boolean {
      const list = spansNow().get(urlId);
      return list !== undefined && list.some(([s, e]) => at >= s && at < e);
    },
    /** Endpoints with a window in progress now (from memory). */
    inMaintenanceNow(): Set<number> {
      const t = now();
      const out = new Set<number>();
      for (const [urlId, list] of spansNow()) if (list.some(([s, e]) => t >= s && t < e)) out.add(urlId);
      return out;
    },
    /** The windows of these endpoints that overlap [fromMs, untilMs] (from memory: an endpoint without one costs a map lookup). */
    spansFor(urlIds: readonly number[], fromMs: number, untilMs: number): MaintenanceSpan[] {
      const out: MaintenanceSpan[] = [];
      if (byEndpoint.size === 0) return out;
      for (const endpointId of urlIds) {
        for (const [startsAt, endsAt] of byEndpoint.get(endpointId) ?? []) if (endsAt > fromMs && startsAt <= untilMs) out.push({ endpointId, startsAt, endsAt });
      }
      return out;
    },
    /** Windows of these endpoints that started since `sinceMs` and before `beforeMs`, from the database (longer look backs than the cache's). */
    async spansSince(urlIds: readonly number[], sinceMs: number, beforeMs: number): Promise<MaintenanceSpan[]> {
      return (await repo.spansFor([...urlIds], sinceMs)).filter(([, s]) => s < beforeMs).map(([endpointId, startsAt, endsAt]) => ({ endpointId, startsAt, endsAt }));
    },
    /** Windows touching these endpoints and [fromMs, untilMs], with their state at `at`. */
    windowsForEndpoints: (urlIds: number[], fromMs: number, untilMs: number, at: number) => repo.windowsForEndpoints(urlIds, fromMs, untilMs, at),
    /** Changes whenever a maintenance window is created, edited or deleted. */
    version: () => version,
  };
}
export type MaintenanceService = ReturnType<typeof createMaintenanceService>;
