import type { Kysely } from 'kysely';
import type { Schema } from './sql/schema';

// Attempts are counted in the database so a restart does not reset a limit and every process of a
// cluster counts against the same allowance.
export function createRateLimitRepo(db: Kysely<Schema>) {
  const inWindow = (bucket: string, key: string, since: number) =>
    db.selectFrom('rate_limit_events').where('bucket', '=', bucket).where('key', '=', key).where('ts', '>', since);
  return {
    count: async (bucket: string, key: string, since: number): Promise<number> =>
      Number((await inWindow(bucket, key, since).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n),
    oldest: async (bucket: string, key: string, since: number): Promise<number | null> => {
      const row = await inWindow(bucket, key, since).select((eb) => eb.fn.min('ts').as('ts')).executeTakeFirst();
      return row?.ts === null || row?.ts === undefined ? null : Number(row.ts);
    },
    /** Counts one event; returns its id for remove(). */
    record: async (bucket: string, key: string, now: number): Promise<number> =>
      Number((await db.insertInto('rate_limit_events').values({ bucket, key, ts: now }).returning('id').executeTakeFirstOrThrow()).id),
    remove: async (id: number): Promise<void> => {
      await db.deleteFrom('rate_limit_events').where('id', '=', id).execute();
    },
    clear: async (bucket: string, key: string): Promise<void> => {
      await db.deleteFrom('rate_limit_events').where('bucket', '=', bucket).where('key', '=', key).execute();
    },
    prune: async (before: number): Promise<void> => {
      await db.deleteFrom('rate_limit_events').where('ts', '<', before).execute();
    },
  };
}
export type RateLimitRepo = ReturnType<typeof createRateLimitRepo>;
