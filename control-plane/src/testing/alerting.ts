// Real SQLite on a temp dir with a Business user, endpoints, thresholds and alert methods, for the
// alerting unit tests and the alerting benchmark. No module mocks: the repos are the real ones.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { CheckResult } from '@upfleet/proto';
import type { AlertPlatform, Feature, ThresholdOperator } from '@upfleet/proto/rest';
import { createSecretBox } from '../lib/crypto';
import { createAlertsRepo } from '../alerting/settings-repo';
import { openDatabase, type Db } from '../store/db';
import { createEndpointsRepo } from '../store/endpoints-repo';
import { seedDatabase } from '../store/seed';

export interface AlertingFixture {
  db: Db;
  dir: string;
  box: ReturnType<typeof createSecretBox>;
  userId: number;
  addEndpoint(opts?: { regions?: string[]; features?: Partial<Record<Feature, boolean>>; url?: string; name?: string }): number;
  addThreshold(urlId: number, type: Feature, operator: ThresholdOperator, value: number, region?: string | null): void;
  addMethod(platform: AlertPlatform, config: Record<string, string>, enabled?: boolean): number;
  close(): void;
}

export function createAlertingFixture(plan = 'Business'): AlertingFixture {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'upfleet-alerting-'));
  const db = openDatabase(path.join(dir, 'upfleet.db'));
  seedDatabase(db);
  const packageId = db.prepare('SELECT package_id FROM packages WHERE package_name = ?').pluck().get(plan) as number;
  // Synchronous on purpose (the fixture is built outside async code): the users repo is Kysely now.
  const userId = Number(db.prepare('INSERT INTO users (username, email, password_hash, package_id) VALUES (?, ?, ?, ?)')
    .run(`u${crypto.randomUUID().slice(0, 8)}`, `${crypto.randomUUID()}@example.com`, 'x', packageId).lastInsertRowid);
  const endpoints = createEndpointsRepo(db);
  const alerts = createAlertsRepo(db);
  const box = createSecretBox(crypto.randomBytes(32));
  let n = 0;
  const typeId = db.prepare('SELECT monitor_type_id FROM monitor_types WHERE type_code = ?').pluck();
  const regionId = db.prepare("SELECT region_id FROM regions WHERE region || '-' || city = ?").pluck();
  const insThreshold = db.prepare(`INSERT INTO alert_thresholds (url_id, user_id, monitor_type_id, region_id, threshold_value, threshold_operator, is_enabled)
    VALUES (?, ?, ?, ?, ?, ?, 1)`);
  return {
    db, dir, box, userId,
    addEndpoint(opts = {}) {
      n++;
      return endpoints.insert(userId, crypto.randomUUID(), {
        name: opts.name ?? `Site ${n}`, url: opts.url ?? `https://site${n}.example.com/`, description: '',
        regions: opts.regions ?? ['EU-Germany'], ping_host: false, cert_expiry: false, response_code: true, response_time: false,
        ...opts.features,
      });
    },
    addThreshold(urlId, type, operator, value, region = null) {
      insThreshold.run(urlId, userId, typeId.get(type), region === null ? null : regionId.get(region), value, operator);
    },
    addMethod(platform, config, enabled = true) {
      return alerts.insertMethod(userId, platform, enabled, box.seal(JSON.stringify(config)));
    },
    close() {
      db.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** An HTTP result; override what the case needs. */
export function httpResult(endpointId: number, tsMs: number, over: Partial<CheckResult> = {}): CheckResult {
  return {
    check_id: `${endpointId}:http:${over.region ?? 'EU-Germany'}`, endpoint_id: endpointId, kind: 'CHECK_KIND_HTTP', region: 'EU-Germany',
    ts_ms: tsMs, ok: true, phase: '', error: '', status_code: 200, dns_ms: 1, connect_ms: 1, tls_ms: 0,
    ttfb_ms: 5, total_ms: 10, cert_days_left: 0, cert_not_after_ms: 0, cert_issuer: '', cert_subject: '',
    ping_method: '', redirects: 0, retention_days: 365, result_id: crypto.randomUUID(), ...over,
  };
}
