// Status-page subscribers and their durable mail outbox. Owner-side reads go through the
// page, which the caller has already found with StatusPagesRepo.ownedPage(ownerId, pageId).
// Kysely, so the same code runs on SQLite and on Postgres (status-mail-repo.test.ts runs it on both).
import type { Kysely, Selectable, Transaction } from 'kysely';
import type { Schema, StatusMailOutboxTable, StatusSubscribersTable } from './sql/schema';

// A row as read: the table's own type (sql/schema.ts), so a new column is declared once.
export type SubscriberRow = Selectable<StatusSubscribersTable>;
export type MailRow = Omit<Selectable<StatusMailOutboxTable>, 'created_at' | 'sent_at'>;

export interface NewMail {
  /** null: not a page's mail (a workspace's monthly report shares this outbox and its sender). */
  pageId: number | null;
  to: string;
  subject: string;
  body: string;
  unsubscribeUrl: string | null;
  key: string;
}

const SUBSCRIBER = ['subscriber_id', 'page_id', 'email', 'token', 'confirmed_at', 'expires_at', 'created_at'] as const;
const MAIL = ['mail_id', 'page_id', 'to_email', 'subject', 'body', 'unsubscribe_url', 'idempotency_key', 'status', 'attempts', 'next_attempt_at', 'last_error'] as const;
const changed = (r: { numUpdatedRows?: bigint; numDeletedRows?: bigint; numInsertedOrUpdatedRows?: bigint | undefined }) =>
  Number(r.numUpdatedRows ?? r.numDeletedRows ?? r.numInsertedOrUpdatedRows ?? 0n);

function mailQueries(db: Kysely<Schema>) {
  const subscribers = () => db.selectFrom('status_subscribers').select(SUBSCRIBER);
  return {
    subscriber: (pageId: number, email: string): Promise<SubscriberRow | undefined> =>
      subscribers().where('page_id', '=', pageId).where('email', '=', email).executeTakeFirst(),
    byToken: (tokenHash: string): Promise<SubscriberRow | undefined> => subscribers().where('token', '=', tokenHash).executeTakeFirst(),
    byId: (id: number): Promise<SubscriberRow | undefined> => subscribers().where('subscriber_id', '=', id).executeTakeFirst(),
    /** A new unconfirmed subscriber's id; undefined when the page already has this address (UNIQUE (page_id, email)). */
    insert: async (pageId: number, email: string, tokenHash: string, expiresAt: number, now: number): Promise<number | undefined> => {
      const row = await db.insertInto('status_subscribers')
        .values({ page_id: pageId, email, token: tokenHash, expires_at: expiresAt, created_at: now, confirmed_at: null })
        .onConflict((oc) => oc.columns(['page_id', 'email']).doNothing())
        .returning('subscriber_id').executeTakeFirst();
      return row?.subscriber_id;
    },
    /** A new token for a subscriber not yet confirmed; false once confirmed. */
    renew: async (id: number, tokenHash: string, expiresAt: number): Promise<boolean> =>
      changed(await db.updateTable('status_subscribers').set({ token: tokenHash, expires_at: expiresAt })
        .where('subscriber_id', '=', id).where('confirmed_at', 'is', null).executeTakeFirst()) > 0,
    /** Compare-and-set: true for the one call that confirms it. */
    confirm: async (id: number, at: number): Promise<boolean> =>
      changed(await db.updateTable('status_subscribers').set({ confirmed_at: at })
        .where('subscriber_id', '=', id).where('confirmed_at', 'is', null).executeTakeFirst()) > 0,
    remove: async (pageId: number, id: number): Promise<boolean> =>
      changed(await db.deleteFrom('status_subscribers').where('subscriber_id', '=', id).where('page_id', '=', pageId).executeTakeFirst()) > 0,
    ofPage: (pageId: number): Promise<SubscriberRow[]> => subscribers().where('page_id', '=', pageId).orderBy('subscriber_id').execute(),
    confirmedOf: (pageId: number): Promise<SubscriberRow[]> =>
      subscribers().where('page_id', '=', pageId).where('confirmed_at', 'is not', null).orderBy('subscriber_id').execute(),
    pruneUnconfirmed: async (now: number): Promise<number> =>
      changed(await db.deleteFrom('status_subscribers').where('confirmed_at', 'is', null).where('expires_at', '<', now).executeTakeFirst()),
    /** Queues a mail once per idempotency key; true when it was new. */
    enqueue: async (m: NewMail, now: number): Promise<boolean> =>
      (await db.insertInto('status_mail_outbox')
        .values({ page_id: m.pageId, to_email: m.to, subject: m.subject, body: m.body, unsubscribe_url: m.unsubscribeUrl, idempotency_key: m.key, next_attempt_at: now, created_at: now, last_error: null, sent_at: null })
        .onConflict((oc) => oc.column('idempotency_key').doNothing())
        .returning('mail_id').executeTakeFirst()) !== undefined,
    due: (now: number, limit: number): Promise<MailRow[]> =>
      db.selectFrom('status_mail_outbox').select(MAIL).where('status', '=', 'pending').where('next_attempt_at', '<=', now)
        .orderBy('next_attempt_at').orderBy('mail_id').limit(limit).execute(),
    nextDue: async (): Promise<number | null> =>
      (await db.selectFrom('status_mail_outbox').select((eb) => eb.fn.min('next_attempt_at').as('next')).where('status', '=', 'pending').executeTakeFirst())?.next ?? null,
    markSent: async (id: number, at: number): Promise<void> => {
      await db.updateTable('status_mail_outbox').set((eb) => ({ status: 'sent', attempts: eb('attempts', '+', 1), sent_at: at, last_error: null })).where('mail_id', '=', id).execute();
    },
    markRetry: async (id: number, nextAt: number, error: string): Promise<void> => {
      await db.updateTable('status_mail_outbox').set((eb) => ({ attempts: eb('attempts', '+', 1), next_attempt_at: nextAt, last_error: error })).where('mail_id', '=', id).execute();
    },
    markFailed: async (id: number, error: string): Promise<void> => {
      await db.updateTable('status_mail_outbox').set((eb) => ({ status: 'failed', attempts: eb('attempts', '+', 1), last_error: error })).where('mail_id', '=', id).execute();
    },
    /** Records a maintenance notice; true the first time for this window and event (of all processes). */
    notice: async (windowId: number, event: string, at: number): Promise<boolean> =>
      (await db.insertInto('status_maintenance_notices').values({ window_id: windowId, event, sent_at: at })
        .onConflict((oc) => oc.columns(['window_id', 'event']).doNothing())
        .returning('window_id').executeTakeFirst()) !== undefined,
  };
}
type MailQueries = ReturnType<typeof mailQueries>;

export function createStatusMailRepo(db: Kysely<Schema>) {
  return {
    ...mailQueries(db),
    /** Runs `fn` in one transaction: `mail` is this repo inside it, `trx` for the caller's own rows. */
    transaction: <T>(fn: (mail: MailQueries, trx: Transaction<Schema>) => Promise<T>): Promise<T> =>
      db.transaction().execute((trx) => fn(mailQueries(trx), trx)),
  };
}
export type StatusMailRepo = ReturnType<typeof createStatusMailRepo>;
