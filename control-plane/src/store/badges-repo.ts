import type { Kysely } from 'kysely';
import type { Schema } from './sql/schema';

// Badge tokens: one per endpoint, made on first use and replaced when rotated. Kysely, so the same
// code runs on SQLite and on Postgres (badges-repo.test.ts runs it on both).
export function createBadgesRepo(db: Kysely<Schema>) {
  const tokenOf = async (urlId: number): Promise<string | null> =>
    (await db.selectFrom('endpoint_badges').select('badge_token').where('url_id', '=', urlId).executeTakeFirst())?.badge_token ?? null;
  return {
    tokenOf,
    /** The endpoint's token, stored as `token` if it has none yet; two first uses at once agree on one. */
    ensure: async (urlId: number, token: string, now: number): Promise<string> => {
      await db.insertInto('endpoint_badges').values({ url_id: urlId, badge_token: token, created_at: now })
        .onConflict((oc) => oc.column('url_id').doNothing())
        .execute();
      return (await tokenOf(urlId))!;
    },
    /** Replaces the endpoint's token (or makes its first): the old one finds nothing from now on. */
    rotate: async (urlId: number, token: string, now: number): Promise<void> => {
      await db.insertInto('endpoint_badges').values({ url_id: urlId, badge_token: token, created_at: now })
        .onConflict((oc) => oc.column('url_id').doUpdateSet({ badge_token: token, created_at: now }))
        .execute();
    },
    endpointOf: async (token: string): Promise<number | null> => {
      const row = await db.selectFrom('endpoint_badges').select('url_id').where('badge_token', '=', token).executeTakeFirst();
      return row ? Number(row.url_id) : null;
    },
  };
}
export type BadgesRepo = ReturnType<typeof createBadgesRepo>;
