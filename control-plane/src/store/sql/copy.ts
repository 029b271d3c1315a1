// `db copy`: a stopped SQLite deployment (DATA_DIR) into an empty Postgres, generically from the
// SQLite catalogue: tables in foreign-key order, rows in key order, in batches, all in one Postgres
// transaction (a failure leaves Postgres as it was). Triggers of the tables (a user's personal
// workspace) are off while rows go in, since their rows are copied too; identity sequences are
// moved past the copied keys after, and every table's count is compared before the commit.
// Values go as they are: secrets stay encrypted under the same SECRET_KEY.
import path from 'node:path';
import { sql, type Kysely } from 'kysely';
import { lockDataDir } from '../../cluster/data-dir-lock';
import { openDatabase, type Db } from '../db';
import { openSql } from './open';

/** Rows a process writes about itself; they mean nothing to another database. */
const NOT_COPIED = new Set(['schema_migrations', 'leader_leases', 'control_plane_processes']);
// Postgres takes at most 65,535 parameters per statement.
const MAX_PARAMETERS = 60_000;

export interface CopiedTable {
  table: string;
  rows: number;
}

export class CopyRefused extends Error {}

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

export async function copySqliteToPostgres(opts: { dataDir: string; to: string; batchRows?: number; onTable?: (t: CopiedTable) => void }): Promise<CopiedTable[]> {
  // The control plane must be stopped: its lock on DATA_DIR says whether it runs.
  const lock = lockDataDir(opts.dataDir);
  let source: Db | null = null;
  try {
    source = openDatabase(path.join(opts.dataDir, 'upfleet.db'));
    const target = await openSql({ dialect: 'postgres', url: opts.to, poolSize: 1 });
    try {
      return await copyInto(source, target.db, opts);
    } finally {
      await target.close();
    }
  } finally {
    source?.close();
    lock.release();
  }
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the tables are read from the catalogue, not from Schema
async function copyInto(source: Db, target: Kysely<any>, opts: { batchRows?: number; onTable?: (t: CopiedTable) => void }): Promise<CopiedTable[]> {
  const tables = tableOrder(source);
  const { rows: pgTables } = await sql<{ table_name: string }>`SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`.execute(target);
  const known = new Set(pgTables.map((t) => t.table_name));
  const missing = tables.filter((t) => !known.has(t));
  if (missing.length > 0) throw new CopyRefused(`Postgres has no table ${missing.join(', ')}: run the same Upfleet version on both`);

  return target.transaction().execute(async (trx) => {
    for (const t of tables) {
      const { rows } = await sql<{ n: number }>`SELECT COUNT(*) AS n FROM ${sql.raw(quote(t))}`.execute(trx);
      if (Number(rows[0].n) > 0) throw new CopyRefused(`Postgres is not empty (table ${t} has ${rows[0].n} rows): copy only into a new, empty database`);
    }
    const copied: CopiedTable[] = [];
    for (const t of tables) {
      await sql`ALTER TABLE ${sql.raw(quote(t))} DISABLE TRIGGER USER`.execute(trx);
      const columns = (source.prepare(`SELECT name FROM pragma_table_info(?)`).pluck().all(t) as string[]);
      const batch = Math.max(1, Math.min(opts.batchRows ?? 1000, Math.floor(MAX_PARAMETERS / columns.length)));
      let pending: Record<string, unknown>[] = [];
      let n = 0;
      const flush = async () => {
        if (pending.length === 0) return;
        await trx.insertInto(t).values(pending).execute();
        n += pending.length;
        pending = [];
      };
      for (const row of source.prepare(`SELECT ${columns.map(quote).join(', ')} FROM ${quote(t)} ORDER BY ${keyOrder(source, t)}`).iterate() as Iterable<Record<string, unknown>>) {
        pending.push(row);
        if (pending.length >= batch) await flush();
      }
      await flush();
      await sql`ALTER TABLE ${sql.raw(quote(t))} ENABLE TRIGGER USER`.execute(trx);
      const { rows } = await sql<{ n: number }>`SELECT COUNT(*) AS n FROM ${sql.raw(quote(t))}`.execute(trx);
      const inSource = source.prepare(`SELECT COUNT(*) FROM ${quote(t)}`).pluck().get() as number;
      if (Number(rows[0].n) !== inSource || n !== inSource) throw new Error(`row counts differ for ${t}: SQLite ${inSource}, Postgres ${rows[0].n}`);
      copied.push({ table: t, rows: inSource });
      opts.onTable?.({ table: t, rows: inSource });
    }
    // Keys given out by the database continue after the copied ones.
    const { rows: identities } = await sql<{ table_name: string; column_name: string }>`
      SELECT table_name, column_name FROM information_schema.columns
      WHERE table_schema = 'public' AND (is_identity = 'YES' OR column_default LIKE 'nextval(%')`.execute(trx);
    for (const c of identities) {
      await sql`SELECT setval(pg_get_serial_sequence(${quote(c.table_name)}, ${c.column_name}),
        COALESCE((SELECT MAX(${sql.raw(quote(c.column_name))}) FROM ${sql.raw(quote(c.table_name))}), 0) + 1, false)`.execute(trx);
    }
    return copied;
  });
}

/** The tables to copy, each after the tables its foreign keys point at. */
function tableOrder(db: Db): string[] {
  const names = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").pluck().all() as string[])
    .filter((t) => !NOT_COPIED.has(t));
  const parents = new Map(names.map((t) => [t, (db.prepare('SELECT DISTINCT "table" FROM pragma_foreign_key_list(?)').pluck().all(t) as string[]).filter((p) => p !== t && names.includes(p))]));
  const out: string[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (t: string) => {
    if (state.get(t) === 'done') return;
    if (state.get(t) === 'visiting') throw new Error(`foreign keys form a cycle through ${t}`);
    state.set(t, 'visiting');
    for (const p of parents.get(t) ?? []) visit(p);
    state.set(t, 'done');
    out.push(t);
  };
  names.forEach(visit);
  return out;
}

/** The primary key's columns, else the rowid: parents within a table (lower keys) go first. */
function keyOrder(db: Db, table: string): string {
  const pk = (db.prepare('SELECT name FROM pragma_table_info(?) WHERE pk > 0 ORDER BY pk').pluck().all(table) as string[]);
  if (pk.length > 0) return pk.map(quote).join(', ');
  const withoutRowid = /WITHOUT\s+ROWID/i.test(String(db.prepare("SELECT sql FROM sqlite_master WHERE name = ?").pluck().get(table)));
  return withoutRowid ? '1' : 'rowid';
}
