// The API keys repo on both databases: scoped to the key's workspace, unique hashes, deletes that
// answer whether they removed a key, and keys gone with their workspace or their maker.
import { sql as rawSql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { freshSql, insertTestUser, SQL_DIALECTS } from '../testing/sql';
import { createApiKeysRepo } from './api-keys-repo';

describe.each(SQL_DIALECTS)('API keys repo on $title', (d) => {
  const sql = freshSql(d);

  it('lists, gets and counts only the workspace\'s own keys and finds a key by its hash', async () => {
    const repo = createApiKeysRepo(sql().db);
    const ann = await insertTestUser(sql());
    const bob = await insertTestUser(sql());
    const a1 = await repo.insert(ann, 'ci', 'upk_aaaaaaaa', 'hash-a1');
    const a2 = await repo.insert(ann, 'deploy', 'upk_bbbbbbbb', 'hash-a2', bob);
    const b1 = await repo.insert(bob, 'mine', 'upk_cccccccc', 'hash-b1');
    expect(a2).toBeGreaterThan(a1);
    expect((await repo.list(ann)).map((k) => k.name)).toEqual(['ci', 'deploy']);
    expect(await repo.list(ann)).toEqual([
      { id: a1, name: 'ci', prefix: 'upk_aaaaaaaa', created_at: expect.any(String), last_used_at: null },
      { id: a2, name: 'deploy', prefix: 'upk_bbbbbbbb', created_at: expect.any(String), last_used_at: null },
    ]);
    expect(await repo.count(ann)).toBe(2);
    expect(await repo.count(bob)).toBe(1);
    expect(await repo.get(ann, b1)).toBeUndefined();
    expect(await repo.byHash('hash-a2')).toEqual({ id: a2, user_id: ann, created_by: bob });
    expect(await repo.byHash('nope')).toBeUndefined();
    await repo.touch(a1, '2026-11-27T10:00:00.000Z');
    expect((await repo.get(ann, a1))?.last_used_at).toBe('2026-11-27T10:00:00.000Z');
  });

  it('refuses a second key with the same hash', async () => {
    const repo = createApiKeysRepo(sql().db);
    const ann = await insertTestUser(sql());
    await repo.insert(ann, 'one', 'upk_x', 'same-hash');
    await expect(repo.insert(ann, 'two', 'upk_y', 'same-hash')).rejects.toThrow();
    expect(await repo.count(ann)).toBe(1);
  });

  it('deletes a key only in its own workspace, once, and drops keys whose maker is deleted', async () => {
    const repo = createApiKeysRepo(sql().db);
    const ann = await insertTestUser(sql());
    const bob = await insertTestUser(sql());
    const k = await repo.insert(ann, 'ci', 'upk_a', 'h1');
    await repo.insert(ann, 'bobs', 'upk_b', 'h2', bob);
    expect(await repo.delete(bob, k)).toBe(false);
    expect(await repo.delete(ann, k)).toBe(true);
    expect(await repo.delete(ann, k)).toBe(false);
    await rawSql`DELETE FROM users WHERE id = ${bob}`.execute(sql().db);
    expect(await repo.count(ann)).toBe(0);
  });
});
