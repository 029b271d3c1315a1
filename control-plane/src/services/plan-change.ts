// Moving a user to another plan. A downgrade never deletes: endpoints over the new limit are
// switched off (most recently created first), features and regions the plan lacks are removed,
// and checks follow the new interval (the assignment engine is told). The change is recorded
// with a message for the dashboard saying what changed and why.
import { Counter, type Registry } from 'prom-client';
import { FEATURES, FEATURE_LABELS, type Package, type PlanChangeNotice } from '@upfleet/proto/rest';
import type { BillingRepo, PlanChangeRow } from '../store/billing-repo';
import { regionKey, regionLabel, type CatalogRepo } from '../store/catalog-repo';
import type { EndpointsRepo } from '../store/endpoints-repo';
import type { UsersRepo } from '../store/users-repo';

export interface PlanEnforcement {
  disabled: string[];
  disabledIds: number[];
  featuresRemoved: string[];
  regionsRemoved: string[];
  endpointsChanged: number;
}

export function formatInterval(seconds: number): string {
  if (seconds < 60) return `${seconds} seconds`;
  const m = Math.round(seconds / 60);
  return `${m} minute${m === 1 ? '' : 's'}`;
}

const listOf = (items: string[]) => (items.length <= 5 ? items.join(', ') : `${items.slice(0, 5).join(', ')} and ${items.length - 5} more`);

export function describePlanChange(from: Package, to: Package, reason: string, e: PlanEnforcement): string {
  const parts = [`Your plan changed from ${from.package_name} to ${to.package_name} because ${reason}.`];
  if (e.disabled.length > 0) {
    parts.push(`Monitoring was switched off for ${e.disabled.length} endpoint${e.disabled.length === 1 ? '' : 's'} over the ${to.package_name} plan's limit of ${to.max_endpoints}: ${listOf(e.disabled)}.`);
  }
  if (e.featuresRemoved.length > 0) {
    parts.push(`${listOf(e.featuresRemoved)} monitoring ${e.featuresRemoved.length === 1 ? 'is' : 'are'} not in the ${to.package_name} plan and ${e.featuresRemoved.length === 1 ? 'was' : 'were'} removed from your endpoints.`);
  }
  if (e.regionsRemoved.length > 0) {
    parts.push(`Regions not in the ${to.package_name} plan were removed: ${listOf(e.regionsRemoved)}.`);
  }
  if (from.check_frequency_seconds !== to.check_frequency_seconds) parts.push(`Checks now run every ${formatInterval(to.check_frequency_seconds)}.`);
  if (e.disabled.length > 0 || e.featuresRemoved.length > 0 || e.regionsRemoved.length > 0) {
    parts.push('Nothing was deleted: upgrade to switch monitoring back on and add features again.');
  }
  return parts.join(' ');
}

export function toNotice(row: PlanChangeRow): PlanChangeNotice {
  const details = JSON.parse(row.details) as PlanEnforcement;
  return {
    id: row.id,
    from_package: row.from_package,
    to_package: row.to_package,
    reason: row.reason,
    message: row.message,
    created_at: new Date(row.created_at).toISOString(),
    disabled_endpoints: details.disabled,
  };
}

export function createPlanChanger(deps: {
  users: UsersRepo;
  catalog: CatalogRepo;
  endpoints: EndpointsRepo;
  billing: BillingRepo;
  /** Tells the assignment engine, so agents get deltas (new interval, fewer checks). */
  onChange?: () => void;
  /** An endpoint whose monitoring the downgrade switched off (its open incidents close). */
  onEndpointDisabled?: (urlId: number) => void;
  now?: () => number;
  /** Registers its own metric here (plan changes by target plan). */
  metrics?: Registry;
}) {
  const now = deps.now ?? Date.now;
  const changes = new Counter({
    name: 'upfleet_plan_changes_total',
    help: 'Users moved to another plan by billing, by the plan they moved to',
    labelNames: ['to_package'],
    registers: deps.metrics ? [deps.metrics] : [],
  });

  /** Brings a user's endpoints within a plan; changes only what the plan does not allow. */
  function enforce(userId: number, plan: Package): PlanEnforcement {
    const primary = deps.catalog.primaryRegion();
    const primaryKey = primary ? regionKey(primary) : null;
    const labelOf = (key: string) => {
      const r = deps.catalog.regionByKey(key);
      return r ? regionLabel(r) : key;
    };
    const out: PlanEnforcement = { disabled: [], disabledIds: [], featuresRemoved: [], regionsRemoved: [], endpointsChanged: 0 };
    const features = new Set<string>();
    const regions = new Set<string>();
    const list = deps.endpoints.list(userId);
    for (const e of list) {
      const next = { name: e.name, url: e.url, description: e.description, regions: [...e.regions], ping_host: e.ping_host, cert_expiry: e.cert_expiry, response_code: e.response_code, response_time: e.response_time };
      for (const f of FEATURES) {
        if (next[f] && !plan[f]) {
          next[f] = false;
          features.add(FEATURE_LABELS[f]);
        }
      }
      // An endpoint left with no check gets the plan's default one rather than silently nothing.
      if (!FEATURES.some((f) => next[f]) && plan.response_code) next.response_code = true;
      let kept = plan.multi_region || !primaryKey ? next.regions : next.regions.filter((r) => r === primaryKey);
      kept = kept.slice(0, Math.max(1, plan.max_regions));
      if (kept.length === 0 && primaryKey) kept = [primaryKey];
      for (const r of next.regions) if (!kept.includes(r)) regions.add(labelOf(r));
      next.regions = kept;
      const changed = FEATURES.some((f) => next[f] !== e[f]) || kept.length !== e.regions.length || kept.some((r, i) => r !== e.regions[i]);
      if (changed) {
        deps.endpoints.update(userId, e.url_id, next);
        out.endpointsChanged += 1;
      }
    }
    const enabled = list.filter((e) => e.monitoring_enabled);
    const over = enabled.length - plan.max_endpoints;
    if (over > 0) {
      const newestFirst = [...enabled].sort((a, b) => (a.created_at === b.created_at ? b.url_id - a.url_id : a.created_at < b.created_at ? 1 : -1));
      for (const e of newestFirst.slice(0, over)) {
        deps.endpoints.toggle(userId, e.url_id, false);
        out.disabled.push(e.name);
        out.disabledIds.push(e.url_id);
      }
    }
    out.featuresRemoved = [...features];
    out.regionsRemoved = [...regions];
    return out;
  }

  return {
    enforce,
    /** Puts the user on `to` (no-op when already there); returns the recorded change. */
    applyPlan(userId: number, to: Package, reason: string): PlanChangeRow | null {
      const user = deps.users.byId(userId);
      if (!user) return null;
      const from = deps.catalog.packageById(user.package_id) ?? deps.catalog.freePackage();
      if (from.package_id === to.package_id) return null;
      let disabledIds: number[] = [];
      const row = deps.billing.transaction(() => {
        deps.users.setPackage(userId, to.package_id);
        const e = enforce(userId, to);
        disabledIds = e.disabledIds;
        const change = {
          user_id: userId,
          from_package: from.package_name,
          to_package: to.package_name,
          reason,
          message: describePlanChange(from, to, reason, e),
          details: JSON.stringify(e),
          created_at: now(),
        };
        return { ...change, id: deps.billing.insertPlanChange(change), dismissed_at: null };
      });
      changes.inc({ to_package: to.package_name });
      deps.onChange?.();
      for (const id of disabledIds) deps.onEndpointDisabled?.(id);
      return row;
    },
  };
}
export type PlanChanger = ReturnType<typeof createPlanChanger>;
