// The escalation policies repo on both databases (SQLite and Postgres).
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { freshSql, insertTestUser, SQL_DIALECTS } from '../testing/sql';
import { createEscalationPoliciesRepo } from './escalation-policies-repo';

describe.each(SQL_DIALECTS)('escalation policies repo on $title', (d) => {
  const db = freshSql(d);
  const policy = { name: 'On call', steps: [{ wait_minutes: 0, alert_method_ids: [1] }, { wait_minutes: 10, alert_method_ids: [2, 3] }], repeat: 2, repeat_every_minutes: 15 };

  it('stores, lists, replaces and deletes a workspace\'s policies; another workspace sees none of them', async () => {
    const repo = createEscalationPoliciesRepo(db().db);
    const a = await insertTestUser(db());
    const b = await insertTestUser(db());
    const id = await repo.insert(a, policy, 1000);
    expect(await repo.get(a, id)).toEqual({ escalation_policy_id: id, user_id: a, ...policy, created_at: 1000 });
    expect(await repo.get(b, id)).toBeUndefined();
    expect(await repo.list(b)).toEqual([]);
    expect(await repo.update(b, id, { ...policy, name: 'Stolen' })).toBe(false);
    expect(await repo.delete(b, id)).toBe(false);
    expect(await repo.update(a, id, { ...policy, name: 'Renamed', repeat: 0 })).toBe(true);
    expect((await repo.list(a)).map((p) => [p.name, p.repeat])).toEqual([['Renamed', 0]]);
    expect(await repo.delete(a, id)).toBe(true);
    expect(await repo.list(a)).toEqual([]);
  });

  it('deleting a policy sends its endpoints back to no policy, only in its workspace', async () => {
    const repo = createEscalationPoliciesRepo(db().db);
    const a = await insertTestUser(db());
    const id = await repo.insert(a, policy, 1000);
    await sql`INSERT INTO endpoints (guid, user_id, name, url, regions, escalation_policy_id) VALUES ('g1', ${a}, 'Site', 'https://a.example.com/', '[]', ${id})`.execute(db().db);
    expect(await repo.delete(a, id)).toBe(true);
    const row = await db().db.selectFrom('endpoints').select('escalation_policy_id').where('user_id', '=', a).executeTakeFirstOrThrow();
    expect(row.escalation_policy_id).toBeNull();
  });

  it('says which alert method ids belong to the workspace', async () => {
    const repo = createEscalationPoliciesRepo(db().db);
    const a = await insertTestUser(db());
    const b = await insertTestUser(db());
    const add = async (user: number, platform: string) =>
      Number((await sql<{ alert_method_id: number }>`INSERT INTO alert_methods (user_id, platform, config_enc) VALUES (${user}, ${platform}, 'x') RETURNING alert_method_id`.execute(db().db)).rows[0].alert_method_id);
    const mine = await add(a, 'webhook');
    const theirs = await add(b, 'webhook');
    expect(await repo.ownMethodIds(a, [mine, theirs, 999999])).toEqual(new Set([mine]));
    expect(await repo.ownMethodIds(a, [])).toEqual(new Set());
  });
});
