// What the evaluator knows about each endpoint, cached in memory. Its context: the endpoint row,
// the regions each check kind runs in (the same rule that schedules the checks,
// checksForEndpoint) and its thresholds; re-read after an edit. Its state: per (condition, region)
// confirmation counters and per condition down/flapping, loaded from SQLite once and kept in step
// by the evaluator's own writes, so the steady state costs map lookups and no reads.
import type { Feature, ThresholdOperator } from '@upfleet/proto/rest';
import { kindName, type KindName } from '../checks';
import { checkKindSpecs } from '@upfleet/proto/check-kinds';
import { checksForEndpoint } from '../services/check-placement';
import { DOWN, DOWN_KINDS, kindOfCondition, thresholdCondition, type ThresholdRule } from './conditions';
import type { OwnedMonitoredEndpoint } from '../store/endpoints-repo';
import type { AlertingRepo, ConditionRow, RegionStateRow, ThresholdAlertRow } from './repo';

/** Endpoints read per query by prefetch (SQLite binds the id list as one JSON text). */
const PREFETCH_CHUNK = 500;

function groupBy<T extends { url_id: number }>(rows: T[]): Map<number, T[]> {
  const m = new Map<number, T[]>();
  for (const r of rows) {
    const list = m.get(r.url_id);
    if (list) list.push(r);
    else m.set(r.url_id, [r]);
  }
  return m;
}

export interface EndpointContext {
  row: OwnedMonitoredEndpoint;
  regions: Record<KindName, string[]>;
  thresholds: ThresholdRule[];
}

export interface ConditionState {
  down: boolean;
  changes: number[];
  flapping: boolean;
}

export interface EndpointState {
  regions: Map<string, RegionStateRow>;
  conditions: Map<string, ConditionState>;
}

export const regionStateKey = (condition: string, region: string) => `${condition}|${region}`;

export function createEndpointCache(deps: {
  repo: AlertingRepo;
  /** 'EU-Germany' → 'EU - Germany'. */
  regionLabel(key: string): string;
  primaryRegion(): string | null;
}) {
  const { repo } = deps;
  const contexts = new Map<number, EndpointContext | null>();
  const states = new Map<number, EndpointState>();
  // Region labels are asked for per result: cached (cleared with the contexts).
  const labels = new Map<string, string>();

  function buildContext(row: OwnedMonitoredEndpoint, thresholdRows: ThresholdAlertRow[], primary: string | null): EndpointContext {
    // Every kind of the kinds table has its list (empty when the endpoint does not run it).
    const regions = Object.fromEntries(checkKindSpecs().map((s) => [s.name, [] as string[]])) as Record<KindName, string[]>;
    for (const a of checksForEndpoint(row, primary)) regions[kindName(a.kind)!].push(a.region);
    const thresholds = thresholdRows.map((t) => ({
      condition: thresholdCondition(t.monitor_type, t.region),
      type: t.monitor_type as Feature,
      operator: t.threshold_operator as ThresholdOperator,
      value: t.threshold_value,
      region: t.region,
    }));
    return { row, regions, thresholds };
  }

  function context(urlId: number): EndpointContext | null {
    let ctx = contexts.get(urlId);
    if (ctx !== undefined) return ctx;
    const row = repo.endpoint(urlId);
    ctx = row ? buildContext(row, repo.thresholds(urlId), deps.primaryRegion()) : null;
    contexts.set(urlId, ctx);
    return ctx;
  }

  function loadState(urlId: number, regionRows: RegionStateRow[], conditionRows: ConditionRow[]): EndpointState {
    const s: EndpointState = { regions: new Map(), conditions: new Map() };
    for (const r of regionRows) s.regions.set(regionStateKey(r.condition, r.region), r);
    for (const c of conditionRows) {
      s.conditions.set(c.condition, { down: c.down === 1, changes: JSON.parse(c.changes) as number[], flapping: c.flapping === 1 });
    }
    states.set(urlId, s);
    return s;
  }

  function stateOf(urlId: number): EndpointState {
    return states.get(urlId) ?? loadState(urlId, repo.regionStates(urlId), repo.conditions(urlId));
  }

  /**
   * Reads the contexts and states of the endpoints not cached yet, a query per table for all of them:
   * after a restart every endpoint's first result arrives within a minute, and five queries per
   * endpoint (the primary region among them) were most of what held the loop then.
   */
  function prefetch(urlIds: Iterable<number>): void {
    const missing: number[] = [];
    for (const id of urlIds) if (!contexts.has(id) && Number.isSafeInteger(id)) missing.push(id);
    for (let i = 0; i < missing.length; i += PREFETCH_CHUNK) {
      const ids = missing.slice(i, i + PREFETCH_CHUNK);
      const primary = deps.primaryRegion();
      const thresholds = groupBy(repo.thresholdsOf(ids));
      const rows = repo.endpoints(ids);
      for (const id of ids) contexts.set(id, null);
      for (const row of rows) contexts.set(row.url_id, buildContext(row, thresholds.get(row.url_id) ?? [], primary));
      const unloaded = rows.map((r) => r.url_id).filter((id) => !states.has(id));
      if (unloaded.length === 0) continue;
      const regionRows = groupBy(repo.regionStatesOf(unloaded));
      const conditionRows = groupBy(repo.conditionsOf(unloaded));
      for (const id of unloaded) loadState(id, regionRows.get(id) ?? [], conditionRows.get(id) ?? []);
    }
  }

  return {
    context,
    stateOf,
    prefetch,
    labelOf(this: void, key: string): string {
      let l = labels.get(key);
      if (l === undefined) labels.set(key, (l = deps.regionLabel(key)));
      return l;
    },
    /**
     * The regions a condition covers (a threshold's own region, else every region its check kind
     * runs in), those confirmed down, and whether they are a quorum: at least half, at least one.
     */
    coverage(ctx: EndpointContext, st: EndpointState, condition: string): { regions: string[]; down: string[]; quorum: boolean } {
      const rule = ctx.thresholds.find((t) => t.condition === condition);
      // The down condition covers the endpoint's main check: http, tcp or dns (one of them runs).
      const regions = rule?.region ? [rule.region] : condition === DOWN ? DOWN_KINDS.flatMap((k) => ctx.regions[k]) : ctx.regions[kindOfCondition(condition)];
      const down = regions.filter((g) => st.regions.get(regionStateKey(condition, g))?.down === 1);
      return { regions, down, quorum: down.length > 0 && down.length * 2 >= regions.length };
    },
    /** Endpoint, threshold or plan changed: re-read its context (all of them without an id). */
    forgetContext(urlId?: number): void {
      if (urlId === undefined) {
        contexts.clear();
        labels.clear();
      } else contexts.delete(urlId);
    },
    /** Memory may be ahead of SQLite, or the state is gone: reload it next time. */
    forgetState(urlId: number): void {
      states.delete(urlId);
    },
  };
}
export type EndpointCache = ReturnType<typeof createEndpointCache>;
