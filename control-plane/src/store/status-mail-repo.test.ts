// Status-page subscribers and the mail outbox on both databases (SQLite and Postgres).
import { describe, expect, it } from 'vitest';
import { freshSql, insertTestUser, SQL_DIALECTS } from '../testing/sql';
import type { Sql } from './sql/open';
import { createStatusMailRepo, type NewMail } from './status-mail-repo';

async function pageOf(s: Sql, slug: string): Promise<number> {
  const user = await insertTestUser(s);
  const row = await s.db.insertInto('status_pages').values({ user_id: user, slug, title: slug, password_hash: null, custom_domain: null, custom_domain_claim: null, custom_domain_token: 'tok', custom_domain_checked_at: null })
    .returning('page_id').executeTakeFirstOrThrow();
  return row.page_id;
}
const mailTo = (to: string, key: string, pageId: number | null = null): NewMail => ({ pageId, to, subject: `to ${to}`, body: 'b', unsubscribeUrl: null, key });

describe.each(SQL_DIALECTS)('status mail repo on $title', (d) => {
  const sql = freshSql(d);

  it('adds a subscriber once per page and address; renews and confirms only while unconfirmed', async () => {
    const repo = createStatusMailRepo(sql().db);
    const page = await pageOf(sql(), 'a');
    const other = await pageOf(sql(), 'b');
    const id = await repo.insert(page, 'ann@example.com', 'h1', 5000, 1000);
    expect(id).toEqual(expect.any(Number));
    expect(await repo.insert(page, 'ann@example.com', 'h2', 5000, 1000)).toBeUndefined();
    expect(await repo.insert(other, 'ann@example.com', 'h3', 5000, 1000)).toEqual(expect.any(Number));
    expect(await repo.subscriber(page, 'ann@example.com')).toEqual({
      subscriber_id: id, page_id: page, email: 'ann@example.com', token: 'h1', confirmed_at: null, expires_at: 5000, created_at: 1000,
    });
    expect(await repo.renew(id!, 'h4', 9000)).toBe(true);
    expect((await repo.byToken('h4'))?.subscriber_id).toBe(id);
    expect(await repo.byToken('h1')).toBeUndefined();
    const both = await Promise.all([repo.confirm(id!, 2000), repo.confirm(id!, 2001)]);
    expect(both.filter(Boolean)).toHaveLength(1);
    expect((await repo.byId(id!))?.confirmed_at).toBe(2000);
    expect(await repo.renew(id!, 'h5', 9999)).toBe(false);
    expect((await repo.confirmedOf(page)).map((s) => s.email)).toEqual(['ann@example.com']);
    expect(await repo.confirmedOf(other)).toEqual([]);
    expect((await repo.ofPage(other)).map((s) => s.email)).toEqual(['ann@example.com']);
  });

  it('removes a subscriber only through its own page, and prunes expired unconfirmed ones', async () => {
    const repo = createStatusMailRepo(sql().db);
    const page = await pageOf(sql(), 'a');
    const other = await pageOf(sql(), 'b');
    const ann = (await repo.insert(page, 'ann@example.com', 'h1', 5000, 1000))!;
    const bob = (await repo.insert(page, 'bob@example.com', 'h2', 5000, 1000))!;
    await repo.insert(page, 'cy@example.com', 'h3', 50_000, 1000);
    await repo.confirm(bob, 2000);
    expect(await repo.remove(other, ann)).toBe(false);
    expect(await repo.pruneUnconfirmed(6000)).toBe(1);
    expect((await repo.ofPage(page)).map((s) => s.email)).toEqual(['bob@example.com', 'cy@example.com']);
    expect(await repo.remove(page, bob)).toBe(true);
    expect(await repo.remove(page, bob)).toBe(false);
    // a page's deletion takes its subscribers along
    await sql().db.deleteFrom('status_pages').where('page_id', '=', page).execute();
    expect(await repo.ofPage(page)).toEqual([]);
  });

  it('queues a mail once per idempotency key, hands out what is due in order, and records each outcome', async () => {
    const repo = createStatusMailRepo(sql().db);
    const page = await pageOf(sql(), 'a');
    expect(await repo.nextDue()).toBeNull();
    expect(await repo.enqueue(mailTo('a@example.com', 'k1', page), 3000)).toBe(true);
    expect(await repo.enqueue(mailTo('a@example.com', 'k1', page), 3000)).toBe(false);
    expect(await repo.enqueue(mailTo('b@example.com', 'k2'), 1000)).toBe(true);
    expect(await repo.enqueue(mailTo('c@example.com', 'k3'), 2000)).toBe(true);
    expect(await repo.nextDue()).toBe(1000);
    expect((await repo.due(2500, 10)).map((m) => m.idempotency_key)).toEqual(['k2', 'k3']);
    expect((await repo.due(5000, 1)).map((m) => m.to_email)).toEqual(['b@example.com']);
    const [b, c, a] = await repo.due(5000, 10);
    expect(a).toMatchObject({ page_id: page, subject: 'to a@example.com', status: 'pending', attempts: 0, next_attempt_at: 3000, last_error: null });
    await repo.markSent(b.mail_id, 4000);
    await repo.markRetry(c.mail_id, 9000, 'SMTP: busy');
    await repo.markFailed(a.mail_id, 'SMTP: no such user');
    expect(await repo.due(5000, 10)).toEqual([]);
    expect(await repo.nextDue()).toBe(9000);
    expect(await repo.due(9000, 10)).toEqual([expect.objectContaining({ idempotency_key: 'k3', attempts: 1, last_error: 'SMTP: busy' })]);
    const rows = await sql().db.selectFrom('status_mail_outbox').select(['idempotency_key', 'status', 'attempts', 'sent_at']).orderBy('idempotency_key').execute();
    expect(rows).toEqual([
      { idempotency_key: 'k1', status: 'failed', attempts: 1, sent_at: null },
      { idempotency_key: 'k2', status: 'sent', attempts: 1, sent_at: 4000 },
      { idempotency_key: 'k3', status: 'pending', attempts: 1, sent_at: null },
    ]);
  });

  it('records a maintenance notice once per window and event, also when two processes record it at once', async () => {
    const repo = createStatusMailRepo(sql().db);
    const user = await insertTestUser(sql());
    const w = await sql().db.insertInto('maintenance_windows').values({ user_id: user, title: 'w', starts_at: 1, ends_at: 2, created_at: 0 }).returning('window_id').executeTakeFirstOrThrow();
    const first = await Promise.all([repo.notice(w.window_id, 'started', 10), repo.notice(w.window_id, 'started', 11)]);
    expect(first.filter(Boolean)).toHaveLength(1);
    expect(await repo.notice(w.window_id, 'completed', 12)).toBe(true);
    expect(await repo.notice(w.window_id, 'completed', 13)).toBe(false);
  });

  it('commits a transaction whole or not at all', async () => {
    const repo = createStatusMailRepo(sql().db);
    await expect(repo.transaction(async (mail) => {
      await mail.enqueue(mailTo('a@example.com', 'in-tx'), 1);
      throw new Error('rolled back');
    })).rejects.toThrow('rolled back');
    expect(await repo.nextDue()).toBeNull();
    expect(await repo.transaction(async (mail) => mail.enqueue(mailTo('a@example.com', 'in-tx'), 1))).toBe(true);
    expect(await repo.nextDue()).toBe(1);
  });
});
