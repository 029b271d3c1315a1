// Walks every package field and shows where it is enforced, on the real services over real SQLite:
// each field's case sets that one field on a plan that otherwise allows everything and shows what
// the user meets (a refusal with its SPEC message, the interval or retention a check carries).
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FREE_PLAN_DEFAULTS, PLAN_FIELDS, pricingLines } from '@upfleet/proto/plan';
import { MESSAGES, type Package } from '@upfleet/proto/rest';
import { PackageResource } from '@upfleet/proto/schemas';
import { EndpointCreateBody } from '@upfleet/proto/schemas';
import { openDatabase } from '../store/db';
import { seedDatabase } from '../store/seed';
import { loadedCatalog } from '../testing/catalog';
import { createEndpointsRepo } from '../store/endpoints-repo';
import { createUsersRepo } from '../store/users-repo';
import { createApiKeysRepo } from '../store/api-keys-repo';
import { sqliteSql } from '../store/sql/open';
import { createBillingRepo } from '../store/billing-repo';
import { createEndpointService } from './endpoints';
import { createApiKeyService } from './api-keys';
import { createPlanChanger } from './plan-change';
import { checksForEndpoint } from './check-placement';
import { createWorkspaceService } from './workspaces';
import { createWorkspacesRepo } from '../store/workspaces-repo';
import { createChangeHub } from '../change-hub';
import { createStatusPageService } from './status-pages';
import { createMaintenanceService } from '../maintenance';
import { createStatusPagesRepo } from '../store/status-pages-repo';
import { StatusPageBody } from '@upfleet/proto/schemas';

const dir = mkdtempSync(path.join(os.tmpdir(), 'upfleet-plan-policy-'));
const db = openDatabase(path.join(dir, 'upfleet.db'));
seedDatabase(db);
const catalog = await loadedCatalog(db);
const sqlDb = sqliteSql(db).db;
const users = createUsersRepo(sqlDb);
const endpointsRepo = createEndpointsRepo(db);
const endpoints = createEndpointService({ endpoints: endpointsRepo, users, catalog, allowPrivateTargets: true });
const apiKeys = createApiKeyService({ keys: createApiKeysRepo(sqlDb), planOf: endpoints.planOf, perMinute: 60 });
const workspaces = createWorkspaceService({
  workspaces: createWorkspacesRepo(sqliteSql(db).db), users, planOf: endpoints.planOf, freePackageId: () => catalog.freePackage().package_id,
  endpointChanges: createChangeHub().endpoints, mailer: null, emailVerified: () => true, publicUrl: () => 'http://127.0.0.1',
});
const statusPagesRepo = createStatusPagesRepo(sqliteSql(db).db);
const statusPages = createStatusPageService({ repo: statusPagesRepo, maintenance: createMaintenanceService({ repo: statusPagesRepo }), planOf: endpoints.planOf, cookieKey: Buffer.alloc(32) });
const planChanger = createPlanChanger({ users, catalog, endpoints: endpointsRepo, billing: createBillingRepo(sqlDb) });

afterAll(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A plan that allows everything (and sells everything), then the case's one field. */
const ALL = {
  max_endpoints: 100, max_regions: 3, max_members: 50, check_frequency_seconds: 60, retention_days: 90, ssl_monitoring: true, advanced_alerts: true,
  api_access: true, multi_region: true, ping_host: true, cert_expiry: true, response_code: true, response_time: true,
};
let n = 0;
async function userOn(overrides: Partial<typeof ALL>): Promise<{ userId: number; plan: Package }> {
  const p = { ...ALL, ...overrides };
  n += 1;
  const id = db
    .prepare(`INSERT INTO packages (package_name, price, currency, description, max_endpoints, max_regions, max_members, check_frequency_seconds,
      retention_days, ssl_monitoring, advanced_alerts, api_access, multi_region, ping_host, cert_expiry, response_code, response_time,
      stripe_price_id, sort_order) VALUES (?, 5, 'EUR', '', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, '', 100)`)
    .run(`Case${n}`, p.max_endpoints, p.max_regions, p.max_members, p.check_frequency_seconds, p.retention_days, ...[p.ssl_monitoring, p.advanced_alerts, p.api_access, p.multi_region, p.ping_host, p.cert_expiry, p.response_code, p.response_time].map(Number))
    .lastInsertRowid as number;
  const userId = await users.insert(`user${n}`, `user${n}@example.com`, 'x', id);
  await catalog.load(); // the plan was written behind the catalogue's back
  return { userId, plan: catalog.packageById(id)! };
}

const body = (over: Partial<EndpointCreateBody> = {}): EndpointCreateBody =>
  EndpointCreateBody.parse({ name: `Site ${Math.random()}`, url: `https://example.com/${Math.random()}`, regions: ['EU-Germany'], response_code: true, ...over });

/** Runs `fn` and answers its refusal's message (or null when it passed). */
async function refusal(fn: () => unknown): Promise<string | null> {
  try {
    await fn();
    return null;
  } catch (err) {
    return (err as Error).message;
  }
}

const featureCase = (field: 'ping_host' | 'cert_expiry' | 'response_code' | 'response_time', label: string) => async () => {
  const { userId } = await userOn({ [field]: false });
  expect(await refusal(() => endpoints.create(userId, body({ [field]: true })))).toBe(MESSAGES.featureNotInPlan(label));
  expect((await endpoints.dashboard(userId))[field]).toBe(false);
};

/** Each enforced field: where it is enforced, shown on the services a request reaches. */
const ENFORCED: Record<string, { where: string; show: () => void | Promise<void> }> = {
  max_members: {
    where: 'services/workspaces.ts invite: members plus pending invitations beyond it (403); the pricing page sells it',
    show: async () => {
      const { userId, plan } = await userOn({ max_members: 2 });
      const invite = (email: string) => workspaces.invite(userId, userId, { email, role: 'viewer' }).then(() => null, (e: Error) => e.message);
      expect(await invite('first@example.com')).toBeNull();
      expect(await invite('second@example.com')).toBe(MESSAGES.tooManyMembers(2, plan.package_name));
      expect(pricingLines(plan)).toContain('2 team members');
    },
  },
  max_endpoints: {
    where: 'services/endpoints.ts create and toggle; services/plan-change.ts switches the newest off',
    show: async () => {
      const { userId, plan } = await userOn({ max_endpoints: 1 });
      const first = await endpoints.create(userId, body());
      expect(await refusal(() => endpoints.create(userId, body()))).toBe(MESSAGES.tooManyEndpoints(1, plan.package_name));
      await endpoints.toggle(userId, first.url_id, { monitoring_enabled: false });
      const { userId: big } = await userOn({});
      const a = await endpoints.create(big, body());
      const b = await endpoints.create(big, body());
      await planChanger.applyPlan(big, plan, 'a test');
      expect(endpointsRepo.get(big, a.url_id)!.monitoring_enabled).toBe(true);
      expect(endpointsRepo.get(big, b.url_id)!.monitoring_enabled).toBe(false);
    },
  },
  max_regions: {
    where: 'services/endpoints.ts create and update; services/plan-change.ts keeps the first regions',
    show: async () => {
      const { userId, plan } = await userOn({ max_regions: 1 });
      expect(await refusal(() => endpoints.create(userId, body({ regions: ['EU-Germany', 'US-Virginia'] })))).toBe(MESSAGES.tooManyRegions(1, plan.package_name));
    },
  },
  multi_region: {
    where: 'services/endpoints.ts create and update; services/plan-change.ts keeps the primary region',
    show: async () => {
      const { userId, plan } = await userOn({ multi_region: false });
      expect(await refusal(() => endpoints.create(userId, body({ regions: ['US-Virginia'] })))).toBe(
        `Your ${plan.package_name} plan monitors from the primary region EU - Germany only. Please upgrade to select more regions.`,
      );
    },
  },
  check_frequency_seconds: {
    where: "services/check-placement.ts: each check's interval_seconds (and timeout) is the plan's, or the endpoint's own when longer; services/endpoints.ts refuses a shorter one (403)",
    show: async () => {
      const { userId, plan } = await userOn({ check_frequency_seconds: 45 });
      const e = await endpoints.create(userId, body());
      expect(checksForEndpoint(endpointsRepo.monitoredById(e.url_id)!, 'EU-Germany').map((c) => c.interval_seconds)).toEqual([45]);
      const own = await endpoints.create(userId, body({ url: 'https://own-interval.example.com/', check_frequency_seconds: 600 }));
      expect(checksForEndpoint(endpointsRepo.monitoredById(own.url_id)!, 'EU-Germany').map((c) => c.interval_seconds)).toEqual([600]);
      expect(await refusal(() => endpoints.create(userId, body({ url: 'https://too-fast.example.com/', check_frequency_seconds: 30 })))).toBe(MESSAGES.intervalNotInPlan(45, plan.package_name));
    },
  },
  retention_days: {
    where: "services/check-placement.ts: each check's retention_days (ClickHouse's TTL reads it per row)",
    show: async () => {
      const { userId } = await userOn({ retention_days: 77 });
      const e = await endpoints.create(userId, body());
      expect(checksForEndpoint(endpointsRepo.monitoredById(e.url_id)!, 'EU-Germany').map((c) => c.retention_days)).toEqual([77]);
    },
  },
  ssl_monitoring: {
    where: 'services/endpoints.ts: Certificate Expiry needs it too; the dashboard and the pricing page say so',
    show: async () => {
      const { userId, plan } = await userOn({ ssl_monitoring: false });
      expect(await refusal(() => endpoints.create(userId, body({ cert_expiry: true })))).toBe(MESSAGES.featureNotInPlan('Certificate Expiry'));
      expect((await endpoints.dashboard(userId)).cert_expiry).toBe(false);
      expect(pricingLines(plan)).not.toContain('SSL certificate monitoring');
      expect(pricingLines({ ...plan, ssl_monitoring: true })).toContain('SSL certificate monitoring');
    },
  },
  advanced_alerts: {
    where: 'alerting/settings.ts: SMS test sends need it (403 SMS_TEST_NEEDS_PLAN, walked over HTTP in http/alerting-api.test.ts); the pricing page sells it as SMS alerts',
    show: async () => {
      const { userId, plan } = await userOn({ advanced_alerts: false });
      expect((await endpoints.planOf(userId)).advanced_alerts).toBe(false);
      expect(pricingLines(plan)).not.toContain('SMS alerts');
      expect(pricingLines({ ...plan, advanced_alerts: true })).toContain('SMS alerts');
    },
  },
  api_access: {
    where: 'services/api-keys.ts: creating a key and every request made with one (403)',
    show: async () => {
      const { userId } = await userOn({ api_access: false });
      expect(await refusal(() => apiKeys.create(userId, { name: 'ci' }))).toBe(MESSAGES.apiAccessNotInPlan);
    },
  },
  monitor_kinds: {
    where: 'services/endpoints.ts create and update (403); absent in a plan means every kind',
    show: async () => {
      const { userId } = await userOn({});
      const id = (await endpoints.planOf(userId)).package_id;
      db.prepare(`UPDATE packages SET monitor_kinds = '["http","heartbeat"]' WHERE package_id = ?`).run(id);
      await catalog.load();
      expect(await refusal(() => endpoints.create(userId, body({ kind: 'tcp', url: undefined, target: 'db.example.com:5432' })))).toBe(MESSAGES.featureNotInPlan('TCP Port'));
      expect(await refusal(() => endpoints.create(userId, body({ kind: 'dns', url: undefined, target: 'example.com' })))).toBe(MESSAGES.featureNotInPlan('DNS'));
      expect((await endpoints.create(userId, body())).kind ?? 'http').toBe('http');
      db.prepare('UPDATE packages SET monitor_kinds = NULL WHERE package_id = ?').run(id);
      await catalog.load();
      expect((await endpoints.create(userId, body({ kind: 'tcp', url: undefined, target: 'db.example.com:5432' }))).kind).toBe('tcp');
    },
  },
  ping_host: { where: 'services/endpoints.ts create and update', show: featureCase('ping_host', 'Ping Host') },
  cert_expiry: { where: 'services/endpoints.ts create and update', show: featureCase('cert_expiry', 'Certificate Expiry') },
  response_code: { where: 'services/endpoints.ts create and update', show: featureCase('response_code', 'Response Code') },
  response_time: { where: 'services/endpoints.ts create and update', show: featureCase('response_time', 'Response Time') },
  max_status_pages: {
    where: 'services/status-pages.ts create (403)',
    show: async () => {
      const { userId, plan } = await userOn({}); // the column's default: 1 page
      expect(plan.max_status_pages).toBe(1);
      expect(pricingLines(plan)).toContain('1 status page');
      const page = (slug: string) => StatusPageBody.parse({ slug, title: 'Status' });
      await statusPages.create(userId, page(`policy-${userId}-a`));
      let refused: string | null = null;
      await statusPages.create(userId, page(`policy-${userId}-b`)).catch((err: Error) => (refused = err.message));
      expect(refused).toBe(MESSAGES.tooManyStatusPages(1, plan.package_name));
      expect(await statusPages.list(userId)).toHaveLength(1);
    },
  },
  browser_checks: {
    where: 'services/endpoints.ts create and update (403); seeded Free 0, Starter 2, Pro 10, Business 50; the pricing page sells it',
    show: async () => {
      const { userId, plan } = await userOn({}); // the column's default: none
      expect(plan.browser_checks).toBe(0);
      expect(pricingLines(plan).join('\n')).not.toMatch(/browser check/);
      const browser = () => body({ kind: 'browser', url: `https://b${Math.random()}.example.com/`, response_code: undefined });
      expect(await refusal(() => endpoints.create(userId, browser()))).toBe(MESSAGES.tooManyBrowserChecks(0, plan.package_name));
      db.prepare('UPDATE packages SET browser_checks = 2 WHERE package_id = ?').run(plan.package_id);
      await catalog.load();
      const first = await endpoints.create(userId, browser());
      await endpoints.create(userId, browser());
      expect(await refusal(() => endpoints.create(userId, browser()))).toBe(MESSAGES.tooManyBrowserChecks(2, plan.package_name));
      // editing one of the two keeps it within the limit; an http endpoint made a browser one is over it
      expect((await endpoints.update(userId, first.url_id, browser())).kind).toBe('browser');
      const http = await endpoints.create(userId, body());
      expect(await refusal(() => endpoints.update(userId, http.url_id, browser()))).toBe(MESSAGES.tooManyBrowserChecks(2, plan.package_name));
      expect(pricingLines(await endpoints.planOf(userId))).toContain('2 browser checks');
      // a browser check runs at most every 5 minutes
      db.prepare('UPDATE packages SET browser_checks = 3 WHERE package_id = ?').run(plan.package_id);
      await catalog.load();
      expect(await refusal(() => endpoints.create(userId, body({ kind: 'browser', url: 'https://fast.example.com/', response_code: undefined, check_frequency_seconds: 60 })))).toBe(MESSAGES.browserIntervalTooShort(300));
      const seeded = Object.fromEntries(catalog.listPackages().map((p) => [p.package_name, p.browser_checks]));
      expect(seeded).toMatchObject({ Free: 0, Starter: 2, Pro: 10, Business: 50 });
    },
  },
  custom_domains: {
    where: "services/status-pages.ts create and update (403); the daily check stops a domain the plan no longer has",
    show: async () => {
      const { userId, plan } = await userOn({}); // the column's default: no custom domains
      expect(plan.custom_domains).toBe(false);
      expect(pricingLines(plan)).not.toContain('Custom domains for status pages');
      const page = StatusPageBody.parse({ slug: `domain-${userId}`, title: 'Status', custom_domain: `status-${userId}.example.com` });
      let refused: string | null = null;
      await statusPages.create(userId, page).catch((err: Error) => (refused = err.message));
      expect(refused).toBe(MESSAGES.customDomainsNotInPlan);
      expect(await statusPages.list(userId)).toHaveLength(0);
      db.prepare('UPDATE packages SET custom_domains = 1 WHERE package_id = ?').run(plan.package_id);
      await catalog.load();
      expect(pricingLines(await endpoints.planOf(userId))).toContain('Custom domains for status pages');
      expect((await statusPages.create(userId, page)).custom_domain).toBe(`status-${userId}.example.com`);
    },
  },
};

describe('every package field has one policy entry and is enforced where it says', () => {
  let columns: string[] = [];
  beforeAll(() => {
    columns = (db.prepare('PRAGMA table_info(packages)').all() as Array<{ name: string }>).map((c) => c.name).filter((c) => c !== 'sort_order');
  });

  it('the Free plan clients assume before the account loads is the seeded Free plan', () => {
    expect(catalog.freePackage()).toMatchObject(FREE_PLAN_DEFAULTS);
  });

  it('the policy table, the REST Package and the packages table name the same fields', () => {
    expect(Object.keys(PLAN_FIELDS).sort()).toEqual(Object.keys(PackageResource.shape).sort());
    expect(Object.keys(PLAN_FIELDS).sort()).toEqual([...columns].sort());
  });

  it('a field that gates something has an enforcement case here; the catalogue fields gate nothing', () => {
    const gating = Object.entries(PLAN_FIELDS).filter(([, p]) => !p.gates.startsWith('nothing:')).map(([f]) => f);
    expect(gating.sort()).toEqual(Object.keys(ENFORCED).sort());
  });

  for (const [field, c] of Object.entries(ENFORCED)) {
    it(`${field}: ${c.where}`, () => c.show());
  }
});
