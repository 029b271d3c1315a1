// The catalogue on both databases: reads from the loaded snapshot, writes through Kysely and reloaded.
import { describe, expect, it } from 'vitest';
import type { Kysely } from 'kysely';
import { freshSql, SQL_DIALECTS } from '../testing/sql';
import { createCatalogRepo } from './catalog-repo';
import type { Schema } from './sql/schema';

const plan = (name: string, price: number, sortOrder: number, over: Record<string, unknown> = {}) => ({
  package_name: name, price, max_endpoints: 10, max_regions: 1, check_frequency_seconds: 300, retention_days: 30, ssl_monitoring: 0,
  advanced_alerts: 1, api_access: 0, multi_region: 0, ping_host: 0, cert_expiry: 1, response_code: 1, response_time: 0, sort_order: sortOrder, stripe_price_id: '', monitor_kinds: null as string | null, custom_domains: 0, ...over,
});

async function seed(db: Kysely<Schema>) {
  await db.deleteFrom('packages').execute();
  await db.deleteFrom('regions').execute();
  await db.deleteFrom('monitor_types').execute();
  await db.insertInto('packages').values([
    plan('Pro', 20, 2, { monitor_kinds: '["http"]', custom_domains: 1 }),
    plan('Free', 0, 1),
    plan('Starter', 5, 1, { stripe_price_id: 'price_starter' }),
  ]).execute();
  await db.insertInto('regions').values([{ region: 'US', city: 'Virginia', primary_region: 0 }, { region: 'EU', city: 'Germany', primary_region: 1 }]).execute();
  await db.insertInto('monitor_types').values([{ type_code: 'http', display_name: 'HTTP', requires_primary_region: 0 }]).execute();
}

describe.each(SQL_DIALECTS)('catalog repo on $title', (d) => {
  const sql = freshSql(d);

  it('refuses a read before the snapshot is loaded, then answers from it in order', async () => {
    await seed(sql().db);
    const catalog = createCatalogRepo(sql().db);
    expect(() => catalog.listPackages()).toThrow('catalog read before load()');
    await catalog.load();
    expect(catalog.listPackages().map((p) => p.package_name)).toEqual(['Free', 'Starter', 'Pro']);
    const pro = catalog.packageByName('Pro')!;
    expect(pro).toMatchObject({ price: 20, custom_domains: true, ssl_monitoring: false, advanced_alerts: true, monitor_kinds: ['http'] });
    expect(pro).not.toHaveProperty('sort_order');
    expect(catalog.packageById(pro.package_id)?.package_name).toBe('Pro');
    expect(catalog.packageById(999_999)).toBeUndefined();
    expect(catalog.freePackage().package_name).toBe('Free');
    expect(catalog.listRegions().map((r) => [r.region, r.city, r.primary_region])).toEqual([['EU', 'Germany', true], ['US', 'Virginia', false]]);
    expect(catalog.regionByKey('US-Virginia')?.city).toBe('Virginia');
    expect(catalog.regionByKey('US-Nowhere')).toBeUndefined();
    expect(catalog.primaryRegion()?.region).toBe('EU');
    expect(catalog.listMonitorTypes()).toEqual([{ monitor_type_id: expect.any(Number), type_code: 'http', display_name: 'HTTP', requires_primary_region: false }]);
  });

  it('finds a package by name whatever its case, on Postgres as on SQLite', async () => {
    await seed(sql().db);
    const catalog = createCatalogRepo(sql().db);
    await catalog.load();
    expect(catalog.packageByName('pRO')?.package_name).toBe('Pro');
    expect(catalog.packageByName('FREE')?.package_name).toBe('Free');
    expect(catalog.packageByName('Gold')).toBeUndefined();
  });

  it('hands out copies: a caller changing what it got does not change the catalogue', async () => {
    await seed(sql().db);
    const catalog = createCatalogRepo(sql().db);
    await catalog.load();
    const pro = catalog.packageByName('Pro')!;
    pro.max_endpoints = 1;
    pro.monitor_kinds.push('tcp');
    catalog.listRegions()[0].city = 'Elsewhere';
    expect(catalog.packageByName('Pro')).toMatchObject({ max_endpoints: 10, monitor_kinds: ['http'] });
    expect(catalog.listRegions()[0].city).toBe('Germany');
  });

  it('stores a Stripe price and sees it at once; an empty price id matches no package', async () => {
    await seed(sql().db);
    const catalog = createCatalogRepo(sql().db);
    await catalog.load();
    expect(catalog.packageByStripePrice('price_starter')?.package_name).toBe('Starter');
    expect(catalog.packageByStripePrice('')).toBeUndefined();
    const pro = catalog.packageByName('Pro')!;
    await catalog.setStripePrice(pro.package_id, 'price_pro');
    expect(catalog.packageByStripePrice('price_pro')?.package_id).toBe(pro.package_id);
    expect(catalog.packageById(pro.package_id)?.stripe_price_id).toBe('price_pro');
    // and it is in the database: a second process's load sees it
    const other = createCatalogRepo(sql().db);
    await other.load();
    expect(other.packageByName('Pro')?.stripe_price_id).toBe('price_pro');
  });

  it('adds regions: a new primary takes the mark from the old one; a region that exists is refused, also two at once', async () => {
    await seed(sql().db);
    const catalog = createCatalogRepo(sql().db);
    await catalog.load();
    const asia = await catalog.addRegion('AP', 'Tokyo', false);
    expect(asia).toEqual({ region_id: expect.any(Number), region: 'AP', city: 'Tokyo', primary_region: false });
    expect(catalog.regionByKey('AP-Tokyo')?.region_id).toBe(asia!.region_id);
    expect(catalog.primaryRegion()?.region).toBe('EU');
    const both = await Promise.all([catalog.addRegion('US', 'Oregon', true), catalog.addRegion('US', 'Oregon', true)]);
    expect(both.filter((r) => r !== undefined)).toHaveLength(1);
    expect(catalog.primaryRegion()).toMatchObject({ region: 'US', city: 'Oregon', primary_region: true });
    expect(catalog.listRegions().filter((r) => r.primary_region)).toHaveLength(1);
    expect(await catalog.addRegion('EU', 'Germany', false)).toBeUndefined();
    expect(catalog.listRegions()).toHaveLength(4);
  });
});
