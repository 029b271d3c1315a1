// Decides incidents from result batches. State per (endpoint, condition, region) lives in SQLite and
// is mirrored in memory, so the steady state (up and passing) costs map lookups and no writes.
// A region is confirmed down after 2 consecutive failures and up after 2 passes; an endpoint is
// down in a condition when at least half of the regions the condition covers are down.
// Each change is written in one transaction with its incident and outbox rows.
import type { CheckResult } from '@upfleet/proto';
import type { Feature, ThresholdOperator } from '@upfleet/proto/rest';
import type { Logger } from '../logger';
import { kindName, type KindName } from '../checks';
import { checksForEndpoint } from '../services/check-placement';
import { DOWN, kindOfCondition, observe, thresholdCondition, type ThresholdRule } from './conditions';
import type { AlertingRepo, ConditionRow, EndpointAlertRow, IncidentRow, RegionStateRow } from './repo';
import type { AlertEvent, AlertEventType, IncidentView } from './types';

export const CONFIRM_COUNT = 2;
export const FLAP_WINDOW_MS = 30 * 60_000;
/** More state changes than this within the window make a condition flap. */
export const FLAP_MAX_CHANGES = 4;
/** A flapping condition has settled when its state has held this long. */
export const FLAP_SETTLE_MS = 15 * 60_000;

export interface EvaluatorDeps {
  repo: AlertingRepo;
  logger: Logger;
  /** 'EU-Germany' → 'EU - Germany'. */
  regionLabel(key: string): string;
  primaryRegion(): string | null;
  now?: () => number;
  /** Called after a transaction that queued deliveries has committed. */
  onQueued?(): void;
}

interface Context {
  row: EndpointAlertRow;
  regions: Record<KindName, string[]>;
  thresholds: ThresholdRule[];
}

interface ConditionState {
  down: boolean;
  changes: number[];
  flapping: boolean;
}

interface EndpointState {
  regions: Map<string, RegionStateRow>;
  conditions: Map<string, ConditionState>;
}

const regionStateKey = (condition: string, region: string) => `${condition}|${region}`;

export function createAlertEvaluator(deps: EvaluatorDeps) {
  const { repo } = deps;
  const now = deps.now ?? Date.now;
  const log = deps.logger.child({ component: 'alert-evaluator' });
  const contexts = new Map<number, Context | null>();
  const states = new Map<number, EndpointState>();
  // Region labels are asked for per result: cached (cleared with the contexts).
  const labels = new Map<string, string>();
  const labelOf = (key: string) => {
    let l = labels.get(key);
    if (l === undefined) labels.set(key, (l = deps.regionLabel(key)));
    return l;
  };

  function context(urlId: number): Context | null {
    let ctx = contexts.get(urlId);
    if (ctx !== undefined) return ctx;
    const row = repo.endpoint(urlId);
    ctx = null;
    if (row) {
      const monitored = {
        url_id: row.url_id, url: row.url, regions: JSON.parse(row.regions) as string[], ping_host: row.ping_host === 1,
        cert_expiry: row.cert_expiry === 1, response_code: row.response_code === 1, response_time: row.response_time === 1,
        check_frequency_seconds: row.check_frequency_seconds, retention_days: row.retention_days,
      };
      const regions: Record<KindName, string[]> = { http: [], tls: [], ping: [] };
      for (const a of checksForEndpoint(monitored, deps.primaryRegion())) regions[kindName(a.kind)!].push(a.region);
      const thresholds = repo.thresholds(urlId).map((t) => ({
        condition: thresholdCondition(t.monitor_type, t.region),
        type: t.monitor_type as Feature,
        operator: t.threshold_operator as ThresholdOperator,
        value: t.threshold_value,
        region: t.region,
      }));
      ctx = { row, regions, thresholds };
    }
    contexts.set(urlId, ctx);
    return ctx;
  }

  function stateOf(urlId: number): EndpointState {
    let s = states.get(urlId);
    if (!s) {
      s = { regions: new Map(), conditions: new Map() };
      for (const r of repo.regionStates(urlId)) s.regions.set(regionStateKey(r.condition, r.region), r);
      for (const c of repo.conditions(urlId)) {
        s.conditions.set(c.condition, { down: c.down === 1, changes: JSON.parse(c.changes) as number[], flapping: c.flapping === 1 });
      }
      states.set(urlId, s);
    }
    return s;
  }

  function regionsOf(ctx: Context, condition: string): string[] {
    const rule = ctx.thresholds.find((t) => t.condition === condition);
    if (rule?.region) return [rule.region];
    return ctx.regions[kindOfCondition(condition)];
  }

  function incidentView(i: IncidentRow): IncidentView {
    return {
      id: i.incident_id, condition: i.condition, cause: i.cause, regions: JSON.parse(i.regions) as string[],
      opened_at: new Date(i.opened_at).toISOString(), resolved_at: i.resolved_at === null ? null : new Date(i.resolved_at).toISOString(),
      flapping: i.flapping === 1,
    };
  }

  /** Queues one outbox row per enabled alert method of the owner, in the caller's transaction. */
  function enqueue(ctx: Context, type: AlertEventType, incident: IncidentRow, at: number): number {
    const event: AlertEvent = {
      type, occurred_at: new Date(at).toISOString(), incident: incidentView(incident),
      endpoint: { id: ctx.row.url_id, name: ctx.row.name, url: ctx.row.url },
    };
    const methods = repo.enabledMethodIds(ctx.row.user_id);
    const tag = type === 'incident.opened' ? 'opened' : 'resolved';
    for (const m of methods) {
      repo.insertDelivery({ userId: ctx.row.user_id, methodId: m, incidentId: incident.incident_id, event, key: `inc${incident.incident_id}-${tag}-m${m}`, now: at });
    }
    return methods.length;
  }

  function evaluate(results: readonly CheckResult[]): { changed: number; queued: number } {
    const ops: Array<() => number> = [];
    const dirtyRegions = new Map<string, RegionStateRow>();
    const dirtyConditions = new Map<string, ConditionRow>();
    const touched = new Set<number>();
    const t = now();

    let inOrder = true;
    for (let i = 1; i < results.length && inOrder; i++) inOrder = Number(results[i - 1]!.ts_ms) <= Number(results[i]!.ts_ms);
    const sorted = inOrder ? results : [...results].sort((a, b) => Number(a.ts_ms) - Number(b.ts_ms));
    for (const r of sorted) {
      const urlId = Number(r.endpoint_id);
      const ctx = context(urlId);
      if (!ctx) continue;
      const observations = observe(r, ctx.thresholds, labelOf(r.region));
      if (observations.length === 0) continue;
      const st = stateOf(urlId);
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
        const { fails, passes, down } = rs;
        let flipped = false;
        if (o.failing) {
          rs.fails = Math.min(fails + 1, CONFIRM_COUNT);
          rs.passes = 0;
          if (!down) rs.cause = o.cause;
          if (rs.fails >= CONFIRM_COUNT && !down) {
            rs.down = 1;
            flipped = true;
          }
        } else {
          rs.fails = 0;
          // Passes only count towards recovery: an up region that passes changes nothing (no write).
          if (down) {
            rs.passes = Math.min(passes + 1, CONFIRM_COUNT);
            if (rs.passes >= CONFIRM_COUNT) {
              rs.down = 0;
              rs.passes = 0;
              flipped = true;
            }
          }
        }
        if (rs.fails !== fails || rs.passes !== passes || rs.down !== down) {
          dirtyRegions.set(`${urlId}|${key}`, rs);
          touched.add(urlId);
        }
        const cs = st.conditions.get(o.condition);
        if (flipped || cs?.flapping) decide(ctx, st, o.condition, t, ops, dirtyConditions, touched);
      }
    }
    if (dirtyRegions.size === 0 && dirtyConditions.size === 0 && ops.length === 0) return { changed: 0, queued: 0 };
    let queued = 0;
    try {
      repo.transaction(() => {
        for (const rs of dirtyRegions.values()) repo.saveRegionState(rs);
        for (const c of dirtyConditions.values()) repo.saveCondition(c);
        for (const op of ops) queued += op();
      });
    } catch (err) {
      // Memory may now be ahead of SQLite: reload these endpoints from SQLite next time.
      for (const id of touched) states.delete(id);
      throw err;
    }
    if (queued > 0) deps.onQueued?.();
    return { changed: ops.length, queued };
  }

  /** Re-aggregates one condition after a region flipped (or while it flaps) and queues what follows. */
  function decide(ctx: Context, st: EndpointState, condition: string, t: number, ops: Array<() => number>,
    dirty: Map<string, ConditionRow>, touched: Set<number>) {
    const urlId = ctx.row.url_id;
    const regions = regionsOf(ctx, condition);
    const downRegions = regions.filter((g) => st.regions.get(regionStateKey(condition, g))?.down === 1);
    const isDown = downRegions.length > 0 && downRegions.length * 2 >= regions.length;
    let cs = st.conditions.get(condition);
    if (!cs) {
      cs = { down: false, changes: [], flapping: false };
      st.conditions.set(condition, cs);
    }
    const downLabels = downRegions.map(labelOf);
    const cause = downRegions.map((g) => st.regions.get(regionStateKey(condition, g))!.cause).filter(Boolean).join('; ');
    const save = () => {
      dirty.set(`${urlId}|${condition}`, { url_id: urlId, condition, down: cs.down ? 1 : 0, changes: JSON.stringify(cs.changes), flapping: cs.flapping ? 1 : 0 });
      touched.add(urlId);
    };

    if (isDown !== cs.down) {
      cs.changes = [...cs.changes.filter((c) => c > t - FLAP_WINDOW_MS), t];
      cs.down = isDown;
      save();
      if (cs.flapping) return; // quiet until it settles
      if (cs.changes.length > FLAP_MAX_CHANGES) {
        cs.flapping = true;
        const flapCause = `flapping: changed state ${cs.changes.length} times in 30 minutes`;
        ops.push(() => {
          const open = repo.openIncident(urlId, condition);
          if (open) {
            repo.updateIncident(open.incident_id, open.regions, `${open.cause} (${flapCause})`, true);
            return 0;
          }
          return openIncident(ctx, condition, downLabels, `${cause} (${flapCause})`, true, t);
        });
        return;
      }
      ops.push(() => (isDown ? openIncident(ctx, condition, downLabels, cause, false, t) : resolveIncident(ctx, condition, t)));
      return;
    }
    if (cs.flapping) {
      const last = cs.changes[cs.changes.length - 1] ?? 0;
      if (t - last < FLAP_SETTLE_MS) return;
      cs.flapping = false;
      cs.changes = [];
      save();
      ops.push(() => {
        const open = repo.openIncident(urlId, condition);
        if (!isDown) return open ? resolveIncident(ctx, condition, t) : 0;
        if (open) {
          repo.updateIncident(open.incident_id, JSON.stringify(downLabels), cause, false);
          return 0;
        }
        return openIncident(ctx, condition, downLabels, cause, false, t);
      });
      return;
    }
    if (isDown) {
      // Still down; keep the incident's region list current without telling anyone again.
      ops.push(() => {
        const open = repo.openIncident(urlId, condition);
        if (open && open.regions !== JSON.stringify(downLabels) && !open.flapping) repo.updateIncident(open.incident_id, JSON.stringify(downLabels), open.cause, false);
        return 0;
      });
    }
  }

  /** After an edit (regions, features): a condition no longer down over the current regions
   *  resolves without notifying, like a disabled endpoint's. */
  function reconcile(urlId: number) {
    const ctx = context(urlId);
    if (!ctx) return;
    const st = stateOf(urlId);
    const stale: string[] = [];
    for (const [condition, cs] of st.conditions) {
      if (!cs.down) continue;
      const regions = regionsOf(ctx, condition);
      const down = regions.filter((g) => st.regions.get(regionStateKey(condition, g))?.down === 1).length;
      if (down > 0 && down * 2 >= regions.length) continue;
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
        if (open) repo.resolveIncident(open.incident_id, t, true);
      }
    });
  }

  function openIncident(ctx: Context, condition: string, regions: string[], cause: string, flapping: boolean, t: number): number {
    if (repo.openIncident(ctx.row.url_id, condition)) return 0;
    const row = { user_id: ctx.row.user_id, url_id: ctx.row.url_id, condition, regions: JSON.stringify(regions), cause, flapping: flapping ? 1 : 0, opened_at: t };
    const id = repo.insertIncident(row);
    log.info({ urlId: ctx.row.url_id, incidentId: id, condition, cause }, 'incident opened');
    return enqueue(ctx, 'incident.opened', { ...row, incident_id: id, resolved_at: null }, t);
  }

  function resolveIncident(ctx: Context, condition: string, t: number): number {
    const open = repo.openIncident(ctx.row.url_id, condition);
    if (!open || !repo.resolveIncident(open.incident_id, t, false)) return 0;
    log.info({ urlId: ctx.row.url_id, incidentId: open.incident_id, condition }, 'incident resolved');
    return enqueue(ctx, 'incident.resolved', { ...open, resolved_at: t }, t);
  }

  return {
    evaluate,
    /** Endpoint, threshold or plan changed: re-read contexts (states stay). */
    invalidate(urlId?: number) {
      if (urlId === undefined) {
        contexts.clear();
        labels.clear();
        return;
      }
      contexts.delete(urlId);
      reconcile(urlId);
    },
    /** Monitoring disabled or endpoint deleted: resolve its incidents without notifying, forget its state. */
    closeEndpoint(urlId: number) {
      const t = now();
      repo.transaction(() => {
        for (const i of repo.openIncidentsOf(urlId)) repo.resolveIncident(i.incident_id, t, true);
        repo.forgetEndpoint(urlId);
      });
      states.delete(urlId);
      contexts.delete(urlId);
    },
    /** Thresholds saved: conditions that no longer exist resolve silently and lose their state. */
    thresholdsChanged(urlId: number) {
      contexts.delete(urlId);
      const ctx = context(urlId);
      const live = new Set([DOWN, ...(ctx?.thresholds.map((t) => t.condition) ?? [])]);
      const t = now();
      const st = states.get(urlId);
      repo.transaction(() => {
        for (const i of repo.openIncidentsOf(urlId)) {
          if (!live.has(i.condition)) repo.resolveIncident(i.incident_id, t, true);
        }
        for (const c of repo.conditions(urlId)) if (!live.has(c.condition)) repo.forgetCondition(urlId, c.condition);
        for (const r of repo.regionStates(urlId)) if (!live.has(r.condition)) repo.forgetCondition(urlId, r.condition);
      });
      if (st) states.delete(urlId);
    },
  };
}
export type AlertEvaluator = ReturnType<typeof createAlertEvaluator>;
