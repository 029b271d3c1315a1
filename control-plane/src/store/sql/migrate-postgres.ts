// Postgres gets its schema from the baseline, then every later migration's `steps`. All of it runs
// in one transaction under an advisory lock, so of several processes starting together one
// migrates and the others wait and find the work done (DDL is transactional in Postgres).
import { sql, type Kysely } from 'kysely';
import { MIGRATIONS, schemaNewerThanCode, type Migration } from '../migrations';
import { compileSteps } from './compile';
import { BASELINE_MIGRATION_IDS, POSTGRES_BASELINE } from './postgres-baseline';

// Any fixed 64-bit number, the same in every process: "upfleet migrations".
const MIGRATION_LOCK = 0x75706d6967;

export async function migratePostgres(db: Kysely<any>, migrations: readonly Migration[] = MIGRATIONS): Promise<void> {
  const later = migrations.filter((m) => !BASELINE_MIGRATION_IDS.includes(m.id));
  const noPostgresForm = later.filter((m) => !m.steps || m.sql.trim() !== '' || m.run);
  if (noPostgresForm.length > 0) {
    const m = noPostgresForm[0]!;
    throw new Error(`migration ${m.id} (${m.name}) has SQLite-only parts: write it with Kysely's builders in steps (see docs/architecture.md)`);
  }
  await db.transaction().execute(async (trx) => {
    await sql`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`.execute(trx);
    await sql`CREATE TABLE IF NOT EXISTS schema_migrations (id BIGINT PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`.execute(trx);
    const rows = await trx.selectFrom('schema_migrations').select(['id', 'name']).execute() as { id: number; name: string }[];
    const known = new Set(migrations.map((m) => m.id));
    const unknown = rows.filter((r) => !known.has(Number(r.id)));
    if (unknown.length > 0) throw schemaNewerThanCode(unknown);
    const applied = new Set(rows.map((r) => Number(r.id)));
    const record = (m: Migration) =>
      trx.insertInto('schema_migrations').values({ id: m.id, name: m.name, applied_at: new Date().toISOString() }).execute();
    if (applied.size === 0) {
      await sql.raw(POSTGRES_BASELINE).execute(trx);
      for (const m of migrations.filter((x) => BASELINE_MIGRATION_IDS.includes(x.id))) {
        await record(m);
        applied.add(m.id);
      }
    }
    for (const m of later) {
      if (applied.has(m.id)) continue;
      for (const q of compileSteps('postgres', m.steps!)) await trx.executeQuery(q);
      await record(m);
    }
  });
}
