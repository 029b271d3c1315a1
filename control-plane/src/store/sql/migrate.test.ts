// The schema on both databases: the Postgres baseline plus later `steps` equal what the SQLite
// migrations build, several processes starting together migrate once, and a schema newer than
// the code stops a process with one line.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness } from '../../testing/harness';
import { postgresMissing, startPostgres, type PostgresServer } from '../../testing/postgres';
import { openDatabase, type Db } from '../db';
import { MIGRATIONS, type Migration } from '../migrations';
import { migratePostgres } from './migrate-postgres';
import { openSql } from './open';

// A later migration as the next engineers will write them: once, with Kysely's builders.
const LATER: Migration = {
  id: 990,
  name: 'probe_notes',
  sql: '',
  steps: (db) => [
    db.schema.createTable('probe_notes')
      .addColumn('note_id', 'bigint', (c) => c.primaryKey())
      .addColumn('url_id', 'bigint', (c) => c.notNull().references('endpoints.url_id').onDelete('cascade'))
      .addColumn('body', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('weight', 'double precision'),
    db.schema.createIndex('probe_notes_url').on('probe_notes').column('url_id'),
    db.schema.alterTable('packages').addColumn('max_notes', 'bigint', (c) => c.notNull().defaultTo(5)),
  ],
};

type Column = { table: string; column: string; type: string; notNull: boolean };

const SQLITE_TYPES: Record<string, string> = { INTEGER: 'bigint', BIGINT: 'bigint', TEXT: 'text', REAL: 'double precision', 'DOUBLE PRECISION': 'double precision' };

function sqliteColumns(db: Db): Column[] {
  const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").pluck().all() as string[];
  return tables.flatMap((table) =>
    (db.prepare(`SELECT name, type, "notnull", pk FROM pragma_table_info('${table}')`).all() as { name: string; type: string; notnull: number; pk: number }[])
      // A key column is NOT NULL in Postgres; SQLite only says so where it enforces it.
      .map((c) => ({ table, column: c.name, type: SQLITE_TYPES[c.type.toUpperCase()] ?? c.type, notNull: c.notnull === 1 || c.pk > 0 })),
  ).sort(byName);
}

async function postgresColumns(db: Kysely<any>): Promise<Column[]> {
  const { rows } = await sql<{ table_name: string; column_name: string; data_type: string; is_nullable: string }>`
    SELECT table_name, column_name, data_type, is_nullable FROM information_schema.columns WHERE table_schema = 'public'`.execute(db);
  return rows.map((r) => ({ table: r.table_name, column: r.column_name, type: r.data_type, notNull: r.is_nullable === 'NO' })).sort(byName);
}

function byName(a: Column, b: Column): number {
  return a.table.localeCompare(b.table) || a.column.localeCompare(b.column);
}

function sqliteIndexes(db: Db): string[] {
  return (db.prepare("SELECT name FROM sqlite_master WHERE type IN ('index', 'trigger') AND sql IS NOT NULL ORDER BY name").pluck().all() as string[]);
}

async function postgresIndexes(db: Kysely<any>): Promise<string[]> {
  // Keys and UNIQUE columns make indexes named after their constraint (autoindexes in SQLite).
  const { rows } = await sql<{ name: string }>`
    SELECT indexname AS name FROM pg_indexes WHERE schemaname = 'public' AND indexname NOT IN (SELECT conname FROM pg_constraint)
    UNION SELECT tgname FROM pg_trigger WHERE NOT tgisinternal`.execute(db);
  return rows.map((r) => r.name).sort();
}

function tempSqlite(migrations?: Migration[]): { db: Db; file: string; cleanup: () => void } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'upfleet-sql-'));
  const file = path.join(dir, 'upfleet.db');
  const db = openDatabase(file, migrations);
  return { db, file, cleanup: () => { db.close(); rmSync(dir, { recursive: true, force: true }); } };
}

function kyselyOn(url: string): Kysely<any> {
  return new Kysely<any>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url, max: 2 }) }) });
}

describe('SQLite migrations', () => {
  it('refuse to start on a schema newer than the code, with one line naming the unknown migration', () => {
    const s = tempSqlite([...MIGRATIONS, LATER]);
    s.db.close();
    try {
      let message = '';
      try {
        openDatabase(s.file);
      } catch (err) {
        message = (err as Error).message;
      }
      expect(message).toBe('The database schema is newer than this Upfleet: migration 990 (probe_notes) is unknown to it. Run the newer version, or restore the backup taken before the upgrade.');
      expect(message).not.toContain('\n');
    } finally {
      s.cleanup();
    }
  });

  it('apply a migration written with Kysely builders, on an existing database', () => {
    const s = tempSqlite();
    s.db.close();
    const db = openDatabase(s.file, [...MIGRATIONS, LATER]);
    try {
      expect(db.prepare("SELECT name, \"notnull\" FROM pragma_table_info('probe_notes') ORDER BY cid").all())
        .toEqual([{ name: 'note_id', notnull: 0 }, { name: 'url_id', notnull: 1 }, { name: 'body', notnull: 1 }, { name: 'weight', notnull: 0 }]);
      expect(db.prepare('SELECT max_notes FROM packages LIMIT 1').pluck().get() ?? 5).toBe(5);
      expect(db.prepare('SELECT name FROM schema_migrations WHERE id = 990').pluck().get()).toBe('probe_notes');
    } finally {
      db.close();
      s.cleanup();
    }
  });

  it('migration 80 gives rate-limit events an id key, keeping each row with its old rowid', () => {
    const s = tempSqlite(MIGRATIONS.filter((m) => m.id < 80));
    s.db.prepare('INSERT INTO rate_limit_events (bucket, key, ts) VALUES (?, ?, ?)').run('login_ip', '10.0.0.1', 1000);
    s.db.prepare('INSERT INTO rate_limit_events (bucket, key, ts) VALUES (?, ?, ?)').run('login_ip', '10.0.0.2', 2000);
    s.db.prepare('DELETE FROM rate_limit_events WHERE ts = 1000').run();
    s.db.prepare('INSERT INTO rate_limit_events (bucket, key, ts) VALUES (?, ?, ?)').run('signup_ip', '10.0.0.3', 3000);
    const before = s.db.prepare('SELECT rowid AS id, bucket, key, ts FROM rate_limit_events ORDER BY rowid').all();
    s.db.close();
    const db = openDatabase(s.file);
    try {
      expect(db.prepare('SELECT id, bucket, key, ts FROM rate_limit_events ORDER BY id').all()).toEqual(before);
      expect(db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'rate_limit_events'").pluck().all()).toEqual(['rate_limit_events_key']);
    } finally {
      db.close();
      s.cleanup();
    }
  });

  it('are applied once when two processes open a new database at the same moment', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'upfleet-sql-'));
    const file = path.join(dir, 'upfleet.db');
    const dbModule = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'db.ts');
    // Each process loads the code, says so, and migrates when told: all of them at the same moment.
    const script = `const { openDatabase } = await import(${JSON.stringify(dbModule)});
      console.log('ready');
      process.stdin.once('data', () => { openDatabase(${JSON.stringify(file)}).close(); console.log('ok'); process.exit(0); });`;
    const children = [0, 1, 2].map(() => spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['pipe', 'pipe', 'pipe'] }));
    const outputs = children.map(() => '');
    const ready = children.map((child, i) => new Promise<void>((resolve) => {
      child.stdout.on('data', (d: Buffer) => { outputs[i] += d.toString(); if (outputs[i]!.includes('ready')) resolve(); });
      child.stderr.on('data', (d: Buffer) => { outputs[i] += d.toString(); });
      child.on('exit', () => resolve());
    }));
    const exited = children.map((child, i) => new Promise<{ code: number | null; out: string }>((resolve) => {
      child.on('exit', (code) => resolve({ code, out: outputs[i]! }));
    }));
    try {
      await Promise.all(ready);
      for (const child of children) child.stdin.write('go\n');
      const results = await Promise.all(exited);
      for (const r of results) expect(r, r.out).toMatchObject({ code: 0 });
      const db = openDatabase(file);
      const ids = db.prepare('SELECT id FROM schema_migrations ORDER BY id').pluck().all();
      db.close();
      expect(ids).toEqual(MIGRATIONS.map((m) => m.id).sort((a, b) => a - b));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

const missing = postgresMissing();

describe.skipIf(missing)(`Postgres migrations${missing ? ` (skipped: ${missing})` : ''}`, () => {
  let server: PostgresServer;
  beforeAll(async () => { server = await startPostgres(); });
  afterAll(async () => { await server?.stop(); });

  it('give Postgres every table, column, index and trigger the SQLite migrations give SQLite', async () => {
    const s = tempSqlite();
    const db = kyselyOn(await server.createDatabase());
    try {
      await migratePostgres(db);
      expect(await postgresColumns(db)).toEqual(sqliteColumns(s.db));
      expect(await postgresIndexes(db)).toEqual(sqliteIndexes(s.db));
    } finally {
      await db.destroy();
      s.cleanup();
    }
  });

  it('run a later migration written with Kysely builders to the same schema on both', async () => {
    const s = tempSqlite([...MIGRATIONS, LATER]);
    const db = kyselyOn(await server.createDatabase());
    try {
      await migratePostgres(db, [...MIGRATIONS, LATER]);
      expect(await postgresColumns(db)).toEqual(sqliteColumns(s.db));
      expect(await postgresIndexes(db)).toEqual(sqliteIndexes(s.db));
    } finally {
      await db.destroy();
      s.cleanup();
    }
  });

  it('give every person a personal workspace on Postgres too (the trigger of migration 20)', async () => {
    const db = kyselyOn(await server.createDatabase());
    try {
      await migratePostgres(db);
      await sql`INSERT INTO packages (package_id, package_name, price, max_endpoints, max_regions, check_frequency_seconds, retention_days, ssl_monitoring,
        advanced_alerts, api_access, multi_region, ping_host, cert_expiry, response_code, response_time) VALUES (1, 'Free', 0, 10, 1, 300, 30, 0, 0, 0, 0, 0, 0, 1, 0)`.execute(db);
      await sql`INSERT INTO users (username, email, password_hash, package_id) VALUES ('ann', 'ann@example.com', 'h', 1)`.execute(db);
      await sql`INSERT INTO users (username, email, password_hash, package_id, kind) VALUES ('Acme', 'acme@workspace.invalid', '', 1, 'workspace')`.execute(db);
      const { rows } = await sql`SELECT w.id::int AS id, w.name, w.personal::int AS personal, m.role FROM workspaces w
        JOIN workspace_members m ON m.workspace_id = w.id JOIN users u ON u.id = w.id ORDER BY w.id`.execute(db);
      expect(rows).toEqual([{ id: 1, name: 'Personal', personal: 1, role: 'owner' }]);
      await expect(sql`INSERT INTO users (username, email, password_hash, package_id) VALUES ('ANN', 'x@example.com', 'h', 1)`.execute(db))
        .rejects.toThrow(/users_username/);
    } finally {
      await db.destroy();
    }
  });

  it('refuse a migration with SQLite-only SQL after the baseline', async () => {
    const db = kyselyOn(await server.createDatabase());
    try {
      await expect(migratePostgres(db, [...MIGRATIONS, { id: 991, name: 'sqlite_only', sql: 'CREATE TABLE x (id INTEGER)' }]))
        .rejects.toThrow("migration 991 (sqlite_only) has SQLite-only parts: write it with Kysely's builders in steps (see docs/architecture.md)");
      const tables = await sql<{ n: number }>`SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema = 'public'`.execute(db);
      expect(tables.rows[0]!.n).toBe(0);
    } finally {
      await db.destroy();
    }
  });

  it('are applied once when several processes start together on one database', async () => {
    const url = await server.createDatabase();
    const migrations = [...MIGRATIONS, LATER];
    const dbs = [kyselyOn(url), kyselyOn(url), kyselyOn(url)];
    try {
      await Promise.all(dbs.map((db) => migratePostgres(db, migrations)));
      const { rows } = await sql<{ id: number; n: number }>`SELECT id::int AS id, count(*)::int AS n FROM schema_migrations GROUP BY id ORDER BY id`.execute(dbs[0]!);
      expect(rows).toEqual(migrations.map((m) => ({ id: m.id, n: 1 })).sort((a, b) => a.id - b.id));
    } finally {
      await Promise.all(dbs.map((db) => db.destroy()));
    }
  });

  it('refuse to start on a schema newer than the code, with the same line as SQLite', async () => {
    const url = await server.createDatabase();
    const newer = await openSqlWith(url, [...MIGRATIONS, LATER]);
    await newer.destroy();
    await expect(openSql({ dialect: 'postgres', url })).rejects.toThrow(
      /^The database schema is newer than this Upfleet: migration 990 \(probe_notes\) is unknown to it\. Run the newer version, or restore the backup taken before the upgrade\.$/,
    );
  });

  it('with DATABASE_URL, a control plane migrates the Postgres schema and keeps serving from SQLite', async () => {
    const url = await server.createDatabase();
    const h = await startHarness({ DATABASE_URL: url });
    try {
      const { token } = await h.signup();
      expect((await h.call('GET', '/api/auth/validate-session', undefined, token)).status).toBe(200);
    } finally {
      await h.close();
    }
    const db = kyselyOn(url);
    try {
      const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM schema_migrations`.execute(db);
      expect(rows[0]!.n).toBe(MIGRATIONS.length);
    } finally {
      await db.destroy();
    }
  });

  it('with DATABASE_URL on a newer schema, a control plane refuses to start with the one line', async () => {
    const url = await server.createDatabase();
    await (await openSqlWith(url, [...MIGRATIONS, LATER])).destroy();
    await expect(startHarness({ DATABASE_URL: url })).rejects.toThrow(/^The database schema is newer than this Upfleet: migration 990 \(probe_notes\)/);
  });

  async function openSqlWith(url: string, migrations: Migration[]): Promise<Kysely<any>> {
    const db = kyselyOn(url);
    await migratePostgres(db, migrations);
    return db;
  }
});
