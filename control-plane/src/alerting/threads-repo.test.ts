// The incidents' threads repo on both databases (SQLite and Postgres).
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { freshSql, insertTestUser, SQL_DIALECTS } from '../testing/sql';
import { createThreadsRepo } from './threads-repo';

describe.each(SQL_DIALECTS)('threads repo on $title', (d) => {
  const db = freshSql(d);

  it('keeps the first thread of an incident at a method, per method, and forgets it with the incident', async () => {
    const repo = createThreadsRepo(db().db);
    const user = await insertTestUser(db());
    const method = async (platform: string) =>
      Number((await sql<{ id: number }>`INSERT INTO alert_methods (user_id, platform, config_enc) VALUES (${user}, ${platform}, 'x') RETURNING alert_method_id AS id`.execute(db().db)).rows[0].id);
    const slack = await method('slack');
    const other = await method('teams');
    const incident = Number((await sql<{ id: number }>`INSERT INTO incidents (user_id, url_id, condition, cause, opened_at) VALUES (${user}, 1, 'down', 'x', 1000) RETURNING incident_id AS id`.execute(db().db)).rows[0].id);
    expect(await repo.get(incident, slack)).toBeNull();
    await repo.save(incident, slack, { channel: 'C1', ts: '1.1' }, 2000);
    await repo.save(incident, slack, { channel: 'C1', ts: '2.2' }, 3000);
    expect(await repo.get(incident, slack)).toEqual({ channel: 'C1', ts: '1.1' });
    expect(await repo.get(incident, other)).toBeNull();
    await sql`DELETE FROM incidents WHERE incident_id = ${incident}`.execute(db().db);
    expect(await repo.get(incident, slack)).toBeNull();
  });
});
