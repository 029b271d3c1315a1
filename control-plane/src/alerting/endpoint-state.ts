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
import type { AlertingRepo, RegionStateRow } from './repo';

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

  function context(urlId: number): EndpointContext | null {
    let ctx = contexts.get(urlId);
    if (ctx !== undefined) return ctx;
    const row = repo.endpoint(urlId);
    ctx = null;
    if (row) {
      // Every kind of the kinds table has its list (empty when the endpoint does not run it).
      const regions = Object.fromEntries(checkKindSpecs().map((s) => [s.name, [] as string[]])) as Record<KindName, string[]>;
      for (const a of checksForEndpoint(row, deps.primaryRegion())) regions[kindName(a.kind)!].push(a.region);
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

  return {
    context,
    stateOf,
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
