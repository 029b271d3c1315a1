// The agent's durable buffer (in the agent db): every result is written here before it is sent,
// and batches keep their id across restarts (the control plane's dedup token). The identity and
// the saved assignments have their own stores beside it (identity-store.ts, assignment-store.ts).
import { randomUUID } from 'node:crypto';
import { decodeResultBatch, encodeBatchEntry, encodeBatchId, type CheckResult, type EncodedResultBatch } from '@upfleet/proto';
import type { Registry } from 'prom-client';
import { gaugeFrom, totalFrom } from '../metrics';
import { kvAccess, type AgentDb } from './agent-db';

export interface OutboxOptions {
  /** most rows kept; beyond it the oldest are dropped and counted */
  cap: number;
  /** the outbox's metrics are registered here */
  registry?: Registry;
}

/**
 * A batch as it is sent: its wire bytes (`encoded`, passed through by the ReportResults
 * serializer). `results` decodes them, for tests and logs; sending never does.
 */
export interface OutboxBatch extends EncodedResultBatch {
  readonly results: CheckResult[];
}

export interface Outbox {
  add(results: CheckResult[]): void;
  /**
   * The oldest batch not already handed out: an existing one (same id, same rows as before a
   * restart) or a new one of up to `max` un-batched rows. undefined when nothing is pending.
   */
  takeBatch(max: number): OutboxBatch | undefined;
  /** the control plane stored the batch: its rows go */
  ack(batchId: string): number;
  /** hand a batch out again later (stream broke, or the control plane refused it) */
  release(batchId: string): void;
  depth(): number;
  unbatched(): number;
  /** batches made and not handed out now */
  pendingBatches(): number;
  dropped(): number;
}

interface BatchRow { batch_id: string; first_seq: number; last_seq: number }

const SCHEMA = `
-- payload: the result as it stands inside a ResultBatch on the wire (a BLOB, see encodeBatchEntry);
-- rows written by earlier agent versions hold JSON text, encoded when their batch is taken.
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
`;

export function createOutbox(db: AgentDb, opts: OutboxOptions): Outbox {
  db.exec(SCHEMA);
  const kv = kvAccess(db);

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
  };
  const num = (row: unknown, k: string): number => Number((row as Record<string, unknown>)[k] ?? 0);

  // Batched rows are always older than un-batched ones, so one seq splits them.
  let lastBatchedSeq = num(q.maxBatched.get(), 's');
  let depth = num(q.count.get(), 'n');
  let unbatched = depth - num(q.countUpTo.get(lastBatchedSeq), 'n');
  let batchCount = num(q.batchCount.get(), 'n');
  let dropped = Number(kv.get('dropped') ?? 0);
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
    kv.set('dropped', String(dropped));
  };

  const add = db.transaction((results: CheckResult[]) => {
    for (const r of results) q.insert.run(r.result_id, encodeBatchEntry(r));
    depth += results.length;
    unbatched += results.length;
    if (depth > opts.cap) dropOldest(depth - opts.cap);
  });

  const takeBatch = db.transaction((max: number): OutboxBatch | undefined => {
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
      const rows = q.batchRows.all(batch.first_seq, batch.last_seq) as { payload: Buffer | string }[];
      if (rows.length === 0) {
        // every row of it was dropped by the cap
        q.deleteBatch.run(batch.batch_id);
        batchCount--;
        continue;
      }
      leasedIds.add(batch.batch_id);
      return outboxBatch(batch.batch_id, rows);
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

  registerOutboxMetrics(opts.registry, () => depth, () => dropped);
  return {
    add: (results) => {
      if (results.length) add(results);
    },
    takeBatch: (max) => takeBatch(max),
    ack: (id) => ack(id),
    release: (id) => void leasedIds.delete(id),
    depth: () => depth,
    unbatched: () => unbatched,
    pendingBatches: () => batchCount - leasedIds.size,
    dropped: () => dropped,
  };
}

/** The stored rows of a batch, concatenated after its id: the batch's wire bytes. */
function outboxBatch(batchId: string, rows: { payload: Buffer | string }[]): OutboxBatch {
  const parts = [encodeBatchId(batchId)];
  for (const { payload } of rows) parts.push(typeof payload === 'string' ? encodeBatchEntry(JSON.parse(payload) as CheckResult) : payload);
  const encoded = Buffer.concat(parts);
  let decoded: CheckResult[] | undefined;
  return {
    batch_id: batchId,
    encoded,
    get results() {
      return (decoded ??= decodeResultBatch(encoded).results);
    },
  };
}

function registerOutboxMetrics(registry: Registry | undefined, depth: () => number, dropped: () => number): void {
  if (!registry) return;
  gaugeFrom(registry, 'upfleet_agent_outbox_depth', 'Results buffered in the outbox, not yet acked.', depth);
  // The dropped count is kept in the db across restarts, so the counter shows that total.
  totalFrom(registry, 'upfleet_agent_outbox_dropped_total', 'Results dropped because the outbox was full.', dropped);
}
