// Moving a user to another plan. A downgrade never deletes: endpoints over the new limit are
// switched off (most recently created first), features and regions the plan lacks are removed
// (what is switched off is decided by `downgradeEndpoint` / `endpointsToSwitchOff` in @upfleet/proto/plan),
// and checks follow the new interval (the assignment engine is told). The change is recorded
// with a message for the dashboard saying what changed and why.
import { Counter, type Registry } from 'prom-client';
import { downgradeEndpoint, endpointsToSwitchOff, formatInterval } from '@upfleet/proto/plan';
import { FEATURE_LABELS, type Package, type PlanChangeNotice } from '@upfleet/proto/rest';
import type { Kysely } from 'kysely';
import { createBillingRepo, type BillingRepo, type PlanChangeRow } from '../store/billing-repo';
import { planContext, regionLabel, type CatalogRepo } from '../store/catalog-repo';
import type { EndpointsRepo } from '../store/endpoints-repo';
import type { Schema } from '../store/sql/schema';
import { createUsersRepo, type UsersRepo } from '../store/users-repo';
import type { ChangeHub } from '../change-hub';

export interface PlanEnforcement {
  disabled: string[];
  disabledIds: number[];
  featuresRemoved: string[];
  regionsRemoved: string[];
  endpointsChanged: number;
}

export { formatInterval };

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
  /**
   * The change hub: `plans.changed(package)` after a move (agents get deltas: new interval, fewer
   * checks; alerting re-reads), `endpoints.removed(id)` for each endpoint the downgrade switched off
   * (its open incidents close).
   */
  changes?: ChangeHub;
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
    const ctx = planContext(deps.catalog);
    const labelOf = (key: string) => {
      const r = deps.catalog.regionByKey(key);
      return r ? regionLabel(r) : key;
    };
    const out: PlanEnforcement = { disabled: [], disabledIds: [], featuresRemoved: [], regionsRemoved: [], endpointsChanged: 0 };
    const features = new Set<string>();
    const regions = new Set<string>();
    const list = deps.endpoints.list(userId);
    for (const e of list) {
      const d = downgradeEndpoint(plan, e, ctx);
      for (const f of d.featuresRemoved) features.add(FEATURE_LABELS[f]);
      for (const r of d.regionsRemoved) regions.add(labelOf(r));
      if (d.changed) {
        deps.endpoints.update(userId, e.url_id, { name: e.name, url: e.url, description: e.description, ...d.next });
        out.endpointsChanged += 1;
      }
    }
    for (const e of endpointsToSwitchOff(plan, list.filter((e) => e.monitoring_enabled))) {
      deps.endpoints.toggle(userId, e.url_id, false);
      out.disabled.push(e.name);
      out.disabledIds.push(e.url_id);
    }
    out.featuresRemoved = [...features];
    out.regionsRemoved = [...regions];
    return out;
  }

  return {
    enforce,
    /** Puts the user on `to` (no-op when already there); returns the recorded change. In one
     *  transaction, or in the caller's (`trx`: a webhook records its event in the same one). */
    async applyPlan(userId: number, to: Package, reason: string, trx?: Kysely<Schema>): Promise<PlanChangeRow | null> {
      const users = trx ? createUsersRepo(trx) : deps.users;
      const user = await users.byId(userId);
      if (!user) return null;
      const from = deps.catalog.packageById(user.package_id) ?? deps.catalog.freePackage();
      if (from.package_id === to.package_id) return null;
      let disabledIds: number[] = [];
      const row = await (trx ? createBillingRepo(trx) : deps.billing).transaction(async (tx) => {
        // The endpoints repo is still better-sqlite3 on the same SQLite connection: its writes land in this transaction.
        await createUsersRepo(tx).setPackage(userId, to.package_id);
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
        return { ...change, id: await createBillingRepo(tx).insertPlanChange(change), dismissed_at: null };
      });
      changes.inc({ to_package: to.package_name });
      deps.changes?.plans.changed(to.package_id);
      for (const id of disabledIds) deps.changes?.endpoints.removed(id);
      return row;
    },
  };
}
export type PlanChanger = ReturnType<typeof createPlanChanger>;
