// Plans, regions and monitor types: the catalogue every user shares.
import type { Kysely } from 'kysely';
import { endpointKinds } from '@upfleet/proto/check-kinds';
import type { PlanContext } from '@upfleet/proto/plan';
import { planContextOf, regionKey } from '@upfleet/proto/regions';
import type { MonitorType, Package, Region } from '@upfleet/proto/rest';
import type { Schema } from './sql/schema';

type Row = Record<string, unknown>;

const PACKAGE_BOOLS = ['ssl_monitoring', 'advanced_alerts', 'api_access', 'multi_region', 'ping_host', 'cert_expiry', 'response_code', 'response_time', 'custom_domains'] as const;

export function toPackage(row: Row): Package {
  const p = { ...row };
  for (const k of PACKAGE_BOOLS) p[k] = Boolean(p[k]);
  delete p.sort_order;
  // NULL: every kind, spelled out so a client need not know that absent means all
  p.monitor_kinds = typeof p.monitor_kinds === 'string' ? JSON.parse(p.monitor_kinds) : endpointKinds();
  return p as unknown as Package;
}

export const toRegion = (row: Row): Region => ({
  region_id: row.region_id as number,
  region: row.region as string,
  city: row.city as string,
  primary_region: Boolean(row.primary_region),
});

export { regionKey, regionLabel } from '@upfleet/proto/regions';

/** The catalogue's primary region as the plan policy (`@upfleet/proto/plan`) needs it. */
export function planContext(catalog: { primaryRegion(): Region | undefined }): PlanContext {
  return planContextOf(catalog.primaryRegion());
}

interface Snapshot { packages: Package[]; regions: Region[]; monitorTypes: MonitorType[] }

// Each read hands out its own copy: callers may adjust what they get without touching the snapshot.
const copyPackage = (p: Package): Package => ({ ...p, monitor_kinds: [...p.monitor_kinds] });
const copyRegion = (r: Region): Region => ({ ...r });

/**
 * Reads come from an in-memory snapshot, synchronously: the catalogue is small, read in ~40 places
 * (plan lookups per request and per placement, region labels) and written rarely (an operator's
 * edit). `load()` fills it at start; every write here reloads it. A write by ANOTHER process of a
 * cluster reaches this one only at its next `load()` (docs/scaling.md, known limits).
 */
export function createCatalogRepo(db: Kysely<Schema>) {
  let snap: Snapshot = { packages: [], regions: [], monitorTypes: [] };
  let loaded = false;

  async function load(): Promise<void> {
    const [packages, regions, monitorTypes] = await Promise.all([
      db.selectFrom('packages').selectAll().orderBy('sort_order').orderBy('package_id').execute(),
      db.selectFrom('regions').selectAll().orderBy('primary_region', 'desc').orderBy('region_id').execute(),
      db.selectFrom('monitor_types').selectAll().orderBy('monitor_type_id').execute(),
    ]);
    snap = {
      packages: packages.map((r) => toPackage(r as unknown as Row)),
      regions: regions.map((r) => toRegion(r as unknown as Row)),
      monitorTypes: monitorTypes.map((r) => ({
        monitor_type_id: r.monitor_type_id,
        type_code: r.type_code as MonitorType['type_code'],
        display_name: r.display_name,
        requires_primary_region: Boolean(r.requires_primary_region),
      })),
    };
    loaded = true;
  }
  // A read before load() would answer "no such plan" for every plan: say what is wrong instead.
  const current = (): Snapshot => {
    if (!loaded) throw new Error('catalog read before load()');
    return snap;
  };
  const packageByName = (name: string): Package | undefined => {
    const lower = name.toLowerCase();
    const p = current().packages.find((x) => x.package_name.toLowerCase() === lower);
    return p && copyPackage(p);
  };

  return {
    /** (Re)reads the catalogue into memory; at start, and after every write. */
    load,
    listPackages: (): Package[] => current().packages.map(copyPackage),
    packageById: (id: number): Package | undefined => {
      const p = current().packages.find((x) => x.package_id === id);
      return p && copyPackage(p);
    },
    /** Case-insensitive, on both databases (compared here, not by the database's LIKE or lower()). */
    packageByName,
    packageByStripePrice: (priceId: string): Package | undefined => {
      const p = priceId === '' ? undefined : current().packages.find((x) => x.stripe_price_id === priceId);
      return p && copyPackage(p);
    },
    setStripePrice: async (packageId: number, priceId: string): Promise<void> => {
      await db.updateTable('packages').set({ stripe_price_id: priceId }).where('package_id', '=', packageId).execute();
      await load();
    },
    freePackage(): Package {
      const p = packageByName('Free');
      if (!p) throw new Error("the catalogue has no 'Free' package");
      return p;
    },
    listRegions: (): Region[] => current().regions.map(copyRegion),
    regionByKey: (key: string): Region | undefined => {
      const r = current().regions.find((x) => regionKey(x) === key);
      return r && copyRegion(r);
    },
    primaryRegion(): Region | undefined {
      const r = current().regions.find((x) => x.primary_region);
      return r && copyRegion(r);
    },
    /** Adds a region (undefined when it exists); a primary one takes the mark from the previous primary. */
    async addRegion(region: string, city: string, primary: boolean): Promise<Region | undefined> {
      const row = await db.transaction().execute(async (trx) => {
        // UNIQUE (region, city): of two processes adding the same region, one adds it.
        const added = await trx.insertInto('regions').values({ region, city, primary_region: primary ? 1 : 0 })
          .onConflict((oc) => oc.columns(['region', 'city']).doNothing())
          .returning('region_id').executeTakeFirst();
        if (added && primary) {
          await trx.updateTable('regions').set({ primary_region: 0 }).where('region_id', '!=', added.region_id).where('primary_region', '!=', 0).execute();
        }
        return added;
      });
      if (!row) return undefined;
      await load();
      return { region_id: row.region_id, region, city, primary_region: primary };
    },
    listMonitorTypes: (): MonitorType[] => current().monitorTypes.map((m) => ({ ...m })),
  };
}
export type CatalogRepo = ReturnType<typeof createCatalogRepo>;
