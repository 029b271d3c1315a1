// Billing rows: the Stripe mirror (customers, subscriptions), processed webhook events, claimed
// checkouts and the plan changes the dashboard reports. Every per-user query names the user.
// Kysely, so the same code runs on SQLite and on Postgres (billing-repo.test.ts runs it on both).
import type { Kysely } from 'kysely';
import type { BillingSubscriptionsTable, PlanChangesTable, Schema } from './sql/schema';
import { inTransaction } from './sql/transaction';

export type SubscriptionRow = BillingSubscriptionsTable;

export interface PlanChangeRow extends Omit<PlanChangesTable, 'id'> {
  id: number;
}

export function createBillingRepo(db: Kysely<Schema>) {
  const userOfCustomer = async (customerId: string): Promise<number | undefined> =>
    (await db.selectFrom('billing_customers').select('user_id').where('stripe_customer_id', '=', customerId).executeTakeFirst())?.user_id;
  return {
    /** Runs `fn` in one transaction (joining the one `db` is in, if any); build the repos it uses from `trx`. */
    transaction: <T>(fn: (trx: Kysely<Schema>) => Promise<T>): Promise<T> => inTransaction(db, fn),
    /** The user's newest customer (insertion order breaks a tie in time: SQLite's rowid before, the claim order now). */
    customerOf: async (userId: number): Promise<string | undefined> =>
      (await db.selectFrom('billing_customers').select('stripe_customer_id').where('user_id', '=', userId)
        .orderBy('created_at', 'desc').orderBy('claimed_at_login', 'asc').orderBy('stripe_customer_id', 'desc').limit(1)
        .executeTakeFirst())?.stripe_customer_id,
    userOfCustomer,
    /** Links a customer to a user (a user may have several: one per checkout email); false when
     *  the customer already belongs to someone else. `claimedAtLogin`: an anonymous checkout
     *  claimed by an existing account (it ranks after the user's own subscriptions). */
    linkCustomer: async (userId: number, customerId: string, at: number, claimedAtLogin = false): Promise<boolean> => {
      await db.insertInto('billing_customers')
        .values({ stripe_customer_id: customerId, user_id: userId, created_at: at, claimed_at_login: claimedAtLogin ? 1 : 0 })
        .onConflict((oc) => oc.column('stripe_customer_id').doNothing()).execute();
      return (await userOfCustomer(customerId)) === userId;
    },
    subscription: (id: string): Promise<SubscriptionRow | undefined> =>
      db.selectFrom('billing_subscriptions').selectAll().where('stripe_subscription_id', '=', id).executeTakeFirst(),
    // The user's own first (signed-in checkouts, checkouts claimed at signup), then checkouts claimed
    // at login: one of those never decides the plan over the user's own; newest first within each.
    subscriptionsOf: (userId: number): Promise<SubscriptionRow[]> =>
      db.selectFrom('billing_subscriptions as s')
        .leftJoin('billing_customers as c', (j) => j.onRef('c.stripe_customer_id', '=', 's.stripe_customer_id').onRef('c.user_id', '=', 's.user_id'))
        .selectAll('s')
        .where('s.user_id', '=', userId)
        .orderBy((eb) => eb.fn.coalesce('c.claimed_at_login', eb.lit(0)))
        .orderBy('s.created', 'desc').orderBy('s.stripe_subscription_id', 'desc')
        .execute(),
    upsertSubscription: async (row: SubscriptionRow): Promise<void> => {
      const { stripe_subscription_id: _id, ...rest } = row;
      await db.insertInto('billing_subscriptions').values(row)
        .onConflict((oc) => oc.column('stripe_subscription_id').doUpdateSet(rest)).execute();
    },
    pastDueUsers: async (since: number): Promise<number[]> =>
      (await db.selectFrom('billing_subscriptions').select('user_id').distinct()
        .where('status', '=', 'past_due').where('past_due_since', '<=', since).execute()).map((r) => r.user_id),
    eventSeen: async (eventId: string): Promise<boolean> =>
      (await db.selectFrom('billing_events').select('event_id').where('event_id', '=', eventId).executeTakeFirst()) !== undefined,
    /** Records a processed event; false when it was already recorded (a replay, on any process). */
    recordEvent: async (eventId: string, type: string, at: number): Promise<boolean> =>
      Number((await db.insertInto('billing_events').values({ event_id: eventId, type, received_at: at })
        .onConflict((oc) => oc.column('event_id').doNothing()).executeTakeFirst()).numInsertedOrUpdatedRows ?? 0) === 1,
    claimOf: async (sessionId: string): Promise<number | undefined> =>
      (await db.selectFrom('billing_checkout_claims').select('user_id').where('checkout_session_id', '=', sessionId).executeTakeFirst())?.user_id,
    /** Claims a checkout for a user; false when someone already claimed it. */
    claim: async (sessionId: string, userId: number, at: number): Promise<boolean> =>
      Number((await db.insertInto('billing_checkout_claims').values({ checkout_session_id: sessionId, user_id: userId, claimed_at: at })
        .onConflict((oc) => oc.column('checkout_session_id').doNothing()).executeTakeFirst()).numInsertedOrUpdatedRows ?? 0) === 1,
    insertPlanChange: async (c: Omit<PlanChangeRow, 'id' | 'dismissed_at'>): Promise<number> =>
      Number((await db.insertInto('plan_changes').values(c).returning('id').executeTakeFirstOrThrow()).id),
    openPlanChanges: (userId: number): Promise<PlanChangeRow[]> =>
      db.selectFrom('plan_changes').selectAll().where('user_id', '=', userId).where('dismissed_at', 'is', null).orderBy('id', 'desc').limit(10).execute(),
    dismissPlanChange: async (userId: number, id: number, at: number): Promise<boolean> =>
      Number((await db.updateTable('plan_changes').set({ dismissed_at: at })
        .where('id', '=', id).where('user_id', '=', userId).where('dismissed_at', 'is', null).executeTakeFirst()).numUpdatedRows) === 1,
  };
}
export type BillingRepo = ReturnType<typeof createBillingRepo>;
