// Plans, regions and monitor types: the catalogue every user shares.
import { endpointKinds } from '@upfleet/proto/check-kinds';
import type { PlanContext } from '@upfleet/proto/plan';
import { planContextOf } from '@upfleet/proto/regions';
import type { MonitorType, Package, Region } from '@upfleet/proto/rest';
import type { Db } from './db';

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

export function createCatalogRepo(db: Db) {
  const q = {
    packages: db.prepare('SELECT * FROM packages ORDER BY sort_order, package_id'),
    packageById: db.prepare('SELECT * FROM packages WHERE package_id = ?'),
    packageByName: db.prepare('SELECT * FROM packages WHERE lower(package_name) = lower(?)'),
    packageByStripePrice: db.prepare("SELECT * FROM packages WHERE stripe_price_id = ? AND stripe_price_id != ''"),
    setStripePrice: db.prepare('UPDATE packages SET stripe_price_id = ? WHERE package_id = ?'),
    regions: db.prepare('SELECT * FROM regions ORDER BY primary_region DESC, region_id'),
    regionByKey: db.prepare("SELECT * FROM regions WHERE region || '-' || city = ?"),
    monitorTypes: db.prepare('SELECT * FROM monitor_types ORDER BY monitor_type_id'),
    insertRegion: db.prepare('INSERT INTO regions (region, city, primary_region) VALUES (?, ?, ?)'),
    clearPrimary: db.prepare('UPDATE regions SET primary_region = 0'),
  };
  return {
    listPackages: (): Package[] => q.packages.all().map((r) => toPackage(r as Row)),
    packageById: (id: number): Package | undefined => {
      const r = q.packageById.get(id) as Row | undefined;
      return r && toPackage(r);
    },
    packageByName: (name: string): Package | undefined => {
      const r = q.packageByName.get(name) as Row | undefined;
      return r && toPackage(r);
    },
    packageByStripePrice: (priceId: string): Package | undefined => {
      const r = q.packageByStripePrice.get(priceId) as Row | undefined;
      return r && toPackage(r);
    },
    setStripePrice: (packageId: number, priceId: string) => void q.setStripePrice.run(priceId, packageId),
    freePackage(): Package {
      return toPackage(q.packageByName.get('Free') as Row);
    },
    listRegions: (): Region[] => q.regions.all().map((r) => toRegion(r as Row)),
    regionByKey: (key: string): Region | undefined => {
      const r = q.regionByKey.get(key) as Row | undefined;
      return r && toRegion(r);
    },
    primaryRegion(): Region | undefined {
      return this.listRegions().find((r) => r.primary_region);
    },
    addRegion(region: string, city: string, primary: boolean): Region {
      return db.transaction(() => {
        if (primary) q.clearPrimary.run();
        const info = q.insertRegion.run(region, city, primary ? 1 : 0);
        return toRegion({ region_id: Number(info.lastInsertRowid), region, city, primary_region: primary ? 1 : 0 });
      })();
    },
    listMonitorTypes: (): MonitorType[] =>
      (q.monitorTypes.all() as Row[]).map((r) => ({
        monitor_type_id: r.monitor_type_id as number,
        type_code: r.type_code as MonitorType['type_code'],
        display_name: r.display_name as string,
        requires_primary_region: Boolean(r.requires_primary_region),
      })),
  };
}
export type CatalogRepo = ReturnType<typeof createCatalogRepo>;
