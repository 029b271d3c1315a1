import type { Db } from './db';

// Attempts are counted in SQLite so a restart does not reset a limit.
export function createRateLimitRepo(db: Db) {
  const q = {
    count: db.prepare('SELECT COUNT(*) FROM rate_limit_events WHERE bucket = ? AND key = ? AND ts > ?').pluck(),
    oldest: db.prepare('SELECT MIN(ts) FROM rate_limit_events WHERE bucket = ? AND key = ? AND ts > ?').pluck(),
    insert: db.prepare('INSERT INTO rate_limit_events (bucket, key, ts) VALUES (?, ?, ?)'),
    clear: db.prepare('DELETE FROM rate_limit_events WHERE bucket = ? AND key = ?'),
    remove: db.prepare('DELETE FROM rate_limit_events WHERE id = ?'),
    prune: db.prepare('DELETE FROM rate_limit_events WHERE ts < ?'),
  };
  return {
    count: (bucket: string, key: string, since: number) => q.count.get(bucket, key, since) as number,
    oldest: (bucket: string, key: string, since: number) => q.oldest.get(bucket, key, since) as number | null,
    /** Counts one event; returns its id for remove(). */
    record: (bucket: string, key: string, now: number): number => Number(q.insert.run(bucket, key, now).lastInsertRowid),
    remove: (id: number) => q.remove.run(id),
    clear: (bucket: string, key: string) => q.clear.run(bucket, key),
    prune: (before: number) => q.prune.run(before),
  };
}
export type RateLimitRepo = ReturnType<typeof createRateLimitRepo>;
