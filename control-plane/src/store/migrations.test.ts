// Migration 6 on a database made by the earlier migrations, with data in it: endpoint ids become
// AUTOINCREMENT (never reused) and nothing else changes.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { openDatabase } from './db';
import { MIGRATIONS } from './migrations';

describe('migration 6 (hardening_agents)', () => {
  it('rebuilds endpoints with AUTOINCREMENT keeping every column, index, foreign key and row; a deleted id is never given again', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'upfleet-migrate-'));
    const file = path.join(dir, 'upfleet.db');
    try {
      // A database as the earlier migrations left it.
      const old = new Database(file);
      old.pragma('foreign_keys = ON');
      old.exec('CREATE TABLE schema_migrations (id INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)');
      for (const m of MIGRATIONS.filter((x) => x.id < 6)) {
        old.exec(m.sql);
        m.run?.(old);
        old.prepare('INSERT INTO schema_migrations VALUES (?, ?, ?)').run(m.id, m.name, 'then');
      }
      old.exec(`INSERT INTO packages (package_id, package_name, price, max_endpoints, max_regions, check_frequency_seconds, retention_days,
        ssl_monitoring, advanced_alerts, api_access, multi_region, ping_host, cert_expiry, response_code, response_time) VALUES (1, 'Free', 0, 10, 1, 300, 30, 0, 0, 0, 0, 0, 0, 1, 0)`);
      old.exec(`INSERT INTO monitor_types (monitor_type_id, type_code, display_name, requires_primary_region) VALUES (1, 'response_code', 'Response Code', 1)`);
      old.exec(`INSERT INTO users (id, username, email, password_hash, package_id) VALUES (1, 'ann', 'ann@example.com', 'h', 1)`);
      for (const id of [1, 2, 3]) {
        old.prepare(`INSERT INTO endpoints (url_id, guid, user_id, name, url, created_at) VALUES (?, ?, 1, ?, ?, '2026-01-0${id}T00:00:00.000Z')`).run(id, `g${id}`, `e${id}`, `https://example.com/${id}`);
      }
      old.exec(`INSERT INTO alert_thresholds (url_id, user_id, monitor_type_id, threshold_value, threshold_operator) VALUES (2, 1, 1, 500, '>=')`);
      const columnsBefore = old.prepare("SELECT name, type, \"notnull\", dflt_value, pk FROM pragma_table_info('endpoints')").all();
      const indexesBefore = old.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'endpoints' ORDER BY name").all();
      const rowsBefore = old.prepare('SELECT * FROM endpoints ORDER BY url_id').all();
      old.close();

      const db = openDatabase(file);
      expect(db.prepare("SELECT sql FROM sqlite_master WHERE name = 'endpoints'").pluck().get()).toMatch(/url_id INTEGER PRIMARY KEY AUTOINCREMENT/);
      // migration 60 adds the endpoint's own check interval after every earlier column
      const added = { name: 'check_frequency_seconds', type: 'INTEGER', notnull: 0, dflt_value: null, pk: 0 };
      // migration 95: the endpoint's escalation policy and the endpoint it depends on
      const links = ['escalation_policy_id', 'depends_on'].map((name) => ({ name, type: 'bigint', notnull: 0, dflt_value: null, pk: 0 }));
      // migration 100: its SLO target and window
      const slo = [
        { name: 'slo_target', type: 'double precision', notnull: 0, dflt_value: null, pk: 0 },
        { name: 'slo_window_days', type: 'bigint', notnull: 1, dflt_value: '30', pk: 0 },
      ];
      expect(db.prepare("SELECT name, type, \"notnull\", dflt_value, pk FROM pragma_table_info('endpoints')").all()).toEqual([...columnsBefore, added, ...links, ...slo]);
      expect(db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'endpoints' ORDER BY name").all()).toEqual(indexesBefore);
      expect(db.prepare('SELECT * FROM endpoints ORDER BY url_id').all()).toEqual(rowsBefore.map((r) => ({ ...(r as object), check_frequency_seconds: null, escalation_policy_id: null, depends_on: null, slo_target: null, slo_window_days: 30 })));
      expect(db.prepare('SELECT COUNT(*) FROM alert_thresholds WHERE url_id = 2').pluck().get()).toBe(1);
      expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
      expect(db.prepare("SELECT name FROM pragma_table_info('agent_tokens')").pluck().all()).toContain('max_uses');

      // the foreign key still holds: deleting an endpoint removes its thresholds
      db.prepare('DELETE FROM endpoints WHERE url_id = 2').run();
      expect(db.prepare('SELECT COUNT(*) FROM alert_thresholds').pluck().get()).toBe(0);
      // the highest id deleted is not given out again
      db.prepare('DELETE FROM endpoints WHERE url_id = 3').run();
      const next = db.prepare(`INSERT INTO endpoints (guid, user_id, name, url) VALUES ('g4', 1, 'e4', 'https://example.com/4')`).run().lastInsertRowid;
      expect(Number(next)).toBe(4);
      db.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
