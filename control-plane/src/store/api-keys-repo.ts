// API keys: only a SHA-256 of the key is stored (keys are 192 random bits, so no slow hash is needed).
import type { Kysely } from 'kysely';
import type { ApiKey } from '@upfleet/proto/rest';
import type { Schema } from './sql/schema';

/** `user_id` is the key's workspace; `created_by` the member whose role it acts with. */
export interface ApiKeyOwner { id: number; user_id: number; created_by: number | null }

const SHOWN = ['id', 'name', 'prefix', 'created_at', 'last_used_at'] as const;

export function createApiKeysRepo(db: Kysely<Schema>) {
  return {
    list: (userId: number): Promise<ApiKey[]> =>
      db.selectFrom('api_keys').select(SHOWN).where('user_id', '=', userId).orderBy('id').execute(),
    get: (userId: number, id: number): Promise<ApiKey | undefined> =>
      db.selectFrom('api_keys').select(SHOWN).where('user_id', '=', userId).where('id', '=', id).executeTakeFirst(),
    count: async (userId: number): Promise<number> =>
      Number((await db.selectFrom('api_keys').select((eb) => eb.fn.countAll<number>().as('n')).where('user_id', '=', userId).executeTakeFirstOrThrow()).n),
    insert: async (userId: number, name: string, prefix: string, keyHash: string, createdBy: number = userId): Promise<number> =>
      Number((await db.insertInto('api_keys').values({ user_id: userId, name, prefix, key_hash: keyHash, created_by: createdBy })
        .returning('id').executeTakeFirstOrThrow()).id),
    byHash: (keyHash: string): Promise<ApiKeyOwner | undefined> =>
      db.selectFrom('api_keys').select(['id', 'user_id', 'created_by']).where('key_hash', '=', keyHash).executeTakeFirst(),
    touch: async (id: number, at: string): Promise<void> => {
      await db.updateTable('api_keys').set({ last_used_at: at }).where('id', '=', id).execute();
    },
    delete: async (userId: number, id: number): Promise<boolean> =>
      Number((await db.deleteFrom('api_keys').where('user_id', '=', userId).where('id', '=', id).executeTakeFirst()).numDeletedRows) === 1,
  };
}
export type ApiKeysRepo = ReturnType<typeof createApiKeysRepo>;
