// API keys: only a SHA-256 of the key is stored (keys are 192 random bits, so no slow hash is needed).
import type { ApiKey } from '@upfleet/proto/rest';
import type { Db } from './db';

export interface ApiKeyOwner { id: number; user_id: number }

export function createApiKeysRepo(db: Db) {
  const q = {
    list: db.prepare('SELECT id, name, prefix, created_at, last_used_at FROM api_keys WHERE user_id = ? ORDER BY id'),
    get: db.prepare('SELECT id, name, prefix, created_at, last_used_at FROM api_keys WHERE user_id = ? AND id = ?'),
    count: db.prepare('SELECT COUNT(*) FROM api_keys WHERE user_id = ?').pluck(),
    insert: db.prepare('INSERT INTO api_keys (user_id, name, prefix, key_hash) VALUES (?, ?, ?, ?)'),
    byHash: db.prepare('SELECT id, user_id FROM api_keys WHERE key_hash = ?'),
    touch: db.prepare('UPDATE api_keys SET last_used_at = ? WHERE id = ?'),
    delete: db.prepare('DELETE FROM api_keys WHERE user_id = ? AND id = ?'),
  };
  return {
    list: (userId: number) => q.list.all(userId) as ApiKey[],
    get: (userId: number, id: number) => q.get.get(userId, id) as ApiKey | undefined,
    count: (userId: number) => q.count.get(userId) as number,
    insert: (userId: number, name: string, prefix: string, keyHash: string): number =>
      Number(q.insert.run(userId, name, prefix, keyHash).lastInsertRowid),
    byHash: (keyHash: string) => q.byHash.get(keyHash) as ApiKeyOwner | undefined,
    touch: (id: number, at: string) => q.touch.run(at, id),
    delete: (userId: number, id: number): boolean => q.delete.run(userId, id).changes === 1,
  };
}
export type ApiKeysRepo = ReturnType<typeof createApiKeysRepo>;
