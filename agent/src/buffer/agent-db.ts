// The agent's one SQLite file (better-sqlite3, WAL): the outbox, the identity and the saved
// assignments each keep their tables in it (`DIR/agent.db`).
import { chmodSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';

export type AgentDb = Database.Database;

/** Small values (identity, snapshot version, dropped count) share one key/value table. */
const KV_SCHEMA = 'CREATE TABLE IF NOT EXISTS kv (key TEXT PRIMARY KEY, value TEXT NOT NULL);';

export function openAgentDb(opts: { dataDir: string; fileName?: string }): AgentDb {
  // The identity's secret and the outbox live here: owner only (700 / 600), also for an older dir.
  mkdirSync(opts.dataDir, { recursive: true, mode: 0o700 });
  chmodSync(opts.dataDir, 0o700);
  const file = path.join(opts.dataDir, opts.fileName ?? 'agent.db');
  // The single executable loads the SQLite addon from its own file and leaves it here (agent/sea/main.ts).
  const seaBinding = (globalThis as { __upfleetSqliteBinding?: object }).__upfleetSqliteBinding;
  // (better-sqlite3 takes the loaded addon object as nativeBinding; its types only know a path)
  const db = new Database(file, seaBinding ? { nativeBinding: seaBinding as unknown as string } : {});
  chmodSync(file, 0o600);
  db.pragma('journal_mode = WAL');
  // NORMAL in WAL survives a killed process (only an OS crash can lose the last commits).
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  // The outbox touches its last pages and the snapshot is read once at start: 512 KiB of page
  // cache instead of SQLite's 2 MiB default, which the saved 10,000 assignments filled for good.
  db.pragma('cache_size = -512');
  db.exec(KV_SCHEMA);
  return db;
}

/** get/set on the shared kv table */
export function kvAccess(db: AgentDb): { get(key: string): string | undefined; set(key: string, value: string): void; del(key: string): void } {
  const get = db.prepare('SELECT value FROM kv WHERE key = ?');
  const set = db.prepare('INSERT INTO kv (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value');
  const del = db.prepare('DELETE FROM kv WHERE key = ?');
  return {
    get: (key) => (get.get(key) as { value: string } | undefined)?.value,
    set: (key, value) => void set.run(key, value),
    del: (key) => void del.run(key),
  };
}
