// The agent's durable buffer (better-sqlite3, WAL): every result is written here before it is
// sent, batches keep their id across restarts (the control plane's dedup token), and the agent's
// identity and last assignment snapshot live here so it checks on while the control plane is away.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import type { Assignment, CheckResult, ResultBatch } from '@upfleet/proto';

export interface AgentIdentity {
  agent_id: string;
  agent_secret: string;
  region: string;
  lease_seconds: number;
  heartbeat_interval_seconds: number;
}

export interface OutboxOptions {
  dataDir: string;
  /** most rows kept; beyond it the oldest are dropped and counted */
  cap: number;
  fileName?: string;
}

export interface Outbox {
  readonly file: string;
  add(results: CheckResult[]): void;
  /**
   * The oldest batch not already handed out: an existing one (same id, same rows as before a
   * restart) or a new one of up to `max` un-batched rows. undefined when nothing is pending.
   */
  takeBatch(max: number): ResultBatch | undefined;
  /** the control plane stored the batch: its rows go */
  ack(batchId: string): number;
  /** hand a batch out again later (stream broke, or the control plane refused it) */
  release(batchId: string): void;
  releaseAll(): void;
  depth(): number;
  unbatched(): number;
  /** batches made and not handed out now */
  pendingBatches(): number;
  leased(): number;
  dropped(): number;
  getIdentity(): AgentIdentity | undefined;
  saveIdentity(identity: AgentIdentity): void;
  clearIdentity(): void;
  loadAssignments(): { version: number; assignments: Assignment[] };
  saveSnapshot(version: number, assignments: Assignment[]): void;
  applyDelta(version: number, upserts: Assignment[], removedCheckIds: string[]): void;
  close(): void;
}

interface BatchRow { batch_id: string; first_seq: number; last_seq: number }

const SCHEMA = `
CREATE TABLE IF NOT EXISTS results (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  result_id TEXT NOT NULL,
  payload TEXT NOT NULL
);
-- A batch is a contiguous seq range; rows dropped by the cap simply vanish from it.
CREATE TABLE IF NOT EXISTS batches (
  batch_id TEXT PRIMARY KEY,
  first_seq INTEGER NOT NULL,
  last_seq INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS kv (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS assignments (check_id TEXT PRIMARY KEY, payload TEXT NOT NULL);
`;

export function openOutbox(opts: OutboxOptions): Outbox {
  mkdirSync(opts.dataDir, { recursive: true });
  const file = path.join(opts.dataDir, opts.fileName ?? 'agent.db');
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  // NORMAL in WAL survives a killed process (only an OS crash can lose the last commits).
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  db.exec(SCHEMA);

  const q = {
    insert: db.prepare('INSERT INTO results (result_id, payload) VALUES (?, ?)'),
    count: db.prepare('SELECT COUNT(*) AS n FROM results'),
    countUpTo: db.prepare('SELECT COUNT(*) AS n FROM results WHERE seq <= ?'),
    nthOldest: db.prepare('SELECT seq FROM results ORDER BY seq LIMIT 1 OFFSET ?'),
    deleteUpTo: db.prepare('DELETE FROM results WHERE seq <= ?'),
    oldestBatches: db.prepare('SELECT batch_id, first_seq, last_seq FROM batches ORDER BY first_seq LIMIT ?'),
    batchById: db.prepare('SELECT batch_id, first_seq, last_seq FROM batches WHERE batch_id = ?'),
    batchRows: db.prepare('SELECT payload FROM results WHERE seq BETWEEN ? AND ? ORDER BY seq'),
    lastOfNew: db.prepare('SELECT MAX(seq) AS last, COUNT(*) AS n FROM (SELECT seq FROM results WHERE seq > ? ORDER BY seq LIMIT ?)'),
    insertBatch: db.prepare('INSERT INTO batches (batch_id, first_seq, last_seq) VALUES (?, ?, ?)'),
    deleteBatch: db.prepare('DELETE FROM batches WHERE batch_id = ?'),
    deleteRange: db.prepare('DELETE FROM results WHERE seq BETWEEN ? AND ?'),
    deleteBatchesUpTo: db.prepare('DELETE FROM batches WHERE last_seq <= ?'),
    batchCount: db.prepare('SELECT COUNT(*) AS n FROM batches'),
    maxBatched: db.prepare('SELECT COALESCE(MAX(last_seq), 0) AS s FROM batches'),
    getKv: db.prepare('SELECT value FROM kv WHERE key = ?'),
    setKv: db.prepare('INSERT INTO kv (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value'),
    delKv: db.prepare('DELETE FROM kv WHERE key = ?'),
    allAssignments: db.prepare('SELECT payload FROM assignments'),
    putAssignment: db.prepare('INSERT INTO assignments (check_id, payload) VALUES (?, ?) ON CONFLICT(check_id) DO UPDATE SET payload = excluded.payload'),
    delAssignment: db.prepare('DELETE FROM assignments WHERE check_id = ?'),
    clearAssignments: db.prepare('DELETE FROM assignments'),
  };
  const num = (row: unknown, k: string): number => Number((row as Record<string, unknown>)[k] ?? 0);
  const getKv = (key: string): string | undefined => (q.getKv.get(key) as { value: string } | undefined)?.value;

  // Batched rows are always older than un-batched ones, so one seq splits them.
  let lastBatchedSeq = num(q.maxBatched.get(), 's');
  let depth = num(q.count.get(), 'n');
  let unbatched = depth - num(q.countUpTo.get(lastBatchedSeq), 'n');
  let batchCount = num(q.batchCount.get(), 'n');
  let dropped = Number(getKv('dropped') ?? 0);
  const leasedIds = new Set<string>();

  const dropOldest = (excess: number): void => {
    const cutoff = num(q.nthOldest.get(excess - 1), 'seq');
    const batchedGone = num(q.countUpTo.get(Math.min(cutoff, lastBatchedSeq)), 'n');
    const gone = q.deleteUpTo.run(cutoff).changes;
    for (const b of q.oldestBatches.all(batchCount) as BatchRow[]) {
      if (b.last_seq <= cutoff) leasedIds.delete(b.batch_id);
    }
    batchCount -= q.deleteBatchesUpTo.run(cutoff).changes;
    depth -= gone;
    unbatched -= gone - batchedGone;
    dropped += gone;
    q.setKv.run('dropped', String(dropped));
  };

  const add = db.transaction((results: CheckResult[]) => {
    for (const r of results) q.insert.run(r.result_id, JSON.stringify(r));
    depth += results.length;
    unbatched += results.length;
    if (depth > opts.cap) dropOldest(depth - opts.cap);
  });

  const takeBatch = db.transaction((max: number): ResultBatch | undefined => {
    for (;;) {
      let batch: BatchRow | undefined;
      if (batchCount > leasedIds.size) {
        for (const b of q.oldestBatches.all(leasedIds.size + 1) as BatchRow[]) {
          if (!leasedIds.has(b.batch_id)) {
            batch = b;
            break;
          }
        }
      }
      if (!batch) {
        if (unbatched <= 0) return undefined;
        const r = q.lastOfNew.get(lastBatchedSeq, max) as { last: number | null; n: number };
        if (!r.last) return undefined;
        batch = { batch_id: randomUUID(), first_seq: lastBatchedSeq + 1, last_seq: r.last };
        q.insertBatch.run(batch.batch_id, batch.first_seq, batch.last_seq);
        lastBatchedSeq = r.last;
        unbatched -= r.n;
        batchCount++;
      }
      const rows = q.batchRows.all(batch.first_seq, batch.last_seq) as { payload: string }[];
      if (rows.length === 0) {
        // every row of it was dropped by the cap
        q.deleteBatch.run(batch.batch_id);
        batchCount--;
        continue;
      }
      leasedIds.add(batch.batch_id);
      return { batch_id: batch.batch_id, results: rows.map((x) => JSON.parse(x.payload) as CheckResult) };
    }
  });

  const ack = db.transaction((batchId: string): number => {
    leasedIds.delete(batchId);
    const b = q.batchById.get(batchId) as BatchRow | undefined;
    if (!b) return 0;
    const n = q.deleteRange.run(b.first_seq, b.last_seq).changes;
    q.deleteBatch.run(batchId);
    batchCount--;
    depth -= n;
    return n;
  });

  const saveSnapshot = db.transaction((version: number, list: Assignment[]) => {
    q.clearAssignments.run();
    for (const a of list) q.putAssignment.run(a.check_id, JSON.stringify(a));
    q.setKv.run('assignments_version', String(version));
  });

  const applyDelta = db.transaction((version: number, upserts: Assignment[], removed: string[]) => {
    for (const a of upserts) q.putAssignment.run(a.check_id, JSON.stringify(a));
    for (const id of removed) q.delAssignment.run(id);
    q.setKv.run('assignments_version', String(version));
  });

  return {
    file,
    add: (results) => {
      if (results.length) add(results);
    },
    takeBatch: (max) => takeBatch(max),
    ack: (id) => ack(id),
    release: (id) => void leasedIds.delete(id),
    releaseAll: () => leasedIds.clear(),
    depth: () => depth,
    unbatched: () => unbatched,
    pendingBatches: () => batchCount - leasedIds.size,
    leased: () => leasedIds.size,
    dropped: () => dropped,
    getIdentity() {
      const v = getKv('identity');
      return v ? (JSON.parse(v) as AgentIdentity) : undefined;
    },
    saveIdentity: (identity) => void q.setKv.run('identity', JSON.stringify(identity)),
    clearIdentity: () => void q.delKv.run('identity'),
    loadAssignments() {
      const rows = q.allAssignments.all() as { payload: string }[];
      return {
        version: Number(getKv('assignments_version') ?? 0),
        assignments: rows.map((r) => JSON.parse(r.payload) as Assignment),
      };
    },
    saveSnapshot: (version, list) => saveSnapshot(version, list),
    applyDelta: (version, upserts, removed) => applyDelta(version, upserts, removed),
    close: () => {
      if (db.open) db.close();
    },
  };
}
