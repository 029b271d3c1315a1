// Who checks what: every monitoring-enabled endpoint x its features x its regions, each check owned
// by exactly one live agent of its region, chosen by rendezvous hashing. Watchers get a snapshot,
// then deltas whenever endpoints, plans or the set of live agents change. Kept in one file (just over
// 350 lines): the watchers, the held checks and the release memory are one state, changed together.
import { Gauge, type Registry } from 'prom-client';
import type { Assignment, AssignmentUpdate } from '@upfleet/proto';
import type { Logger } from '../logger';
import { regionKey, type CatalogRepo } from '../store/catalog-repo';
import type { EndpointsRepo, MonitoredEndpoint } from '../store/endpoints-repo';
import type { ChangeHub } from '../change-hub';
import { checksForEndpoint, ownerOf, ownerPicker } from './check-placement';
import { CHECK_KIND_TABLE, type AssignedKind } from '@upfleet/proto/check-kinds';

/** See `releaseMemoryMs`: an agent's buffer older than this, for checks it no longer holds, is refused. */
export const RELEASE_MEMORY_MS = 6 * 3_600_000;

export interface AssignmentWatcher {
  agentId: string;
  region: string;
  /** it said it can run browser checks when it opened its watch */
  browserChecks?: boolean;
  send(update: AssignmentUpdate): void;
}

interface WatcherState extends AssignmentWatcher {
  version: number;
  current: Map<string, Assignment>;
  /** No snapshot sent yet (inside the start-up grace, or waiting for the next pass): no deltas either. */
  pending?: boolean;
}

const sameAssignment = (a: Assignment, b: Assignment) =>
  a.url === b.url && a.interval_seconds === b.interval_seconds && a.timeout_ms === b.timeout_ms && a.retention_days === b.retention_days &&
  a.private_targets_denied === b.private_targets_denied;

/** The endpoint id at the front of a check id (`<endpoint_id>:<kind>:<region>`). */
const endpointOfCheck = (checkId: string): number => Number(checkId.slice(0, checkId.indexOf(':')));

/**
 * Endpoints read and placed (or checks sent) between two yields to the event loop. A pass over 100,000 endpoints (a
 * restart with every agent reconnecting) would otherwise hold the loop that also serves REST, gRPC
 * and the event streams for seconds; a slice this size takes a few milliseconds. Counted in work,
 * not time, so the engine behaves the same on a fast or a loaded machine.
 */
export const PLACEMENT_SLICE = 1_000;
/** Endpoints read per query for a batch's late results (the ids travel as one JSON text). */
const LATE_READ_CHUNK = 500;
const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

export function createAssignmentEngine(deps: {
  endpoints: EndpointsRepo;
  catalog: CatalogRepo;
  /** Agents whose lease is live right now, by region. */
  liveAgents(): Map<string, Set<string>>;
  logger: Logger;
  /** After a control-plane start, snapshots wait this long after the first agent's watch so reconnecting
   *  agents are all counted before ownership is decided (they keep checking on their saved snapshot meanwhile). */
  startupGraceMs?: number;
  /** The engine registers its own metrics here (checks owned per agent). */
  metrics?: Registry;
  /** ALLOW_PRIVATE_TARGETS=0: every assignment tells its agent to refuse private addresses. */
  privateTargetsDenied?: boolean;
  /** DNS_RESOLVERS: with privateTargetsDenied, DNS checks that name no resolver ask these. */
  defaultResolvers?: string[];
  /** Results an agent dated up to this long after it lost a check still count as its (a check in
   *  flight at the handover, clock skew); the same margin applies after its first snapshot from a
   *  restarted control plane. */
  releaseGraceMs?: number;
  /** How long the engine remembers which checks an agent held: a buffer delivered later than this
   *  after a handover (an agent cut off for hours) has those results refused as not assigned. */
  releaseMemoryMs?: number;
  /** Where the engine keeps which agent each check was last given to, across restarts. */
  held?: {
    load(): Map<string, Set<string>>;
    change(agentId: string, given: Iterable<string>, taken: Iterable<string>): void;
    replace(agentId: string, ids: Set<string>): void;
    forget(agentId: string): void;
  };
  now?: () => number;
}) {
  const log = deps.logger.child({ component: 'assignments' });
  const now = deps.now ?? Date.now;
  const watchers = new Map<string, WatcherState>();
  let scheduled = false;
  const pendingEndpoints = new Set<number>();
  /** Live agents per region at the last tick ("a,b,c"), to recompute only regions whose set changed. */
  let lastLive = new Map<string, string>();
  /** Regions whose watchers or live agents changed: only their checks are placed again. */
  const pendingRegions = new Set<string>();
  /** Checks whose owner was computed (snapshots and recomputes), for the metric and tests. */
  let placedTotal = 0;
  const startedAt = now();
  // Counted from the first watch, not from the engine's creation: a start that takes longer than
  // the grace (migrations, a loaded machine) left none for the agents, and each one that came back
  // a little later cost another pass over every endpoint.
  let graceUntil: number | null = null;
  const releaseGraceMs = deps.releaseGraceMs ?? 30_000;
  const releaseMemoryMs = Math.max(releaseGraceMs, deps.releaseMemoryMs ?? RELEASE_MEMORY_MS);
  // After a restart an agent applies its first snapshot here only once it has read it: a busy agent
  // (a long backlog to send, a loaded machine) keeps running its saved one a little longer, so its
  // former checks count up to this long after that snapshot (still only checks it held before).
  const restartGraceMs = Math.max(releaseGraceMs, 30_000);
  let prunedAt = startedAt;
  let graceTimer: NodeJS.Timeout | null = null;
  /** Checks each agent held until recently: agent → check id → (assignment, when it was released). */
  const released = new Map<string, Map<string, { a: Assignment; at: number }>>();
  /** Checks of endpoints read for late results (one endpoint at a time), read again after a second. */
  let lateChecks = { at: 0, primary: null as string | null, byEndpoint: new Map<number, Assignment[]>() };
  /** The agents each region's checks were last placed among: a pass for a region whose set is the same changes nothing. */
  const placedAmong = new Map<string, string>();
  /** Watchers waiting for their snapshot: all served by the next pass, with one scan. */
  const snapshotQueue = new Set<WatcherState>();
  /** A pass (placement over a scan) is running across yields: other work waits for its end. */
  let passing = false;
  let closed = false;
  /** When each agent got its first snapshot from this process. */
  const firstSnapshotAt = new Map<string, number>();
  /** check id → the agents that held it by their own account when the previous process stopped (persisted). */
  const heldAtStart = deps.held?.load() ?? new Map<string, Set<string>>();

  const primaryKey = (): string | null => {
    const primaryRegion = deps.catalog.primaryRegion();
    return primaryRegion ? regionKey(primaryRegion) : null;
  };
  const denied = deps.privateTargetsDenied ?? false;
  const resolvers = deps.defaultResolvers ?? [];

  /** Only agents with an open watch can receive work; a live lease without a stream owns nothing. */
  function candidatesByRegion(): Map<string, string[]> {
    const candidates = new Map<string, string[]>();
    for (const [region, ids] of deps.liveAgents()) {
      const list = [...ids].filter((id) => watchers.has(id)).sort();
      if (list.length) candidates.set(region, list);
    }
    return candidates;
  }

  function placeChecks(list: Iterable<MonitoredEndpoint>, out: Map<string, Map<string, Assignment>>, region?: string): void {
    const primary = primaryKey();
    const candidates = candidatesByRegion();
    for (const e of list) {
      for (const a of checksForEndpoint(e, primary, denied, resolvers)) {
        if (region !== undefined && a.region !== region) continue;
        placedTotal++;
        let agents = candidates.get(a.region);
        // a kind that needs a capability goes only to the agents that have it (browser: a Chromium)
        if (agents && CHECK_KIND_TABLE[a.kind as AssignedKind]?.capability === 'browser_checks') agents = agents.filter((id) => watchers.get(id)?.browserChecks === true);
        if (!agents?.length) continue;
        const owner = ownerOf(a.check_id, agents);
        if (owner) out.get(owner)!.set(a.check_id, a);
      }
    }
  }

  /**
   * What each watcher of `regions` (all when null) should hold, placed in slices that yield to the
   * event loop. Owners are chosen among the watchers at the start; a watcher that comes or goes
   * meanwhile queues another pass, which corrects the region.
   */
  async function desiredInSlices(regions: Set<string> | null): Promise<Map<string, Map<string, Assignment>>> {
    const out = new Map<string, Map<string, Assignment>>();
    for (const [id, w] of watchers) if (!regions || regions.has(w.region)) out.set(id, new Map());
    const primary = primaryKey();
    const candidates = candidatesByRegion();
    const pickers = new Map([...candidates].map(([region, agents]) => [region, ownerPicker(agents)]));
    // A kind that needs a capability goes only to the agents that have it (browser: a Chromium).
    const browserPickers = new Map([...candidates].map(([region, agents]) => [region, ownerPicker(agents.filter((id) => watchers.get(id)?.browserChecks === true))]));
    // Read a page at a time (by url_id): reading 100,000 rows at once held the loop for seconds on a busy machine.
    for (let afterId = 0; ;) {
      const page = deps.endpoints.listMonitored({ afterId, limit: PLACEMENT_SLICE });
      for (const e of page) {
        if (e.url_id <= afterId) continue; // a source that ignores the page gives every row every time
        for (const a of checksForEndpoint(e, primary, denied, resolvers)) {
          if (regions && !regions.has(a.region)) continue;
          placedTotal++;
          const needsBrowser = CHECK_KIND_TABLE[a.kind as AssignedKind]?.capability === 'browser_checks';
          const owner = (needsBrowser ? browserPickers : pickers).get(a.region)?.(a.check_id);
          if (owner) out.get(owner)?.set(a.check_id, a);
        }
      }
      if (page.length < PLACEMENT_SLICE || page[page.length - 1].url_id <= afterId) break;
      afterId = page[page.length - 1].url_id;
      await yieldToLoop();
      if (closed) break;
    }
    return out;
  }

  /** A watcher's first answer: everything it holds now; persisted as what it holds. */
  function sendSnapshot(state: WatcherState, mine: Map<string, Assignment>): void {
    state.pending = false;
    state.current = mine;
    for (const id of mine.keys()) released.get(state.agentId)?.delete(id);
    if (!firstSnapshotAt.has(state.agentId)) firstSnapshotAt.set(state.agentId, now());
    deps.held?.replace(state.agentId, new Set(mine.keys()));
    state.send({ version: state.version, snapshot: { assignments: [...mine.values()] } });
    log.info({ agentId: state.agentId, region: state.region, checks: mine.size }, 'agent watching');
  }

  /**
   * One placement pass for everything queued: watchers waiting for a snapshot, regions whose
   * watchers or live agents changed, or everything. One scan however many agents reconnect at once
   * (a restart brings them all back within the start-up grace); only the regions involved move.
   */
  async function pass(): Promise<void> {
    const full = fullPending;
    fullPending = false;
    const queued = [...snapshotQueue];
    snapshotQueue.clear();
    // A lease renewed or lapsed without a watcher coming or going leaves the agents a region's checks
    // are placed among as they were: such a region is skipped (a restart's heartbeats asked for a
    // pass over every check each time an agent's lease came back).
    const candidates = candidatesByRegion();
    const among = (region: string) => (candidates.get(region) ?? []).join(',');
    const queuedRegions = new Set(queued.map((w) => w.region));
    const regions = full ? null : new Set([...queuedRegions, ...[...pendingRegions].filter((r) => among(r) !== placedAmong.get(r))]);
    pendingRegions.clear();
    if (regions?.size === 0) return;
    for (const r of regions ?? new Set([...candidates.keys(), ...placedAmong.keys()])) placedAmong.set(r, among(r));
    if (full) pendingEndpoints.clear();
    // Heartbeats inside the start-up grace change the live sets while every watcher still waits: nobody to tell.
    if (queued.length === 0 && ![...watchers.values()].some((w) => !w.pending && (!regions || regions.has(w.region)))) return;
    const desired = await desiredInSlices(regions);
    let work = 0;
    for (const w of queued) {
      if (closed) return;
      if (watchers.get(w.agentId) !== w) continue;
      const mine = desired.get(w.agentId) ?? new Map<string, Assignment>();
      sendSnapshot(w, mine);
      work += mine.size;
      if (work >= PLACEMENT_SLICE) {
        work = 0;
        await yieldToLoop();
      }
    }
    // The other watchers of those regions lose what the new ones now own (or gain a leaver's).
    const served = new Set(queued);
    for (const w of watchers.values()) {
      if (w.pending || served.has(w) || !desired.has(w.agentId)) continue;
      const scope = regions ? (checkId: string) => regions.has(w.current.get(checkId)?.region ?? '') : undefined;
      sendDiff(w, desired.get(w.agentId)!, scope);
    }
  }

  /** Remembers what an agent stops holding, so its in-flight results are still accepted a while. */
  function release(agentId: string, list: Iterable<Assignment>): void {
    let m = released.get(agentId);
    if (!m) released.set(agentId, (m = new Map<string, { a: Assignment; at: number }>()));
    const t = now();
    for (const a of list) m.set(a.check_id, { a, at: t });
  }

  /** Sends one watcher the difference between what it holds and `want` (only among `scope` when given). */
  function sendDiff(w: WatcherState, want: Map<string, Assignment>, scope?: (checkId: string) => boolean): void {
    const upserts: Assignment[] = [];
    const removed: Assignment[] = [];
    for (const [id, a] of want) {
      const cur = w.current.get(id);
      if (!cur || !sameAssignment(cur, a)) upserts.push(a);
    }
    for (const [id, a] of w.current) if ((!scope || scope(id)) && !want.has(id)) removed.push(a);
    if (upserts.length === 0 && removed.length === 0) return;
    for (const a of removed) w.current.delete(a.check_id);
    for (const a of upserts) {
      w.current.set(a.check_id, a);
      released.get(w.agentId)?.delete(a.check_id);
    }
    release(w.agentId, removed);
    deps.held?.change(w.agentId, upserts.map((a) => a.check_id), removed.map((a) => a.check_id));
    if (now() - prunedAt > 60_000) pruneReleased();
    w.version += 1;
    log.debug({ agentId: w.agentId, version: w.version, upserts: upserts.length, removed: removed.length }, 'assignment delta');
    w.send({ version: w.version, delta: { upserts, removed_check_ids: removed.map((a) => a.check_id) } });
  }

  async function recompute(): Promise<void> {
    scheduled = false;
    if (passing || closed) return; // the running pass schedules what arrived meanwhile
    if (watchers.size === 0) {
      pendingEndpoints.clear();
      return;
    }
    if (fullPending || pendingRegions.size > 0 || snapshotQueue.size > 0) {
      passing = true;
      try {
        await pass();
      } finally {
        passing = false;
      }
      if (fullPending || pendingRegions.size > 0 || snapshotQueue.size > 0 || pendingEndpoints.size > 0) schedule();
      return;
    }
    if (pendingEndpoints.size === 0) return;
    // Endpoint edits: only those endpoints' checks are computed and sent.
    const ids = new Set(pendingEndpoints);
    pendingEndpoints.clear();
    const out = new Map<string, Map<string, Assignment>>();
    for (const id of watchers.keys()) out.set(id, new Map());
    placeChecks([...ids].map((id) => deps.endpoints.monitoredById(id)).filter((e) => e !== undefined), out);
    const inScope = (checkId: string) => ids.has(endpointOfCheck(checkId));
    for (const w of watchers.values()) if (!w.pending) sendDiff(w, out.get(w.agentId)!, inScope);
  }
  let fullPending = false;

  const schedule = (): void => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(() => {
      recompute().catch((err: unknown) => log.error({ err }, 'assignment placement failed'));
    });
  };

  const engine = {
    /** Something beyond one endpoint changed (agents, plans, regions): a full recompute on the next tick. */
    changed(): void {
      fullPending = true;
      schedule();
    },

    /** A region's watchers or live agents changed: only its checks are placed again, on the next tick. */
    regionChanged(region: string): void {
      pendingRegions.add(region);
      schedule();
    },

    /** One endpoint was created, edited, toggled or deleted: only its checks are recomputed. */
    endpointChanged(endpointId: number): void {
      pendingEndpoints.add(endpointId);
      schedule();
    },

    /**
     * The assignment behind a result an agent sent, dated `tsMs` by the agent: a check it holds
     * now, or held when it made the result (give or take the release grace), however late the
     * result arrives: an agent cut off from the control plane keeps checking and delivers its
     * buffer when it is back, after its checks may have moved or been switched off.
     * An agent that registered before this control plane started may have run on its saved
     * snapshot while the control plane was away: for results it dated before its first snapshot
     * here (plus the grace), the checks it held when the previous process stopped (persisted)
     * count, and only those: never its region's other checks. An agent that never watched holds
     * nothing. Null: the agent has no business reporting it.
     */
    assignedTo(this: void, agentId: string, region: string, checkId: string, registeredAt = Number.POSITIVE_INFINITY, tsMs = Number.NaN): Assignment | null {
      const held = watchers.get(agentId)?.current.get(checkId);
      if (held) return held;
      const t = now();
      const r = released.get(agentId)?.get(checkId);
      if (r && (tsMs <= r.at + releaseGraceMs || t - r.at <= releaseGraceMs)) return r.a;
      const first = firstSnapshotAt.get(agentId);
      if (registeredAt < startedAt && heldAtStart.get(checkId)?.has(agentId) === true && tsMs <= (first ?? t) + restartGraceMs && t - (first ?? startedAt) <= releaseMemoryMs) {
        // Only the named check's endpoint is read (paused ones too: the backlog was made while it
        // was monitored, and may arrive after a switch-off): after a restart every agent's backlog
        // arrives here at once, and a scan of every endpoint per second of it held the loop.
        if (t - lateChecks.at > 1000) lateChecks = { at: t, primary: primaryKey(), byEndpoint: new Map() };
        const endpointId = endpointOfCheck(checkId);
        let list = lateChecks.byEndpoint.get(endpointId);
        if (!list) {
          const e = Number.isSafeInteger(endpointId) ? deps.endpoints.withPausedById(endpointId) : undefined;
          list = e ? checksForEndpoint(e, lateChecks.primary, denied, resolvers) : [];
          lateChecks.byEndpoint.set(endpointId, list);
        }
        const a = list.find((x) => x.check_id === checkId);
        if (a && a.region === region) return a;
      }
      return null;
    },

    /**
     * Reads at once the endpoints that assignedTo would read one at a time for these results of an
     * agent: after a restart every agent's backlog arrives together, dated before its first
     * snapshot here, and a query per endpoint per batch held the loop for tens of milliseconds.
     */
    prepareBatch(this: void, agentId: string, registeredAt = Number.POSITIVE_INFINITY, checkIds: Iterable<string>): void {
      if (!(registeredAt < startedAt) || heldAtStart.size === 0) return;
      const current = watchers.get(agentId)?.current;
      const t = now();
      if (t - lateChecks.at > 1000) lateChecks = { at: t, primary: primaryKey(), byEndpoint: new Map() };
      const ids = new Set<number>();
      for (const checkId of checkIds) {
        if (current?.has(checkId) || heldAtStart.get(checkId)?.has(agentId) !== true) continue;
        const endpointId = endpointOfCheck(checkId);
        if (Number.isSafeInteger(endpointId) && !lateChecks.byEndpoint.has(endpointId)) ids.add(endpointId);
      }
      const list = [...ids];
      for (let i = 0; i < list.length; i += LATE_READ_CHUNK) {
        const chunk = list.slice(i, i + LATE_READ_CHUNK);
        const found = new Map(deps.endpoints.withPausedByIds(chunk).map((e) => [e.url_id, e]));
        for (const id of chunk) {
          const e = found.get(id);
          lateChecks.byEndpoint.set(id, e ? checksForEndpoint(e, lateChecks.primary, denied, resolvers) : []);
        }
      }
    },

    /** Registers a watcher and sends it its snapshot; others lose the checks it now owns. */
    watch(w: AssignmentWatcher): () => void {
      // Pending until its snapshot: no deltas before it. Only this region's checks move when it is sent.
      const state: WatcherState = { ...w, version: Date.now(), current: new Map(), pending: true };
      watchers.set(w.agentId, state);
      graceUntil ??= Date.now() + (deps.startupGraceMs ?? 0);
      const wait = graceUntil - Date.now();
      if (wait > 0) {
        graceTimer ??= setTimeout(() => {
          for (const s of watchers.values()) if (s.pending) snapshotQueue.add(s);
          schedule();
        }, wait);
      } else {
        snapshotQueue.add(state);
        schedule();
      }
      return () => {
        if (watchers.get(w.agentId) === state) {
          watchers.delete(w.agentId);
          release(w.agentId, state.current.values());
          pruneReleased();
          log.info({ agentId: w.agentId }, 'agent stopped watching');
          engine.regionChanged(w.region);
        }
      };
    },

    /** Called periodically: a lapsed lease moves its checks to the region's other agents. */
    tick(): void {
      const live = new Map([...deps.liveAgents()].map(([r, s]) => [r, [...s].sort().join(',')]));
      for (const r of new Set([...live.keys(), ...lastLive.keys()])) if (live.get(r) !== lastLive.get(r)) engine.regionChanged(r);
      lastLive = live;
    },

    /** Some watcher still waits for its first snapshot (inside the start-up grace, or until the next pass). */
    snapshotsPending(this: void): boolean {
      for (const w of watchers.values()) if (w.pending) return true;
      return false;
    },

    /** Checks whose owner was computed since start (snapshots and recomputes). */
    placedChecks: () => placedTotal,

    /** A revoked agent holds nothing any more, not even recently. */
    forget(agentId: string): void {
      released.delete(agentId);
      for (const agents of heldAtStart.values()) agents.delete(agentId);
      deps.held?.forget(agentId);
    },

    ownedCount: (agentId: string) => watchers.get(agentId)?.current.size ?? 0,
    close(): void {
      closed = true;
      if (graceTimer) clearTimeout(graceTimer);
    },
    watching: () => [...watchers.keys()],
  };
  function pruneReleased(): void {
    prunedAt = now();
    const cutoff = prunedAt - releaseMemoryMs;
    for (const [agentId, m] of released) {
      for (const [id, r] of m) if (r.at < cutoff) m.delete(id);
      if (m.size === 0) released.delete(agentId);
    }
  }

  if (deps.metrics) {
    new Gauge({
      name: 'upfleet_agent_checks_owned',
      help: 'Checks each watching agent owns',
      labelNames: ['agent_id'],
      registers: [deps.metrics],
      collect() {
        this.reset();
        for (const id of engine.watching()) this.set({ agent_id: id }, engine.ownedCount(id));
      },
    });
  }
  return engine;
}
export type AssignmentEngine = ReturnType<typeof createAssignmentEngine>;

/**
 * The engine follows the change hub: one endpoint's change recomputes that endpoint's checks, a
 * plan or catalogue change recomputes every check.
 */
export function followChanges(engine: Pick<AssignmentEngine, 'changed' | 'endpointChanged'>, hub: ChangeHub): void {
  hub.endpoints.subscribe({ changed: (id) => (id === null ? engine.changed() : engine.endpointChanged(id)) });
  hub.plans.subscribe({ changed: () => engine.changed() });
}
