// `db copy` from a stopped SQLite deployment into a fresh Postgres: a database holding every kind
// of row (seed, and users, workspaces, endpoints, alert methods, an incident, status pages,
// maintenance and audit made through the API) arrives with equal counts per table; a second copy
// is refused; keys continue after the copied ones; a running control plane's data is not copied.
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../testing/harness';
import { postgresMissing, startPostgres, type PostgresServer } from '../../testing/postgres';
import { openDatabase } from '../db';
import { copySqliteToPostgres, CopyRefused, type CopiedTable } from './copy';

const missing = postgresMissing();

describe.skipIf(missing)(`db copy into Postgres${missing ? ` (skipped: ${missing})` : ''}`, () => {
  let server: PostgresServer;
  let h: Harness;
  let clock = Date.parse('2026-06-01T10:00:00Z');
  beforeAll(async () => {
    server = await startPostgres();
    h = await startHarness({}, { results: null, now: () => clock, heartbeatTickMs: 3600_000 });
    const owner = await h.signup('copy_owner');
    await h.setPackage(owner.user.email, 'Pro');
    const t = owner.token;
    const make = async (p: string, body: unknown, headers?: Record<string, string>) => {
      const r = await h.call('POST', p, body, t, headers);
      expect(r.status, `${p} ${JSON.stringify(r.body)}`).toBe(201);
      return r.body.data;
    };
    const member = await h.signup('copy_member');
    const team = await make('/api/workspaces', { name: 'Team' });
    const list = (await h.call('GET', '/api/admin/workspaces', undefined, h.cp.adminToken)).body.data as Array<{ id: number; account_email: string }>;
    await h.setPackage(list.find((w) => w.id === team.id)!.account_email, 'Pro');
    const inv = await make(`/api/workspaces/${team.id}/invitations`, { email: member.user.email, role: 'editor' });
    const invToken = /\/invitations\/([A-Za-z0-9_-]+)$/.exec(inv.link)![1];
    expect((await h.call('POST', `/api/invitations/${invToken}/accept`, undefined, member.token)).status).toBe(200);
    const site = await make('/api/users/endpoints', { name: 'Site', url: 'https://example.com/', regions: ['EU-Germany'], response_code: true });
    await make('/api/users/alert-methods', { platform: 'webhook', platform_config: { webhook_url: 'https://hooks.example.com/a' } });
    const page = await make('/api/users/status-pages', { slug: 'copy-status', title: 'Copy status' });
    await make(`/api/users/status-pages/${page.id}/reports`, { title: 'Slow', message: 'Looking' });
    await make('/api/users/maintenance-windows', { title: 'Upgrade', endpoint_ids: [site.url_id], starts_at: new Date(Date.now() + 3600_000).toISOString(), ends_at: new Date(Date.now() + 7200_000).toISOString() });
    await make('/api/users/api-keys', { name: 'ci' });
    // An incident: a heartbeat pinged once, then silent past its period.
    const hb = await make('/api/users/endpoints', { name: 'Nightly', kind: 'heartbeat', period_seconds: 60, grace_seconds: 0 });
    expect((await fetch(hb.ping_url)).status).toBe(200);
    clock += 61_000;
    expect(h.cp.tickHeartbeats()).toBe(1);
  }, 120_000);
  afterAll(async () => {
    await h?.close();
    await server?.stop();
  });

  it('refuses while the control plane runs on that DATA_DIR', async () => {
    const url = await server.createDatabase();
    await expect(copySqliteToPostgres({ dataDir: h.dataDir, to: url })).rejects.toThrow(/Another Upfleet control plane \(pid \d+\) is running on DATA_DIR/);
  });

  it('copies every table with equal counts, refuses a second copy, and keys continue after the copied ones', async () => {
    await h.cp.close();
    const reopen = () => h.restart();
    try {
      const url = await server.createDatabase();
      const printed: CopiedTable[] = [];
      const copied = await copySqliteToPostgres({ dataDir: h.dataDir, to: url, batchRows: 2, onTable: (t) => printed.push(t) });
      expect(printed).toEqual(copied);

      // Per table, what SQLite holds.
      const source = openDatabase(`${h.dataDir}/upfleet.db`);
      const counts = Object.fromEntries(copied.map((c) => [c.table, source.prepare(`SELECT COUNT(*) FROM "${c.table}"`).pluck().get() as number]));
      const maxUser = source.prepare('SELECT MAX(id) FROM users').pluck().get() as number;
      source.close();
      for (const c of copied) expect(c.rows, c.table).toBe(counts[c.table]);
      for (const table of ['users', 'workspaces', 'workspace_members', 'workspace_invitations', 'endpoints', 'alert_methods', 'incidents', 'status_pages', 'maintenance_windows', 'audit_log', 'packages', 'regions', 'api_keys']) {
        expect(counts[table], table).toBeGreaterThan(0);
      }

      const db = new Kysely<any>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url, max: 1 }) }) });
      try {
        for (const c of copied) {
          const { rows } = await sql<{ n: string }>`SELECT COUNT(*) AS n FROM ${sql.table(c.table)}`.execute(db);
          expect(Number(rows[0].n), c.table).toBe(c.rows);
        }
        // Secrets as they were: the alert method's config is the same ciphertext.
        const pgUser = await sql<{ password_hash: string }>`SELECT password_hash FROM users WHERE username = 'copy_owner'`.execute(db);
        const sqlite = openDatabase(`${h.dataDir}/upfleet.db`);
        expect(pgUser.rows[0].password_hash).toBe(sqlite.prepare("SELECT password_hash FROM users WHERE username = 'copy_owner'").pluck().get());
        sqlite.close();
        // The next user gets the next key (and its personal workspace from the trigger, on again).
        const next = await sql<{ id: number }>`INSERT INTO users (username, email, password_hash, package_id)
          SELECT 'after_copy', 'after@example.com', 'x', package_id FROM packages ORDER BY package_id LIMIT 1 RETURNING id`.execute(db);
        expect(Number(next.rows[0].id)).toBe(maxUser + 1);
        const personal = await sql<{ n: string }>`SELECT COUNT(*) AS n FROM workspaces WHERE id = ${maxUser + 1}`.execute(db);
        expect(Number(personal.rows[0].n)).toBe(1);
      } finally {
        await db.destroy();
      }

      const again = copySqliteToPostgres({ dataDir: h.dataDir, to: url });
      await expect(again).rejects.toBeInstanceOf(CopyRefused);
      await expect(again).rejects.toThrow(/^Postgres is not empty \(table \w+ has \d+ rows\): copy only into a new, empty database$/);
    } finally {
      await reopen();
    }
  }, 120_000);
});
