// The incident events repo on both databases: what the timeline reads back, in order, per incident.
import { sql as raw } from 'kysely';
import { describe, expect, it } from 'vitest';
import { freshSql, insertTestUser, SQL_DIALECTS } from '../testing/sql';
import { createTimelineRepo } from './timeline-repo';

describe.each(SQL_DIALECTS)('timeline repo on $title', (d) => {
  const sql = freshSql(d);

  async function incident(user: number): Promise<number> {
    const r = await raw<{ incident_id: number }>`INSERT INTO incidents (user_id, url_id, condition, regions, cause, opened_at)
      VALUES (${user}, 1, ${`down-${Math.random()}`}, '[]', 'HTTP 503', 1000) RETURNING incident_id`.execute(sql().db);
    return Number(r.rows[0].incident_id);
  }

  it('reads an incident\'s events by time (then by insertion), never another incident\'s', async () => {
    const repo = createTimelineRepo(sql().db);
    const user = await insertTestUser(sql());
    const a = await incident(user);
    const b = await incident(user);
    await repo.add({ incident_id: a, at: 3000, type: 'acknowledged', step: null, alert_method_id: 7, detail: 'via link' });
    await repo.add({ incident_id: a, at: 2000, type: 'escalated', step: 2, alert_method_id: null, detail: 'to step 2' });
    await repo.add({ incident_id: a, at: 2000, type: 'reminder', step: 2, alert_method_id: null, detail: '' });
    await repo.add({ incident_id: b, at: 1500, type: 'escalated', step: 2, alert_method_id: null, detail: '' });
    const events = await repo.of(a);
    expect(events.map((e) => [e.at, e.type, e.step, e.alert_method_id, e.detail])).toEqual([
      [2000, 'escalated', 2, null, 'to step 2'], [2000, 'reminder', 2, null, ''], [3000, 'acknowledged', null, 7, 'via link'],
    ]);
    expect(events.every((e) => e.incident_id === a)).toBe(true);
    expect(await repo.of(b + 1000)).toEqual([]);
  });
});
