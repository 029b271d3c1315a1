import Database from 'better-sqlite3';
import { MIGRATIONS, schemaNewerThanCode, type Migration } from './migrations';
import { compileSteps } from './sql/compile';

export type Db = Database.Database;

/** Opens the control-plane database (WAL) and applies pending migrations. */
export function openDatabase(file: string, migrations: readonly Migration[] = MIGRATIONS): Db {
  const db = new Database(file);
  db.pragma('busy_timeout = 5000');
  walMode(db);
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  try {
    migrate(db, migrations);
  } catch (err) {
    db.close();
    throw err;
  }
  return db;
}

/** Switching a new file to WAL needs it alone for a moment, and SQLite answers SQLITE_BUSY at once
 *  there instead of calling the busy handler: a process starting beside another tries again (5 s). */
function walMode(db: Db): void {
  const until = Date.now() + 5000;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (;;) {
    try {
      db.pragma('journal_mode = WAL');
      return;
    } catch (err) {
      if ((err as { code?: string }).code !== 'SQLITE_BUSY' || Date.now() > until) throw err;
      Atomics.wait(pause, 0, 0, 20);
    }
  }
}

function migrate(db: Db, migrations: readonly Migration[]): void {
  db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (id INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)');
  const appliedRows = () => db.prepare('SELECT id, name FROM schema_migrations').all() as { id: number; name: string }[];
  const known = new Set(migrations.map((m) => m.id));
  const unknown = appliedRows().filter((r) => !known.has(r.id));
  if (unknown.length > 0) throw schemaNewerThanCode(unknown);
  const applied = new Set(appliedRows().map((r) => r.id));
  const isApplied = db.prepare('SELECT 1 FROM schema_migrations WHERE id = ?').pluck();
  for (const m of migrations) {
    if (applied.has(m.id)) continue;
    // PRAGMA foreign_keys cannot change inside a transaction: switched around it for a rebuild.
    if (m.rebuildsTables) db.pragma('foreign_keys = OFF');
    try {
      // IMMEDIATE takes the write lock first: of several processes starting on one file, the
      // others wait (busy_timeout) and then find the migration applied.
      db.transaction(() => {
        if (isApplied.get(m.id) !== undefined) return;
        db.exec(m.sql);
        m.run?.(db);
        if (m.steps) for (const q of compileSteps('sqlite', m.steps)) db.prepare(q.sql).run(...(q.parameters as unknown[]));
        if (m.rebuildsTables) {
          const broken = db.pragma('foreign_key_check') as unknown[];
          if (broken.length > 0) throw new Error(`migration ${m.id} (${m.name}) would break ${broken.length} foreign keys`);
        }
        db.prepare('INSERT INTO schema_migrations (id, name, applied_at) VALUES (?, ?, ?)').run(m.id, m.name, new Date().toISOString());
      }).immediate();
    } finally {
      if (m.rebuildsTables) db.pragma('foreign_keys = ON');
    }
  }
}
