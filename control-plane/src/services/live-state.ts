// The dashboard's live state per endpoint: status, last check and the last 30 outcomes, kept in
// memory as results are stored (no ClickHouse scan per list request) and written to SQLite
// (`endpoint_live`, migration 12) once a second, so a restart shows the same rows at once.
// Each stored result also becomes a `result` event for the endpoint's owner (services/events.ts).
import type { CheckResult } from '@upfleet/proto';
import { isDownResult } from '@upfleet/proto/outcome';
import { countStatus, emptyStatusCounts, type EndpointLive, type EndpointStatus, type RecentCheck, type StatusCounts } from '@upfleet/proto/rest';
import { downCause } from '@upfleet/proto/outcome';
import { kindName, type KindName } from '../checks';
import { checkKindByName } from '@upfleet/proto/check-kinds';
import type { Db } from '../store/db';

/** Checks shown in the heartbeat bar. */
export const RECENT_CHECKS = 30;
/** How often changed states are written to SQLite. */
export const LIVE_FLUSH_MS = 1000;
/** States written per transaction by the timer, one transaction per turn of the event loop. */
export const LIVE_FLUSH_SLICE = 500;

/** From this many endpoints an account's status counts are reused for COUNTS_TTL_MS (counting 10,000 costs a few ms). */
const COUNTS_CACHE_MIN = 500;
const COUNTS_TTL_MS = 1000;

/** The check kind that speaks for an endpoint's state: the highest rank in the kinds table (its main check, else ping, else TLS). */
const rankOf = (kind: KindName): number => checkKindByName(kind)?.liveRank ?? 0;

interface RegionLast {
  at: number;
  ok: boolean;
  ms: number | null;
  code: number | null;
  /** Readable failure reason; null when the check passed. */
  error: string | null;
}

interface StoredState {
  kind: KindName;
  regions: Record<string, RegionLast>;
  recent: RecentCheck[];
}

export type LiveEventPublisher = (userId: number, type: 'result' | 'endpoint.changed', data: unknown) => void;

const PENDING: EndpointLive = Object.freeze({
  status: 'pending', last_checked_at: null, last_response_ms: null, last_status_code: null, last_error: null, recent: [],
});

export function createLiveState(deps: {
  db: Db;
  /** 'EU-Germany' → 'EU - Germany', for failure reasons. */
  regionLabel(key: string): string;
  publish?: LiveEventPublisher;
  flushMs?: number;
  /**
   * Whether a maintenance window of the endpoint is in progress at `at`: its status then
   * reads `maintenance`, computed when read, so it changes when the window starts and ends.
   */
  inMaintenance?(urlId: number, at: number): boolean;
}) {
  const { db } = deps;
  const q = {
    all: db.prepare('SELECT url_id, state FROM endpoint_live').raw(true),
    // Written only while the endpoint exists (a result may land after its deletion).
    save: db.prepare(`INSERT INTO endpoint_live (url_id, state) SELECT ?, ? WHERE EXISTS (SELECT 1 FROM endpoints WHERE url_id = ?)
      ON CONFLICT (url_id) DO UPDATE SET state = excluded.state`),
    forget: db.prepare('DELETE FROM endpoint_live WHERE url_id = ?'),
    owner: db.prepare('SELECT user_id, regions FROM endpoints WHERE url_id = ?').raw(true),
    owners: db.prepare('SELECT url_id, user_id FROM endpoints').raw(true),
    enabledOf: db.prepare('SELECT url_id, monitoring_enabled FROM endpoints WHERE user_id = ?').raw(true),
    openIncidents: db.prepare('SELECT url_id, condition FROM incidents WHERE resolved_at IS NULL').raw(true),
    openIncidentsOf: db.prepare('SELECT condition FROM incidents WHERE url_id = ? AND resolved_at IS NULL').raw(true),
  };
  /**
   * Open alerting incidents per endpoint: 'down' for an open down incident, else 'degraded' (a
   * threshold). A row is as bad as its incident until alerting resolves it, so its word, colour,
   * filter and counts never say Up while it reads "Down since".
   */
  const incidentState = new Map<number, 'down' | 'degraded'>();
  const incidentOf = (conditions: string[]): 'down' | 'degraded' | null => (conditions.includes('down') ? 'down' : conditions.length > 0 ? 'degraded' : null);
  {
    const byUrl = new Map<number, string[]>();
    for (const [id, condition] of q.openIncidents.all() as Array<[number, string]>) byUrl.set(id, [...(byUrl.get(id) ?? []), condition]);
    for (const [id, conditions] of byUrl) incidentState.set(id, incidentOf(conditions)!);
  }
  const readIncident = (urlId: number): void => {
    const inc = incidentOf((q.openIncidentsOf.all(urlId) as Array<[string]>).map((r) => r[0]));
    if (inc) incidentState.set(urlId, inc);
    else incidentState.delete(urlId);
  };
  /** The status rule: maintenance, else the worse of the checks' state and the open incident's. */
  const withIncident = (urlId: number, status: EndpointStatus): EndpointStatus => {
    const inc = incidentState.get(urlId);
    if (inc === 'down') return 'down';
    if (inc === 'degraded' && (status === 'up' || status === 'pending')) return 'degraded';
    return status;
  };
  const states = new Map<number, StoredState>();
  for (const [id, text] of q.all.all() as Array<[number, string]>) {
    try {
      states.set(id, JSON.parse(text) as StoredState);
    } catch {
      // an unreadable row: the endpoint shows pending until its next result
    }
  }
  /** Owner of each endpoint (0: no such endpoint), all read at start (a deletion's owner is still known); refreshed when one changes. */
  const owners = new Map<number, number>(q.owners.all() as Array<[number, number]>);
  const ownerOf = (urlId: number): number => {
    let o = owners.get(urlId);
    if (o === undefined) {
      const row = q.owner.get(urlId) as [number, string] | undefined;
      o = row ? row[0] : 0;
      owners.set(urlId, o);
    }
    return o;
  };
  /** Rendered live fields per endpoint, dropped when its state changes. */
  const rendered = new Map<number, EndpointLive>();
  const dirty = new Set<number>();
  const countsCache = new Map<number, { at: number; counts: StatusCounts }>();

  function render(st: StoredState): EndpointLive {
    let last: RegionLast | null = null;
    let failing = 0;
    let total = 0;
    let lastFailure: RegionLast | null = null;
    for (const r of Object.values(st.regions)) {
      total++;
      if (!last || r.at > last.at) last = r;
      if (!r.ok) {
        failing++;
        if (!lastFailure || r.at > lastFailure.at) lastFailure = r;
      }
    }
    if (!last) return PENDING;
    const status: EndpointStatus = failing === 0 ? 'up' : failing === total ? 'down' : 'degraded';
    return {
      status,
      last_checked_at: new Date(last.at).toISOString(),
      last_response_ms: last.ms,
      last_status_code: last.code,
      last_error: lastFailure ? lastFailure.error : null,
      recent: st.recent,
    };
  }

  const maintained = (urlId: number): boolean => deps.inMaintenance?.(urlId, Date.now()) ?? false;

  /** The live fields of one endpoint (paused when monitoring is off, keeping its last check; maintenance in a window). */
  function fields(urlId: number, monitoringEnabled: boolean): EndpointLive {
    let f = rendered.get(urlId);
    if (!f) {
      const st = states.get(urlId);
      f = st ? render(st) : PENDING;
      rendered.set(urlId, f);
    }
    if (!monitoringEnabled) return { ...f, status: 'paused' };
    if (maintained(urlId)) return { ...f, status: 'maintenance' };
    const status = withIncident(urlId, f.status);
    return status === f.status ? f : { ...f, status };
  }

  const statusOf = (urlId: number, monitoringEnabled: boolean): EndpointStatus => (monitoringEnabled ? fields(urlId, true).status : 'paused');

  /** The live fields as JSON object members (`"status":…,"recent":[…]`), made once per change: a page of the list is assembled from strings. */
  const jsonCache = new Map<number, string>();
  function fieldsJson(urlId: number, monitoringEnabled: boolean): string {
    if (!monitoringEnabled || maintained(urlId) || incidentState.has(urlId)) return JSON.stringify(fields(urlId, monitoringEnabled)).slice(1, -1);
    let j = jsonCache.get(urlId);
    if (j === undefined) {
      j = JSON.stringify(fields(urlId, true)).slice(1, -1);
      jsonCache.set(urlId, j);
    }
    return j;
  }

  function record(r: CheckResult): void {
    const urlId = Number(r.endpoint_id);
    const kind = kindName(r.kind);
    if (!kind) return;
    const userId = ownerOf(urlId);
    if (!userId) return;
    let st = states.get(urlId);
    if (!st || rankOf(kind) > rankOf(st.kind)) {
      st = { kind, regions: {}, recent: [] };
      states.set(urlId, st);
    } else if (rankOf(kind) < rankOf(st.kind)) {
      return;
    }
    const at = Number(r.ts_ms);
    const prev = st.regions[r.region];
    if (prev && at <= prev.at) return; // a re-sent batch or a late result: already shown
    const ok = !isDownResult(r);
    const entry: RegionLast = {
      at, ok,
      ms: r.total_ms > 0 || r.status_code > 0 ? Math.round(r.total_ms) : null,
      code: r.status_code > 0 ? r.status_code : null,
      error: ok ? null : downCause(r, deps.regionLabel(r.region)),
    };
    st.regions[r.region] = entry;
    const check: RecentCheck = { at, ok, ms: entry.ms, code: entry.code };
    // A new array each time: a rendering already handed out keeps the checks it had.
    const recent = [...st.recent, check];
    if (recent.length > 1 && recent[recent.length - 2].at > at) recent.sort((a, b) => a.at - b.at);
    st.recent = recent.length > RECENT_CHECKS ? recent.slice(recent.length - RECENT_CHECKS) : recent;
    rendered.delete(urlId);
    jsonCache.delete(urlId);
    dirty.add(urlId);
    const f = render(st);
    deps.publish?.(userId, 'result', {
      url_id: urlId, status: maintained(urlId) ? 'maintenance' : withIncident(urlId, f.status), last_checked_at: f.last_checked_at, last_response_ms: f.last_response_ms,
      last_status_code: f.last_status_code, last_error: f.last_error, recent: check,
    });
  }

  /** Writes up to `limit` changed states (all by default) in one transaction. */
  function flush(limit = Number.POSITIVE_INFINITY): void {
    if (dirty.size === 0) return;
    const ids: number[] = [];
    for (const id of dirty) {
      if (ids.length >= limit) break;
      ids.push(id);
    }
    for (const id of ids) dirty.delete(id);
    db.transaction(() => {
      for (const id of ids) {
        const st = states.get(id);
        if (st) q.save.run(id, JSON.stringify(st), id);
      }
    })();
  }
  // The timer writes a slice per turn of the event loop: after a restart every endpoint changes
  // within a minute, and one transaction of every changed state held the loop for tens of ms.
  let slicing = false;
  const flushInSlices = () => {
    try {
      flush(LIVE_FLUSH_SLICE);
    } catch {
      // the database is closing or busy: the states stay in memory and are written next time
      slicing = false;
      return;
    }
    slicing = dirty.size > 0;
    if (slicing) setImmediate(flushInSlices);
  };
  const timer = setInterval(() => {
    if (!slicing) flushInSlices();
  }, deps.flushMs ?? LIVE_FLUSH_MS);
  timer.unref();

  return {
    fields,
    fieldsJson,
    statusOf,

    /** Stored results (after their ClickHouse insert), in any order. */
    onResults(results: readonly CheckResult[]): void {
      for (const r of results) record(r);
    },

    /** Endpoints per status for one user (the dashboard summary); a large account's are reused for a second. */
    counts(userId: number): StatusCounts {
      const hit = countsCache.get(userId);
      if (hit && Date.now() - hit.at < COUNTS_TTL_MS) return hit.counts;
      const counts = emptyStatusCounts();
      const rows = q.enabledOf.all(userId) as Array<[number, number]>;
      for (const [id, enabled] of rows) countStatus(counts, statusOf(id, enabled === 1));
      if (rows.length >= COUNTS_CACHE_MIN) {
        if (countsCache.size > 10_000) countsCache.clear();
        countsCache.set(userId, { at: Date.now(), counts });
      } else countsCache.delete(userId);
      return counts;
    },

    /**
     * An endpoint was created, edited, toggled or deleted: regions it no longer checks stop
     * counting, a deleted one's state goes, and its owner hears `endpoint.changed`.
     */
    endpointChanged(urlId: number): void {
      const before = owners.get(urlId);
      owners.delete(urlId);
      const row = q.owner.get(urlId) as [number, string] | undefined;
      const userId = row ? row[0] : before;
      if (row) owners.set(urlId, row[0]);
      if (!row) {
        states.delete(urlId);
        rendered.delete(urlId);
        jsonCache.delete(urlId);
        dirty.delete(urlId);
        q.forget.run(urlId);
      } else {
        const st = states.get(urlId);
        const regions = new Set(JSON.parse(row[1]) as string[]);
        if (st) {
          // a heartbeat's pings come from region push, never one of the endpoint's regions
          for (const key of Object.keys(st.regions)) if (!regions.has(key) && key !== 'push' && st.kind !== 'http') delete st.regions[key];
          rendered.delete(urlId);
          jsonCache.delete(urlId);
        }
      }
      // Switching monitoring off or deleting resolves incidents without their hooks; read them
      // after every subscriber of this change has run.
      queueMicrotask(() => {
        try {
          readIncident(urlId);
        } catch {
          // the database is closing
        }
      });
      if (userId) deps.publish?.(userId, 'endpoint.changed', { url_id: urlId, deleted: !row });
    },

    /** An alerting incident of the endpoint opened or resolved: its status follows, and its owner's dashboards re-read it. */
    incidentChanged(urlId: number): void {
      readIncident(urlId);
      const userId = ownerOf(urlId);
      if (!userId) return;
      countsCache.delete(userId);
      deps.publish?.(userId, 'endpoint.changed', { url_id: urlId, deleted: false });
    },

    /** A maintenance window of the endpoint started or ended (or was changed): its owner's dashboards re-read it. */
    maintenanceChanged(urlId: number): void {
      const userId = ownerOf(urlId);
      if (!userId) return;
      countsCache.delete(userId);
      deps.publish?.(userId, 'endpoint.changed', { url_id: urlId, deleted: false });
    },

    /** Writes every changed state now. */
    flush: () => flush(),
    close(): void {
      clearInterval(timer);
      flush();
    },
  };
}
export type LiveStateService = ReturnType<typeof createLiveState>;
