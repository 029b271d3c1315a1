// Migration 20 (workspaces) on a database made by the previous release (every migration before it),
// with data in it: each user gets a personal workspace owning everything they had, and the running
// control plane answers every route, session and API key as before.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { hashPassword, sha256 } from '../lib/crypto';
import { startHarness, type Harness } from '../testing/harness';
import { MIGRATIONS } from './migrations';

const dir = mkdtempSync(path.join(os.tmpdir(), 'upfleet-ws-migrate-'));
let h: Harness | null = null;
afterAll(async () => {
  await h?.close();
  rmSync(dir, { recursive: true, force: true });
});

const KEY = 'upk_previousreleasekey0123456789abcdef';
const OWNED = ['endpoints', 'alert_thresholds', 'alert_methods', 'incidents', 'api_keys', 'billing_customers', 'billing_subscriptions', 'plan_changes'];

describe('migration 20 (workspaces) on a previous release\'s database', () => {
  it('gives each user a personal workspace that owns all they had; routes, sessions and keys answer as before', async () => {
    const file = path.join(dir, 'upfleet.db');
    const old = new Database(file);
    old.pragma('foreign_keys = ON');
    old.exec('CREATE TABLE schema_migrations (id INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)');
    for (const m of MIGRATIONS.filter((x) => x.id < 20)) {
      old.exec(m.sql);
      m.run?.(old);
      old.prepare('INSERT INTO schema_migrations VALUES (?, ?, ?)').run(m.id, m.name, 'then');
    }
    const pkg = old.prepare(`INSERT INTO packages (package_id, package_name, price, max_endpoints, max_regions, check_frequency_seconds, retention_days,
      ssl_monitoring, advanced_alerts, api_access, multi_region, ping_host, cert_expiry, response_code, response_time, sort_order) VALUES (?, ?, ?, ?, 1, 300, 30, 0, 0, ?, 0, 0, 0, 1, 0, ?)`);
    pkg.run(1, 'Free', 0, 10, 0, 0);
    pkg.run(2, 'Starter', 9, 50, 0, 1);
    pkg.run(3, 'Pro', 29, 200, 1, 2);
    old.exec(`INSERT INTO regions (region, city, primary_region) VALUES ('EU', 'Germany', 1)`);
    old.exec(`INSERT INTO monitor_types (monitor_type_id, type_code, display_name, requires_primary_region) VALUES (3, 'response_code', 'Response Code', 1)`);
    const hash = await hashPassword('correct horse');
    old.prepare(`INSERT INTO users (id, username, email, password_hash, package_id) VALUES (7, 'ann', 'ann@example.com', ?, 3)`).run(hash);
    old.prepare(`INSERT INTO users (id, username, email, password_hash, package_id) VALUES (9, 'bob', 'bob@example.com', ?, 1)`).run(hash);
    for (const [id, user] of [[1, 7], [2, 7], [3, 9]]) {
      old.prepare(`INSERT INTO endpoints (url_id, guid, user_id, name, url, regions) VALUES (?, ?, ?, ?, ?, '["EU-Germany"]')`).run(id, `g${id}`, user, `site ${id}`, `https://example.com/${id}`);
    }
    old.exec(`INSERT INTO alert_thresholds (url_id, user_id, monitor_type_id, threshold_value, threshold_operator) VALUES (2, 7, 3, 500, '>=')`);
    old.exec(`INSERT INTO alert_methods (user_id, platform, config_enc) VALUES (7, 'email', 'sealed')`);
    old.prepare(`INSERT INTO incidents (user_id, url_id, condition, cause, opened_at, resolved_at) VALUES (7, 1, 'response_code', 'HTTP 500', ?, ?)`).run(Date.now() - 60_000, Date.now() - 30_000);
    old.prepare(`INSERT INTO api_keys (user_id, name, prefix, key_hash) VALUES (7, 'ci', ?, ?)`).run(KEY.slice(0, 12), sha256(KEY));
    old.exec(`INSERT INTO billing_customers (stripe_customer_id, user_id, created_at) VALUES ('cus_1', 7, 1)`);
    old.exec(`INSERT INTO billing_subscriptions (stripe_subscription_id, user_id, stripe_customer_id, stripe_price_id, status, created, updated_at) VALUES ('sub_1', 7, 'cus_1', 'price_pro', 'active', 1, 1)`);
    old.exec(`INSERT INTO plan_changes (user_id, from_package, to_package, reason, message, details, created_at) VALUES (7, 'Free', 'Pro', 'upgrade', 'Welcome to Pro', '{}', 1)`);
    const ownedBefore = Object.fromEntries(OWNED.map((t) => [t, old.prepare(`SELECT * FROM ${t} ORDER BY rowid`).all()]));
    old.close();

    h = await startHarness({ DATA_DIR: dir });
    const login = await h.call('POST', '/api/auth/login', { email: 'ann@example.com', password: 'correct horse' });
    expect(login.status).toBe(200);
    const token = login.body.data.accessToken as string;

    expect((await h.call('GET', '/api/workspaces', undefined, token)).body.data).toEqual([
      expect.objectContaining({ id: 7, name: 'Personal', personal: true, role: 'owner', package_name: 'Pro' }),
    ]);
    const list = await h.call('GET', '/api/users/endpoints-with-uptime', undefined, token);
    expect(list.body.data.map((e: { url_id: number }) => e.url_id)).toEqual([1, 2]);
    expect((await h.call('GET', '/api/users/endpoints-with-uptime', undefined, token, { 'x-workspace-id': '7' })).body.data).toEqual(list.body.data);
    expect((await h.call('GET', '/api/users/endpoints/2/alert-thresholds', undefined, token)).body.data[0]).toMatchObject({ threshold_value: 500 });
    expect((await h.call('GET', '/api/users/dashboard', undefined, token)).body.data).toMatchObject({ total_endpoints: 2, package_name: 'Pro' });
    // the key made before keeps working, in ann's workspace, as its owner
    const viaKey = await h.call('GET', '/api/users/endpoints-with-uptime', undefined, KEY);
    expect(viaKey.status).toBe(200);
    expect(viaKey.body.data).toEqual(list.body.data);
    expect((await h.call('POST', '/api/users/endpoints', { name: 'by key', url: 'https://example.com/k', regions: ['EU-Germany'], response_code: true }, KEY)).status).toBe(201);
    // bob sees his own, nothing of ann's
    const bob = (await h.call('POST', '/api/auth/login', { email: 'bob@example.com', password: 'correct horse' })).body.data.accessToken;
    expect((await h.call('GET', '/api/users/endpoints-with-uptime', undefined, bob)).body.data.map((e: { url_id: number }) => e.url_id)).toEqual([3]);
    expect((await h.call('GET', '/api/users/dashboard', undefined, bob, { 'x-workspace-id': '7' })).status).toBe(404);
    // the admin list still shows the two people, now with their workspace
    const users = (await h.call('GET', '/api/admin/users', undefined, h.cp.adminToken)).body.data;
    expect(users.map((u: { email: string; workspaces: string }) => [u.email, u.workspaces])).toEqual([
      ['ann@example.com', 'Personal #7 (owner)'], ['bob@example.com', 'Personal #9 (owner)'],
    ]);
    // the plans got their member limits
    expect((await h.call('GET', '/api/public/packages')).body.data.map((p: { max_members: number }) => p.max_members)).toEqual([1, 3, 10]);

    const db = new Database(file, { readonly: true });
    for (const t of OWNED) {
      const rows = db.prepare(`SELECT * FROM ${t} ORDER BY rowid`).all() as Array<Record<string, unknown>>;
      const before = ownedBefore[t] as Array<Record<string, unknown>>;
      // nothing lost or rewritten (api_keys gained created_by; endpoints gained the one made by the key,
      // and later their own check interval, escalation policy and dependency, NULL for every endpoint made before them)
      expect(rows.slice(0, before.length).map((r) => ({ ...r, created_by: undefined, last_used_at: undefined })))
        .toEqual(before.map((r) => ({ ...r, created_by: undefined, last_used_at: undefined, ...(t === 'endpoints' ? { check_frequency_seconds: null, escalation_policy_id: null, depends_on: null, slo_target: null, slo_window_days: 30 } : {}),
          // incidents gained who acknowledged them, the parent incident that silenced them, and their storm group
          ...(t === 'incidents' ? { acknowledged_at: null, acknowledged_by: null, suppressed_by: null, group_id: null, group_recovery_sent: 0 } : {}) })));
    }
    expect(db.prepare('SELECT created_by FROM api_keys').pluck().all()).toEqual([7]);
    expect(db.prepare('SELECT workspace_id, user_id, role FROM workspace_members ORDER BY workspace_id').all()).toEqual([
      { workspace_id: 7, user_id: 7, role: 'owner' }, { workspace_id: 9, user_id: 9, role: 'owner' },
    ]);
    db.close();
  });
});
