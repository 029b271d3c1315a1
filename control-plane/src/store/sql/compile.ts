// Kysely instances that only compile (no connection): a migration's `steps` become SQL text for
// the database at hand, so SQLite's migrations stay synchronous on the better-sqlite3 handle.
import {
  DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler,
  SqliteAdapter, SqliteIntrospector, SqliteQueryCompiler, type CompiledQuery, type Compilable,
} from 'kysely';

/** The two databases the control plane speaks to. */
export type SqlDialect = 'sqlite' | 'postgres';

/** A migration sees the tables as they were when it was written, not today's `Schema`; Kysely's own
 *  migration guide types that database `Kysely<any>`. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type MigrationDb = Kysely<any>;

const compilers: Record<SqlDialect, MigrationDb> = {
  sqlite: new Kysely<Record<string, never>>({
    dialect: {
      createAdapter: () => new SqliteAdapter(),
      createDriver: () => new DummyDriver(),
      createIntrospector: (db) => new SqliteIntrospector(db),
      createQueryCompiler: () => new SqliteQueryCompiler(),
    },
  }),
  postgres: new Kysely<Record<string, never>>({
    dialect: {
      createAdapter: () => new PostgresAdapter(),
      createDriver: () => new DummyDriver(),
      createIntrospector: (db) => new PostgresIntrospector(db),
      createQueryCompiler: () => new PostgresQueryCompiler(),
    },
  }),
};

/** The builders of `steps`, compiled for one dialect. */
export function compileSteps(dialect: SqlDialect, steps: (db: MigrationDb, dialect: SqlDialect) => Compilable[]): CompiledQuery[] {
  return steps(compilers[dialect], dialect).map((s) => s.compile());
}
