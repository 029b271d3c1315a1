// Decides incidents from result batches and keeps them right after edits. This file runs a batch:
// results in time order, each counted into its (endpoint, condition, region) state
// (state-machine.ts), conditions re-aggregated when a region flips, and every change written in
// one transaction with its incident and outbox rows (incidents.ts). What it knows per endpoint
// lives in endpoint-state.ts (SQLite mirrored in memory: the steady state, up and passing, costs
// map lookups and no writes). Edits, disabled endpoints and removed thresholds resolve silently.
import type { CheckResult } from '@upfleet/proto';
import type { Logger } from '../logger';
import { DOWN, observe } from './conditions';
import { createEndpointCache, regionStateKey } from './endpoint-state';
import type { Escalator } from './escalation';
import { createIncidentBook, type IncidentHooks } from './incidents';
import type { AlertingRepo } from './repo';
import type { AlertEvent } from './types';
import { confirmRegion, createConditionDecider, type PendingWrites } from './state-machine';

export { CONFIRM_COUNT, FLAP_MAX_CHANGES, FLAP_SETTLE_MS, FLAP_WINDOW_MS } from './state-machine';

export interface EvaluatorDeps {
  repo: AlertingRepo;
  logger: Logger;
  /** 'EU-Germany' → 'EU - Germany'. */
  regionLabel(key: string): string;
  primaryRegion(): string | null;
  now?: () => number;
  /** Called after a transaction that queued deliveries has committed. */
  onQueued?(): void;
  /** Each incident opened or resolved, with its owner, after its transaction committed (the user's event stream). */
  onIncidentEvent?(userId: number, event: AlertEvent): void;
  /** A result this returns true for is not evaluated (its endpoint was in maintenance when it was taken). */
  skipResult?(urlId: number, tsMs: number): boolean;
  incidentHooks?: IncidentHooks;
  /** Runs escalation policies and dependencies; absent: every enabled method hears each event at once. */
  escalator?: Escalator;
}

export function createAlertEvaluator(deps: EvaluatorDeps) {
  const { repo } = deps;
  const now = deps.now ?? Date.now;
  const log = deps.logger.child({ component: 'alert-evaluator' });
  const cache = createEndpointCache(deps);
  let announced: Array<[number, AlertEvent]> = [];
  const book = createIncidentBook(repo, log, (userId, event) => announced.push([userId, event]), deps.incidentHooks, deps.escalator);
  const decide = createConditionDecider(repo, cache, book);

  function evaluate(results: readonly CheckResult[]): { changed: number; queued: number } {
    const pending: PendingWrites = { ops: [], regions: new Map(), conditions: new Map(), touched: new Set() };
    const t = now();

    let inOrder = true;
    for (let i = 1; i < results.length && inOrder; i++) inOrder = Number(results[i - 1].ts_ms) <= Number(results[i].ts_ms);
    const sorted = inOrder ? results : [...results].sort((a, b) => Number(a.ts_ms) - Number(b.ts_ms));
    cache.prefetch(new Set(sorted.map((r) => Number(r.endpoint_id))));
    for (const r of sorted) {
      const urlId = Number(r.endpoint_id);
      const ctx = cache.context(urlId);
      if (!ctx) continue;
      // In maintenance: checked, but no incident opens and an open one stays open (nothing is counted).
      if (deps.skipResult?.(urlId, Number(r.ts_ms))) continue;
      const observations = observe(r, ctx.thresholds, cache.labelOf(r.region));
      if (observations.length === 0) continue;
      const st = cache.stateOf(urlId);
      const ts = Number(r.ts_ms);
      for (const o of observations) {
        const key = regionStateKey(o.condition, r.region);
        let rs = st.regions.get(key);
        if (!rs) {
          rs = { url_id: urlId, condition: o.condition, region: r.region, fails: 0, passes: 0, down: 0, last_ts: 0, cause: '' };
          st.regions.set(key, rs);
        }
        if (ts <= rs.last_ts) continue; // a re-sent batch or a late result: already counted
        rs.last_ts = ts;
        const { changed, flipped } = confirmRegion(rs, o.failing, o.cause);
        if (changed) {
          pending.regions.set(`${urlId}|${key}`, rs);
          pending.touched.add(urlId);
        }
        const cs = st.conditions.get(o.condition);
        if (flipped || cs?.flapping) decide(ctx, st, o.condition, t, pending);
      }
    }
    const { ops } = pending;
    if (pending.regions.size === 0 && pending.conditions.size === 0 && ops.length === 0) return { changed: 0, queued: 0 };
    let queued = 0;
    announced = [];
    try {
      repo.transaction(() => {
        for (const rs of pending.regions.values()) repo.saveRegionState(rs);
        for (const c of pending.conditions.values()) repo.saveCondition(c);
        for (const op of ops) queued += op();
      });
    } catch (err) {
      // Memory may now be ahead of SQLite: reload these endpoints from SQLite next time.
      for (const id of pending.touched) cache.forgetState(id);
      announced = [];
      throw err;
    }
    for (const [userId, event] of announced) deps.onIncidentEvent?.(userId, event);
    announced = [];
    if (queued > 0) deps.onQueued?.();
    return { changed: ops.length, queued };
  }

  /** After an edit (regions, features): a condition no longer down over the current regions
   *  resolves without notifying, like a disabled endpoint's. */
  function reconcile(urlId: number) {
    const ctx = cache.context(urlId);
    if (!ctx) return;
    const st = cache.stateOf(urlId);
    const stale: string[] = [];
    for (const [condition, cs] of st.conditions) {
      if (!cs.down) continue;
      if (cache.coverage(ctx, st, condition).quorum) continue;
      cs.down = false;
      cs.flapping = false;
      cs.changes = [];
      stale.push(condition);
    }
    if (stale.length === 0) return;
    const t = now();
    repo.transaction(() => {
      for (const condition of stale) {
        repo.saveCondition({ url_id: urlId, condition, down: 0, changes: '[]', flapping: 0 });
        const open = repo.openIncident(urlId, condition);
        if (open && repo.resolveIncident(open.incident_id, t, true)) deps.incidentHooks?.resolved?.({ ...open, resolved_at: t });
      }
    });
  }

  /**
   * A heartbeat's verdict: down opens the endpoint's down incident at once (one source:
   * no confirmation count, no quorum), up resolves it. An open incident is never opened twice.
   */
  function pushed(urlId: number, down: boolean, cause: string, t: number): number {
    const ctx = cache.context(urlId);
    if (!ctx) return 0;
    let queued = 0;
    announced = [];
    repo.transaction(() => {
      queued = down ? book.open(ctx, DOWN, ['Push'], cause, false, t) : book.resolve(ctx, DOWN, t);
    });
    for (const [userId, event] of announced) deps.onIncidentEvent?.(userId, event);
    announced = [];
    if (queued > 0) deps.onQueued?.();
    return queued;
  }

  return {
    evaluate,
    pushed,
    /** Endpoint, threshold or plan changed: re-read contexts (states stay). */
    invalidate(urlId?: number) {
      cache.forgetContext(urlId);
      if (urlId !== undefined) reconcile(urlId);
    },
    /** Monitoring disabled or endpoint deleted: resolve its incidents without notifying, forget its state. */
    closeEndpoint(urlId: number) {
      const t = now();
      repo.transaction(() => {
        for (const i of repo.openIncidentsOf(urlId)) {
          if (repo.resolveIncident(i.incident_id, t, true)) deps.incidentHooks?.resolved?.({ ...i, resolved_at: t });
        }
        repo.forgetEndpoint(urlId);
      });
      cache.forgetState(urlId);
      cache.forgetContext(urlId);
    },
    /** Thresholds saved: conditions that no longer exist resolve silently and lose their state. */
    thresholdsChanged(urlId: number) {
      cache.forgetContext(urlId);
      const ctx = cache.context(urlId);
      const live = new Set([DOWN, ...(ctx?.thresholds.map((t) => t.condition) ?? [])]);
      const t = now();
      repo.transaction(() => {
        for (const i of repo.openIncidentsOf(urlId)) {
          if (!live.has(i.condition) && repo.resolveIncident(i.incident_id, t, true)) deps.incidentHooks?.resolved?.({ ...i, resolved_at: t });
        }
        for (const c of repo.conditions(urlId)) if (!live.has(c.condition)) repo.forgetCondition(urlId, c.condition);
        for (const r of repo.regionStates(urlId)) if (!live.has(r.condition)) repo.forgetCondition(urlId, r.condition);
      });
      cache.forgetState(urlId);
    },
  };
}
export type AlertEvaluator = ReturnType<typeof createAlertEvaluator>;
