// The badges repo on both databases (SQLite and Postgres).
import { sql as raw } from 'kysely';
import { describe, expect, it } from 'vitest';
import { freshSql, insertTestUser, SQL_DIALECTS } from '../testing/sql';
import { createBadgesRepo } from './badges-repo';
import type { Sql } from './sql/open';

async function insertEndpoint(s: Sql, userId: number): Promise<number> {
  const row = await raw<{ url_id: number }>`INSERT INTO endpoints (guid, user_id, name, url) VALUES (${`g-${Math.random()}`}, ${userId}, 'Shop', 'https://example.com/') RETURNING url_id`.execute(s.db);
  return Number(row.rows[0].url_id);
}

describe.each(SQL_DIALECTS)('badges repo on $title', (d) => {
  const sql = freshSql(d);

  it('keeps the first token of an endpoint, also when two first uses race', async () => {
    const repo = createBadgesRepo(sql().db);
    const id = await insertEndpoint(sql(), await insertTestUser(sql()));
    expect(await repo.tokenOf(id)).toBeNull();
    const [a, b] = await Promise.all([repo.ensure(id, 'tok-a', 1000), repo.ensure(id, 'tok-b', 1000)]);
    expect(a).toBe(b);
    expect(await repo.ensure(id, 'tok-c', 2000)).toBe(a);
    expect(await repo.endpointOf(a)).toBe(id);
    expect(await repo.endpointOf('tok-c')).toBeNull();
  });

  it('rotates: the new token finds the endpoint, the old one nothing; deleting the endpoint drops its token', async () => {
    const repo = createBadgesRepo(sql().db);
    const id = await insertEndpoint(sql(), await insertTestUser(sql()));
    await repo.ensure(id, 'old', 1000);
    await repo.rotate(id, 'new', 2000);
    expect(await repo.endpointOf('old')).toBeNull();
    expect(await repo.endpointOf('new')).toBe(id);
    expect(await repo.tokenOf(id)).toBe('new');
    await raw`DELETE FROM endpoints WHERE url_id = ${id}`.execute(sql().db);
    expect(await repo.endpointOf('new')).toBeNull();
  });
});
