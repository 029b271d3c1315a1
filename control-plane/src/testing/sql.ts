// Runs a repo's tests on both databases: `describe.each(SQL_DIALECTS)` and, inside, `freshSql(d)`
// for a migrated, empty database per test (SQLite in a temp dir; Postgres: one server per test
// file, one database per test). Postgres tests skip, with the reason in their name, only when
// the binaries are absent.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { openDatabase } from '../store/db';
import { openSql, type Sql, type SqlDialect } from '../store/sql/open';
import { postgresMissing, startPostgres, type PostgresServer } from './postgres';

export interface SqlDialectCase {
  dialect: SqlDialect;
  /** For the describe's name: 'SQLite', 'Postgres', or why Postgres is skipped. */
  title: string;
  skip: string | null;
}

const missing = postgresMissing();
export const SQL_DIALECTS: SqlDialectCase[] = [
  { dialect: 'sqlite', title: 'SQLite', skip: null },
  { dialect: 'postgres', title: missing ? `Postgres (skipped: ${missing})` : 'Postgres', skip: missing },
];

let server: Promise<PostgresServer> | null = null;
let users = 0;

/** Registers the hooks; the returned function gives the current test's database. */
export function freshSql(d: SqlDialectCase): () => Sql {
  let current: { sql: Sql; cleanup: () => Promise<void> } | null = null;
  if (d.skip) {
    beforeEach((ctx) => ctx.skip());
    return () => { throw new Error(d.skip!); };
  }
  if (d.dialect === 'postgres') {
    beforeAll(async () => { server ??= startPostgres(); await server; });
    afterAll(async () => {
      const s = server;
      server = null;
      await (await s)?.stop();
    });
  }
  beforeEach(async () => {
    if (d.dialect === 'postgres') {
      const sql = await openSql({ dialect: 'postgres', url: await (await server!).createDatabase(), poolSize: 4 });
      current = { sql, cleanup: () => sql.close() };
    } else {
      const dir = mkdtempSync(path.join(os.tmpdir(), 'upfleet-sql-'));
      const db = openDatabase(path.join(dir, 'upfleet.db'));
      const sql = await openSql({ dialect: 'sqlite', database: db });
      current = { sql, cleanup: async () => { await sql.close(); db.close(); rmSync(dir, { recursive: true, force: true }); } };
    }
  });
  afterEach(async () => {
    await current?.cleanup();
    current = null;
  });
  return () => {
    if (!current) throw new Error('freshSql: no database outside a test');
    return current.sql;
  };
}

/** A person (and the plan it needs) for rows that reference users; returns the user id. */
export async function insertTestUser(s: Sql, name = `user${++users}`): Promise<number> {
  await sql`INSERT INTO packages (package_name, price, max_endpoints, max_regions, check_frequency_seconds, retention_days, ssl_monitoring,
    advanced_alerts, api_access, multi_region, ping_host, cert_expiry, response_code, response_time)
    SELECT 'Test', 0, 10, 1, 300, 30, 0, 0, 0, 0, 0, 0, 1, 0 WHERE NOT EXISTS (SELECT 1 FROM packages WHERE package_name = 'Test')`.execute(s.db);
  const row = await sql<{ id: number }>`INSERT INTO users (username, email, password_hash, package_id)
    SELECT ${name}, ${`${name}@example.com`}, 'x', package_id FROM packages WHERE package_name = 'Test' RETURNING id`.execute(s.db);
  return Number(row.rows[0]!.id);
}
