// Status-page subscribers and their durable mail outbox. Owner-side reads go through the
// page, which the caller has already found with StatusPagesRepo.ownedPage(ownerId, pageId).
import type { Db } from './db';

export interface SubscriberRow {
  subscriber_id: number;
  page_id: number;
  email: string;
  token: string;
  confirmed_at: number | null;
  expires_at: number;
  created_at: number;
}

export interface MailRow {
  mail_id: number;
  page_id: number | null;
  to_email: string;
  subject: string;
  body: string;
  unsubscribe_url: string | null;
  idempotency_key: string;
  status: 'pending' | 'sent' | 'failed';
  attempts: number;
  next_attempt_at: number;
  last_error: string | null;
}

export interface NewMail {
  /** null: not a page's mail (a workspace's monthly report shares this outbox and its sender). */
  pageId: number | null;
  to: string;
  subject: string;
  body: string;
  unsubscribeUrl: string | null;
  key: string;
}

export function createStatusMailRepo(db: Db) {
  const q = {
    subscriber: db.prepare('SELECT * FROM status_subscribers WHERE page_id = ? AND email = ?'),
    byToken: db.prepare('SELECT * FROM status_subscribers WHERE token = ?'),
    byId: db.prepare('SELECT * FROM status_subscribers WHERE subscriber_id = ?'),
    insert: db.prepare('INSERT INTO status_subscribers (page_id, email, token, expires_at, created_at) VALUES (?, ?, ?, ?, ?)'),
    renew: db.prepare('UPDATE status_subscribers SET token = ?, expires_at = ? WHERE subscriber_id = ? AND confirmed_at IS NULL'),
    confirm: db.prepare('UPDATE status_subscribers SET confirmed_at = ? WHERE subscriber_id = ? AND confirmed_at IS NULL'),
    remove: db.prepare('DELETE FROM status_subscribers WHERE subscriber_id = ? AND page_id = ?'),
    ofPage: db.prepare('SELECT * FROM status_subscribers WHERE page_id = ? ORDER BY subscriber_id'),
    confirmedOf: db.prepare('SELECT * FROM status_subscribers WHERE page_id = ? AND confirmed_at IS NOT NULL ORDER BY subscriber_id'),
    pruneUnconfirmed: db.prepare('DELETE FROM status_subscribers WHERE confirmed_at IS NULL AND expires_at < ?'),
    enqueue: db.prepare(`INSERT OR IGNORE INTO status_mail_outbox (page_id, to_email, subject, body, unsubscribe_url, idempotency_key, next_attempt_at, created_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?)`),
    due: db.prepare("SELECT * FROM status_mail_outbox WHERE status = 'pending' AND next_attempt_at <= ? ORDER BY next_attempt_at, mail_id LIMIT ?"),
    nextDue: db.prepare("SELECT MIN(next_attempt_at) FROM status_mail_outbox WHERE status = 'pending'").pluck(),
    sent: db.prepare("UPDATE status_mail_outbox SET status = 'sent', attempts = attempts + 1, sent_at = ?, last_error = NULL WHERE mail_id = ?"),
    retry: db.prepare('UPDATE status_mail_outbox SET attempts = attempts + 1, next_attempt_at = ?, last_error = ? WHERE mail_id = ?'),
    failed: db.prepare("UPDATE status_mail_outbox SET status = 'failed', attempts = attempts + 1, last_error = ? WHERE mail_id = ?"),
    notice: db.prepare('INSERT OR IGNORE INTO status_maintenance_notices (window_id, event, sent_at) VALUES (?, ?, ?)'),
  };
  return {
    subscriber: (pageId: number, email: string) => q.subscriber.get(pageId, email) as SubscriberRow | undefined,
    byToken: (tokenHash: string) => q.byToken.get(tokenHash) as SubscriberRow | undefined,
    byId: (id: number) => q.byId.get(id) as SubscriberRow | undefined,
    insert: (pageId: number, email: string, tokenHash: string, expiresAt: number, now: number) => Number(q.insert.run(pageId, email, tokenHash, expiresAt, now).lastInsertRowid),
    renew: (id: number, tokenHash: string, expiresAt: number) => q.renew.run(tokenHash, expiresAt, id).changes > 0,
    confirm: (id: number, at: number) => q.confirm.run(at, id).changes > 0,
    remove: (pageId: number, id: number) => q.remove.run(id, pageId).changes > 0,
    ofPage: (pageId: number) => q.ofPage.all(pageId) as SubscriberRow[],
    confirmedOf: (pageId: number) => q.confirmedOf.all(pageId) as SubscriberRow[],
    pruneUnconfirmed: (now: number) => q.pruneUnconfirmed.run(now).changes,
    /** Queues a mail once per idempotency key; true when it was new. */
    enqueue: (m: NewMail, now: number) => q.enqueue.run(m.pageId, m.to, m.subject, m.body, m.unsubscribeUrl, m.key, now, now).changes > 0,
    due: (now: number, limit: number) => q.due.all(now, limit) as MailRow[],
    nextDue: () => (q.nextDue.get() as number | null) ?? null,
    markSent: (id: number, at: number) => void q.sent.run(at, id),
    markRetry: (id: number, nextAt: number, error: string) => void q.retry.run(nextAt, error, id),
    markFailed: (id: number, error: string) => void q.failed.run(error, id),
    /** Records a maintenance notice; true the first time for this window and event. */
    notice: (windowId: number, event: string, at: number) => q.notice.run(windowId, event, at).changes > 0,
    transaction: <T>(fn: () => T): T => db.transaction(fn)(),
  };
}
export type StatusMailRepo = ReturnType<typeof createStatusMailRepo>;
