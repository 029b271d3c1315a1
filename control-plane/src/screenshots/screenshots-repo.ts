// The screenshots' rows (Kysely: the same code on SQLite and Postgres; screenshots-store.test.ts
// runs it on both). Every read names its workspace and endpoint.
import type { Kysely } from 'kysely';
import type { Schema, ScreenshotsTable } from '../store/sql/schema';

export type ScreenshotRow = ScreenshotsTable;

export function createScreenshotsRepo(db: Kysely<Schema>) {
  return {
    /** False when a screenshot with this id is stored already (a re-sent batch). */
    insert: async (row: ScreenshotRow): Promise<boolean> => {
      const done = await db.insertInto('screenshots').values(row).onConflict((oc) => oc.column('id').doNothing()).returning('id').execute();
      return done.length === 1;
    },
    exists: async (id: string): Promise<boolean> => (await db.selectFrom('screenshots').select('id').where('id', '=', id).executeTakeFirst()) !== undefined,
    list: (workspaceId: number, endpointId: number, limit: number): Promise<ScreenshotRow[]> =>
      db.selectFrom('screenshots').selectAll()
        .where('workspace_id', '=', workspaceId).where('endpoint_id', '=', endpointId)
        .orderBy('taken_at', 'desc').orderBy('id').limit(limit).execute(),
    get: (workspaceId: number, endpointId: number, id: string): Promise<ScreenshotRow | undefined> =>
      db.selectFrom('screenshots').selectAll()
        .where('workspace_id', '=', workspaceId).where('endpoint_id', '=', endpointId).where('id', '=', id)
        .executeTakeFirst(),
    totalBytes: async (): Promise<number> => {
      const r = await db.selectFrom('screenshots').select((eb) => eb.fn.sum<number | string | null>('bytes').as('total')).executeTakeFirst();
      return Number(r?.total ?? 0);
    },
    oldest: (limit: number): Promise<ScreenshotRow[]> =>
      db.selectFrom('screenshots').selectAll().orderBy('taken_at').orderBy('id').limit(limit).execute(),
    expired: (now: number, limit: number): Promise<ScreenshotRow[]> =>
      db.selectFrom('screenshots').selectAll().where('expires_at', '<=', now).orderBy('expires_at').limit(limit).execute(),
    forEndpoint: (endpointId: number): Promise<ScreenshotRow[]> =>
      db.selectFrom('screenshots').selectAll().where('endpoint_id', '=', endpointId).execute(),
    /** Screenshots whose endpoint is gone (deleted with its workspace or account), or moved to another workspace. */
    orphaned: (limit: number): Promise<ScreenshotRow[]> =>
      db.selectFrom('screenshots as s').selectAll('s')
        .where((eb) => eb.not(eb.exists(
          eb.selectFrom('endpoints as e').select('e.url_id').whereRef('e.url_id', '=', 's.endpoint_id').whereRef('e.user_id', '=', 's.workspace_id'),
        )))
        .limit(limit).execute(),
    delete: async (ids: string[]): Promise<number> => {
      if (ids.length === 0) return 0;
      const r = await db.deleteFrom('screenshots').where('id', 'in', ids).executeTakeFirst();
      return Number(r.numDeletedRows);
    },
  };
}
export type ScreenshotsRepo = ReturnType<typeof createScreenshotsRepo>;
