// One query code for both databases: Kysely over the better-sqlite3 handle the rest of the store
// uses (the SAME connection, so converted and unconverted repos share transactions and locks while
// the conversion is under way), or over a pg.Pool for DATABASE_URL.
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import type { Db } from '../db';
import { migratePostgres } from './migrate-postgres';
import type { Schema } from './schema';

import type { SqlDialect } from './compile';

export type { SqlDialect };

export interface Sql {
  db: Kysely<Schema>;
  dialect: SqlDialect;
  /** Closes a Postgres pool; the SQLite handle belongs to whoever opened it and stays open. */
  close(): Promise<void>;
}

export type SqlTarget = { dialect: 'sqlite'; database: Db } | { dialect: 'postgres'; url: string; poolSize?: number };

const INT8_OID = 20;
// int8 (BIGINT, COUNT(*)) arrives as a string by default; our ids and millisecond times fit a number.
const pgTypes = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID && format !== 'binary' ? (v: string) => Number(v) : (pg.types.getTypeParser(oid, format) as (v: string) => unknown)) as typeof pg.types.getTypeParser,
};

/** Kysely over an open better-sqlite3 handle (openDatabase migrated it). */
export function sqliteSql(database: Db): Sql {
  const db = new Kysely<Schema>({ dialect: new SqliteDialect({ database }) });
  // Kysely's destroy() would close the shared handle: the owner of the handle closes it.
  return { db, dialect: 'sqlite', close: async () => {} };
}

/** Kysely for SQLite (no migration: openDatabase did it) or Postgres (migrated before it is returned). */
export async function openSql(target: SqlTarget): Promise<Sql> {
  if (target.dialect === 'sqlite') return sqliteSql(target.database);
  const pool = new pg.Pool({ connectionString: target.url, max: target.poolSize ?? 10, types: pgTypes });
  // An idle client that loses its server must not crash the process; the next query reports it.
  pool.on('error', () => {});
  const db = new Kysely<Schema>({ dialect: new PostgresDialect({ pool }) });
  try {
    await migratePostgres(db);
  } catch (err) {
    await db.destroy();
    throw err;
  }
  return { db, dialect: 'postgres', close: () => db.destroy() };
}
