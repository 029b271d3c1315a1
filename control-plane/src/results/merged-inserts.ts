// Merged inserts with exactly-once batches. A chDB insert into the raw table and its two rollup
// views costs ~60 ms of CPU whatever its size, so batches that arrive while an insert runs are
// stored together in the next one (group commit: nothing waits when the store keeps up).
//
// ClickHouse deduplicates per insert (one token), and agents re-send a batch they were not acked,
// alone or next to other batches. So the token cannot be the batch id. Instead a ledger in SQLite
// (`${dataDir}/ingest-ledger-${database}.sqlite`) records, BEFORE the insert runs, the group: its own token, its
// payload and which batch ids it carries. From then on a batch id is only ever stored through
// that group:
// - its insert is re-run with the group's token until it succeeds (ClickHouse drops whatever part
//   of it had landed: raw table and rollups each keep the token), on a re-send or at start-up;
// - a re-sent batch whose group succeeded is acknowledged without storing anything.
// Groups and their batch ids are forgotten after LEDGER_KEEP_MS (a re-send later than that would
// be stored again); a group's payload is deleted as soon as it is stored.
// A group keeps its payload's format (`groups.format`): RowBinary5 now (every column); groups recorded
// by an older version (RowBinary without schema step 5's columns, or JSONCompactEachRow, the column's
// default when it was added) are replayed as they are, into the columns they carry (payloadShape).
import path from 'node:path';
import { mkdirSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import { PAYLOAD_FORMAT, type Payload, type PayloadFormat } from './row-encoding';

export const LEDGER_KEEP_MS = 24 * 3_600_000;

export type InsertGroup = (token: string, payload: Payload) => Promise<void>;

interface Waiting { batchId: string; body: Buffer; rows: number; done: Deferred }
interface Deferred { promise: Promise<void>; resolve(): void; reject(err: unknown): void }

function deferred(): Deferred {
  let resolve!: () => void;
  let reject!: (err: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // A caller may stop waiting (stream closed); the outcome is still recorded in the ledger.
  promise.catch(() => undefined);
  return { promise, resolve, reject };
}

export class IngestLedger {
  private readonly db: Database.Database;
  private readonly q;

  constructor(dir: string, database: string, private readonly now: () => number = Date.now) {
    mkdirSync(dir, { recursive: true });
    this.db = new Database(path.join(dir, `ingest-ledger-${database}.sqlite`));
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.pragma('busy_timeout = 5000');
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS groups (
        token TEXT PRIMARY KEY,
        payload BLOB,               -- NULL once stored
        created_at INTEGER NOT NULL,
        stored_at INTEGER,
        format TEXT NOT NULL DEFAULT 'JSONCompactEachRow'
      );
      CREATE TABLE IF NOT EXISTS batches (
        batch_id TEXT PRIMARY KEY,
        token TEXT NOT NULL REFERENCES groups(token)
      );
      CREATE INDEX IF NOT EXISTS batches_token ON batches (token);
      CREATE INDEX IF NOT EXISTS groups_created ON groups (created_at);`);
    // Ledgers from before payloads had a format: every group in them is JSONCompactEachRow.
    const columns = this.db.prepare<[], { name: string }>('PRAGMA table_info(groups)').all();
    if (!columns.some((c) => c.name === 'format')) {
      this.db.exec("ALTER TABLE groups ADD COLUMN format TEXT NOT NULL DEFAULT 'JSONCompactEachRow'");
    }
    this.q = {
      lookup: this.db.prepare<[string], { token: string; stored_at: number | null }>(
        'SELECT g.token, g.stored_at FROM batches b JOIN groups g ON g.token = b.token WHERE b.batch_id = ?'),
      addGroup: this.db.prepare('INSERT INTO groups (token, payload, created_at, format) VALUES (?, ?, ?, ?)'),
      addBatch: this.db.prepare('INSERT INTO batches (batch_id, token) VALUES (?, ?)'),
      stored: this.db.prepare('UPDATE groups SET stored_at = ?, payload = NULL WHERE token = ?'),
      payload: this.db.prepare<[string], { payload: Buffer | null; format: PayloadFormat }>('SELECT payload, format FROM groups WHERE token = ?'),
      pending: this.db.prepare<[], { token: string }>('SELECT token FROM groups WHERE stored_at IS NULL ORDER BY created_at'),
      expireBatches: this.db.prepare('DELETE FROM batches WHERE token IN (SELECT token FROM groups WHERE stored_at IS NOT NULL AND created_at < ?)'),
      expireGroups: this.db.prepare('DELETE FROM groups WHERE stored_at IS NOT NULL AND created_at < ?'),
    };
  }

  /** `legacyId`: the bare batch id an older version recorded (before ids were scoped by agent). */
  lookup(batchId: string, legacyId?: string): { token: string; stored: boolean } | null {
    const row = this.q.lookup.get(batchId) ?? (legacyId ? this.q.lookup.get(legacyId) : undefined);
    return row ? { token: row.token, stored: row.stored_at !== null } : null;
  }

  /** Records a group and the batch ids it carries, in one transaction, before it is inserted. */
  begin(batchIds: readonly string[], payload: Payload): string {
    const token = `group-${randomUUID()}`;
    this.db.transaction(() => {
      this.q.addGroup.run(token, payload.body, this.now(), payload.format);
      for (const id of batchIds) this.q.addBatch.run(id, token);
    })();
    return token;
  }

  markStored(token: string): void {
    this.q.stored.run(this.now(), token);
  }

  payload(token: string): Payload | null {
    const row = this.q.payload.get(token);
    return row?.payload ? { body: row.payload, format: row.format } : null;
  }

  pendingTokens(): string[] {
    return this.q.pending.all().map((r) => r.token);
  }

  expire(): void {
    const before = this.now() - LEDGER_KEEP_MS;
    this.db.transaction(() => {
      this.q.expireBatches.run(before);
      this.q.expireGroups.run(before);
    })();
  }

  close(): void {
    this.db.close();
  }
}

export interface MergedInserterOptions {
  /** Inserts running at once (the store's insert lanes). */
  lanes: number;
  /** Rows per merged insert at most; a single batch larger than this is still one insert. */
  maxRows: number;
}

/** Queues batches and stores them in merged inserts, each batch exactly once (see the file head). */
export class MergedInserter {
  private queue: Waiting[] = [];
  private running = 0;
  /** Batch ids queued or in an insert now → the outcome their senders wait for. */
  private readonly inProcess = new Map<string, Promise<void>>();
  /** Groups being (re)inserted now. */
  private readonly replays = new Map<string, Promise<void>>();
  private expiredAt = 0;
  /** Merged inserts run and the batches and rows they carried (for benchmarks and logs). */
  readonly stats = { inserts: 0, batches: 0, rows: 0 };

  constructor(private readonly ledger: IngestLedger, private readonly insertGroup: InsertGroup, private readonly opts: MergedInserterOptions) {}

  /** Re-runs the inserts of groups recorded but not confirmed stored (a crash or a failed insert). */
  async recover(): Promise<void> {
    for (const token of this.ledger.pendingTokens()) await this.replay(token);
  }

  /** Resolves once the batch is stored (now or earlier); `body` is its payload in PAYLOAD_FORMAT. */
  submit(batchId: string, body: Buffer, rows: number, legacyId?: string): Promise<void> {
    const same = this.inProcess.get(batchId);
    if (same) return same;
    const known = this.ledger.lookup(batchId, legacyId);
    if (known) return known.stored ? Promise.resolve() : this.replay(known.token);
    const done = deferred();
    this.queue.push({ batchId, body, rows, done });
    this.inProcess.set(batchId, done.promise);
    void done.promise.finally(() => this.inProcess.delete(batchId)).catch(() => undefined);
    this.pump();
    return done.promise;
  }

  /** Waits for every queued and running insert. */
  async drain(): Promise<void> {
    await Promise.allSettled([...this.inProcess.values(), ...this.replays.values()]);
  }

  private pump(): void {
    while (this.running < this.opts.lanes && this.queue.length > 0) {
      let rows = 0;
      let n = 0;
      while (n < this.queue.length && (n === 0 || rows + this.queue[n].rows <= this.opts.maxRows)) rows += this.queue[n++].rows;
      const group = this.queue.splice(0, n);
      this.stats.inserts++;
      this.stats.batches += n;
      this.stats.rows += rows;
      this.running++;
      void this.store(group).finally(() => {
        this.running--;
        this.pump();
      });
    }
  }

  private async store(group: Waiting[]): Promise<void> {
    let token: string;
    try {
      // New groups are always RowBinary, whose rows concatenate as they are; only groups an older
      // version recorded are JSON, and those are replayed whole from the ledger, never merged.
      const body = group.length === 1 ? group[0].body : Buffer.concat(group.map((w) => w.body));
      token = this.ledger.begin(group.map((w) => w.batchId), { body, format: PAYLOAD_FORMAT });
    } catch (err) {
      for (const w of group) w.done.reject(err);
      return;
    }
    try {
      await this.replay(token);
      for (const w of group) w.done.resolve();
    } catch (err) {
      for (const w of group) w.done.reject(err);
    }
  }

  /** Inserts a recorded group with its token; concurrent callers share one attempt. */
  private replay(token: string): Promise<void> {
    const running = this.replays.get(token);
    if (running) return running;
    const attempt = (async () => {
      const payload = this.ledger.payload(token);
      if (payload) await this.insertGroup(token, payload);
      this.ledger.markStored(token);
      if (Date.now() - this.expiredAt > 60_000) {
        this.expiredAt = Date.now();
        this.ledger.expire();
      }
    })();
    this.replays.set(token, attempt);
    void attempt.finally(() => this.replays.delete(token)).catch(() => undefined);
    return attempt;
  }
}
