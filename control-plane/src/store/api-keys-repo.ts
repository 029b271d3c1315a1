// API keys: only a SHA-256 of the key is stored (keys are 192 random bits, so no slow hash is needed).
import type { ApiKey } from '@upfleet/proto/rest';
import type { Db } from './db';

/** `user_id` is the key's workspace; `created_by` the member whose role it acts with. */
export interface ApiKeyOwner { id: number; user_id: number; created_by: number | null }

export function createApiKeysRepo(db: Db) {
  const q = {
    list: db.prepare('SELECT id, name, prefix, created_at, last_used_at FROM api_keys WHERE user_id = ? ORDER BY id'),
    get: db.prepare('SELECT id, name, prefix, created_at, last_used_at FROM api_keys WHERE user_id = ? AND id = ?'),
    count: db.prepare('SELECT COUNT(*) FROM api_keys WHERE user_id = ?').pluck(),
    insert: db.prepare('INSERT INTO api_keys (user_id, name, prefix, key_hash, created_by) VALUES (?, ?, ?, ?, ?)'),
    byHash: db.prepare('SELECT id, user_id, created_by FROM api_keys WHERE key_hash = ?'),
    touch: db.prepare('UPDATE api_keys SET last_used_at = ? WHERE id = ?'),
    delete: db.prepare('DELETE FROM api_keys WHERE user_id = ? AND id = ?'),
  };
  return {
    list: (userId: number) => q.list.all(userId) as ApiKey[],
    get: (userId: number, id: number) => q.get.get(userId, id) as ApiKey | undefined,
    count: (userId: number) => q.count.get(userId) as number,
    insert: (userId: number, name: string, prefix: string, keyHash: string, createdBy: number = userId): number =>
      Number(q.insert.run(userId, name, prefix, keyHash, createdBy).lastInsertRowid),
    byHash: (keyHash: string) => q.byHash.get(keyHash) as ApiKeyOwner | undefined,
    touch: (id: number, at: string) => q.touch.run(at, id),
    delete: (userId: number, id: number): boolean => q.delete.run(userId, id).changes === 1,
  };
}
export type ApiKeysRepo = ReturnType<typeof createApiKeysRepo>;
