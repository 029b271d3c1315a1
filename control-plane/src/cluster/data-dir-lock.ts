// One control plane per DATA_DIR: its SQLite database and embedded chDB cannot be shared between
// processes (two writers would each keep their own caches, timers and alerts). The lock is SQLite's
// own exclusive file lock (fcntl, no native addon of ours) on a file of its own, held by an open
// transaction for the life of the process; the OS drops it when the process dies, also by kill -9.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';

export const LOCK_FILE = 'control-plane.lock';
const HOLDER_FILE = 'control-plane.pid';

export class DataDirInUse extends Error {}

export interface DataDirLock {
  release(): void;
}

export function lockDataDir(dataDir: string): DataDirLock {
  const db = new Database(path.join(dataDir, LOCK_FILE), { timeout: 0 });
  try {
    db.pragma('locking_mode = EXCLUSIVE');
    db.exec('BEGIN EXCLUSIVE');
  } catch (err) {
    db.close();
    if ((err as { code?: string }).code !== 'SQLITE_BUSY') throw err;
    throw new DataDirInUse(`Another Upfleet control plane${holderText(dataDir)} is running on DATA_DIR ${dataDir}: its SQLite database and embedded ClickHouse serve one process. ` +
      'Stop that one first, or give this one a DATA_DIR of its own.');
  }
  // For the refusal's text only: the lock, not this file, decides.
  const holderFile = path.join(dataDir, HOLDER_FILE);
  fs.writeFileSync(holderFile, JSON.stringify({ pid: process.pid, host: os.hostname() }), { mode: 0o600 });
  let held = true;
  return {
    release() {
      if (!held) return;
      held = false;
      fs.rmSync(holderFile, { force: true });
      db.close(); // ends the transaction and, with the connection, the lock
    },
  };
}

function holderText(dataDir: string): string {
  try {
    const h = JSON.parse(fs.readFileSync(path.join(dataDir, HOLDER_FILE), 'utf8')) as { pid?: unknown; host?: unknown };
    if (typeof h.pid === 'number') return ` (pid ${h.pid}${typeof h.host === 'string' && h.host !== os.hostname() ? ` on ${h.host}` : ''})`;
  } catch {
    // no holder file: the holder is starting or an older version
  }
  return '';
}
