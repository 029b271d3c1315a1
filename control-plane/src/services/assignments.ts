// Who checks what: every monitoring-enabled endpoint x its features x its regions, each check owned
// by exactly one live agent of its region, chosen by rendezvous hashing. Watchers get a snapshot,
// then deltas whenever endpoints, plans or the set of live agents change.
import { Gauge, type Registry } from 'prom-client';
import type { Assignment, AssignmentUpdate } from '@upfleet/proto';
import type { Logger } from '../logger';
import { buildCheckId, checkTimeoutMs, type AssignedKind } from '../checks';
import { regionKey, type CatalogRepo } from '../store/catalog-repo';
import type { EndpointsRepo, MonitoredEndpoint } from '../store/endpoints-repo';
import { fnv1a32Mixed } from '@upfleet/proto/hash';

export interface AssignmentWatcher {
  agentId: string;
  region: string;
  send(update: AssignmentUpdate): void;
}

interface WatcherState extends AssignmentWatcher {
  version: number;
  current: Map<string, Assignment>;
  /** Still inside the start-up grace: no snapshot sent yet, no deltas either. */
  pending?: boolean;
  flush?: () => void;
}

/**
 * The checks one endpoint needs: response_code and cert_expiry only from the primary region.
 * Here the SQLite row's `url_id` becomes the proto's `endpoint_id` (see docs/architecture.md).
 */
export function checksForEndpoint(e: MonitoredEndpoint, primary: string | null): Assignment[] {
  const out: Assignment[] = [];
  const endpointId = e.url_id;
  const add = (kind: AssignedKind, region: string) => {
    const interval = e.check_frequency_seconds;
    out.push({
      check_id: buildCheckId(endpointId, kind, region),
      endpoint_id: endpointId,
      kind,
      url: e.url,
      interval_seconds: interval,
      timeout_ms: checkTimeoutMs(interval),
      region,
      retention_days: e.retention_days,
    });
  };
  const httpRegions = new Set<string>();
  if (e.response_time) e.regions.forEach((r) => httpRegions.add(r));
  if (e.response_code && primary) httpRegions.add(primary);
  httpRegions.forEach((r) => add('CHECK_KIND_HTTP', r));
  if (e.cert_expiry && primary && e.url.startsWith('https:')) add('CHECK_KIND_TLS', primary);
  if (e.ping_host) e.regions.forEach((r) => add('CHECK_KIND_PING', r));
  return out;
}

/** Rendezvous score: FNV-1a with a finaliser; cheap enough for 100k checks x agents. */
function score(agentId: string, checkId: string): number {
  return fnv1a32Mixed(`${agentId}|${checkId}`);
}

export function ownerOf(checkId: string, agents: string[]): string | null {
  let best: string | null = null;
  let bestScore = -1;
  for (const a of agents) {
    const s = score(a, checkId);
    if (s > bestScore || (s === bestScore && best !== null && a < best)) {
      best = a;
      bestScore = s;
    }
  }
  return best;
}

const sameAssignment = (a: Assignment, b: Assignment) =>
  a.url === b.url && a.interval_seconds === b.interval_seconds && a.timeout_ms === b.timeout_ms && a.retention_days === b.retention_days;

export function createAssignmentEngine(deps: {
  endpoints: EndpointsRepo;
  catalog: CatalogRepo;
  /** Agents whose lease is live right now, by region. */
  liveAgents(): Map<string, Set<string>>;
  logger: Logger;
  /** After a control-plane start, snapshots wait this long so reconnecting agents are all counted
   *  before ownership is decided (they keep checking on their saved snapshot meanwhile). */
  startupGraceMs?: number;
  /** The engine registers its own metrics here (checks owned per agent). */
  metrics?: Registry;
}) {
  const log = deps.logger.child({ component: 'assignments' });
  const watchers = new Map<string, WatcherState>();
  let scheduled = false;
  let lastLive = '';
  const graceUntil = Date.now() + (deps.startupGraceMs ?? 0);
  let graceTimer: NodeJS.Timeout | null = null;

  function desiredByAgent(): Map<string, Map<string, Assignment>> {
    const primaryRegion = deps.catalog.primaryRegion();
    const primary = primaryRegion ? regionKey(primaryRegion) : null;
    const live = deps.liveAgents();
    // Only agents with an open watch can receive work; a live lease without a stream owns nothing.
    const candidates = new Map<string, string[]>();
    for (const [region, ids] of live) {
      const list = [...ids].filter((id) => watchers.has(id)).sort();
      if (list.length) candidates.set(region, list);
    }
    const out = new Map<string, Map<string, Assignment>>();
    for (const id of watchers.keys()) out.set(id, new Map());
    for (const e of deps.endpoints.listMonitored()) {
      for (const a of checksForEndpoint(e, primary)) {
        const agents = candidates.get(a.region);
        if (!agents) continue;
        const owner = ownerOf(a.check_id, agents);
        if (owner) out.get(owner)!.set(a.check_id, a);
      }
    }
    return out;
  }

  function recompute(): void {
    scheduled = false;
    if (watchers.size === 0) return;
    const desired = desiredByAgent();
    for (const w of watchers.values()) {
      if (w.pending) continue;
      const want = desired.get(w.agentId) ?? new Map();
      const upserts: Assignment[] = [];
      const removed: string[] = [];
      for (const [id, a] of want) {
        const cur = w.current.get(id);
        if (!cur || !sameAssignment(cur, a)) upserts.push(a);
      }
      for (const id of w.current.keys()) if (!want.has(id)) removed.push(id);
      if (upserts.length === 0 && removed.length === 0) continue;
      w.current = want;
      w.version += 1;
      log.debug({ agentId: w.agentId, version: w.version, upserts: upserts.length, removed: removed.length }, 'assignment delta');
      w.send({ version: w.version, delta: { upserts, removed_check_ids: removed } });
    }
  }

  const engine = {
    /** Coalesces bursts of changes into one recompute on the next tick. */
    changed(): void {
      if (scheduled) return;
      scheduled = true;
      setImmediate(recompute);
    },

    /** Registers a watcher and sends it its snapshot; others lose the checks it now owns. */
    watch(w: AssignmentWatcher): () => void {
      const state: WatcherState = { ...w, version: Date.now(), current: new Map() };
      watchers.set(w.agentId, state);
      const sendSnapshot = () => {
        if (watchers.get(w.agentId) !== state) return;
        const mine = desiredByAgent().get(w.agentId) ?? new Map<string, Assignment>();
        state.current = mine;
        w.send({ version: state.version, snapshot: { assignments: [...mine.values()] } });
        log.info({ agentId: w.agentId, region: w.region, checks: mine.size }, 'agent watching');
        engine.changed();
      };
      const wait = graceUntil - Date.now();
      if (wait > 0) {
        state.pending = true;
        graceTimer ??= setTimeout(() => {
          for (const s of watchers.values()) s.pending = false;
          for (const s of [...watchers.values()]) s.flush?.();
        }, wait);
        state.flush = sendSnapshot;
      } else sendSnapshot();
      return () => {
        if (watchers.get(w.agentId) === state) {
          watchers.delete(w.agentId);
          log.info({ agentId: w.agentId }, 'agent stopped watching');
          engine.changed();
        }
      };
    },

    /** Called periodically: a lapsed lease moves its checks to the region's other agents. */
    tick(): void {
      const key = JSON.stringify([...deps.liveAgents()].map(([r, s]) => [r, [...s].sort()]).sort());
      if (key !== lastLive) {
        lastLive = key;
        engine.changed();
      }
    },

    ownedCount: (agentId: string) => watchers.get(agentId)?.current.size ?? 0,
    close(): void {
      if (graceTimer) clearTimeout(graceTimer);
    },
    watching: () => [...watchers.keys()],
  };
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
