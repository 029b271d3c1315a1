// Billing rows: the Stripe mirror (customers, subscriptions), processed webhook events, claimed
// checkouts and the plan changes the dashboard reports. Every per-user query names the user.
import type { Db } from './db';

export interface SubscriptionRow {
  stripe_subscription_id: string;
  user_id: number;
  stripe_customer_id: string;
  stripe_price_id: string;
  status: string;
  current_period_start: number | null;
  current_period_end: number | null;
  created: number;
  past_due_since: number | null;
  updated_at: number;
}

export interface PlanChangeRow {
  id: number;
  user_id: number;
  from_package: string;
  to_package: string;
  reason: string;
  message: string;
  details: string;
  created_at: number;
  dismissed_at: number | null;
}

export function createBillingRepo(db: Db) {
  const q = {
    customerOf: db.prepare('SELECT stripe_customer_id FROM billing_customers WHERE user_id = ? ORDER BY created_at DESC, rowid DESC LIMIT 1').pluck(),
    userOfCustomer: db.prepare('SELECT user_id FROM billing_customers WHERE stripe_customer_id = ?').pluck(),
    linkCustomer: db.prepare('INSERT INTO billing_customers (stripe_customer_id, user_id, created_at, claimed_at_login) VALUES (?, ?, ?, ?) ON CONFLICT(stripe_customer_id) DO NOTHING'),
    subscription: db.prepare('SELECT * FROM billing_subscriptions WHERE stripe_subscription_id = ?'),
    // The user's own first (signed-in checkouts, checkouts claimed at signup), then checkouts claimed
    // at login: one of those never decides the plan over the user's own; newest first within each.
    subscriptionsOf: db.prepare(`SELECT s.* FROM billing_subscriptions s
      LEFT JOIN billing_customers c ON c.stripe_customer_id = s.stripe_customer_id AND c.user_id = s.user_id
      WHERE s.user_id = ? ORDER BY COALESCE(c.claimed_at_login, 0), s.created DESC, s.stripe_subscription_id DESC`),
    upsertSubscription: db.prepare(`INSERT INTO billing_subscriptions (stripe_subscription_id, user_id, stripe_customer_id, stripe_price_id, status,
        current_period_start, current_period_end, created, past_due_since, updated_at)
      VALUES (@stripe_subscription_id, @user_id, @stripe_customer_id, @stripe_price_id, @status, @current_period_start, @current_period_end,
        @created, @past_due_since, @updated_at)
      ON CONFLICT(stripe_subscription_id) DO UPDATE SET user_id = excluded.user_id, stripe_customer_id = excluded.stripe_customer_id,
        stripe_price_id = excluded.stripe_price_id, status = excluded.status, current_period_start = excluded.current_period_start,
        current_period_end = excluded.current_period_end, created = excluded.created, past_due_since = excluded.past_due_since,
        updated_at = excluded.updated_at`),
    pastDueUsers: db.prepare("SELECT DISTINCT user_id FROM billing_subscriptions WHERE status = 'past_due' AND past_due_since <= ?").pluck(),
    eventSeen: db.prepare('SELECT 1 FROM billing_events WHERE event_id = ?').pluck(),
    recordEvent: db.prepare('INSERT INTO billing_events (event_id, type, received_at) VALUES (?, ?, ?) ON CONFLICT(event_id) DO NOTHING'),
    claimOf: db.prepare('SELECT user_id FROM billing_checkout_claims WHERE checkout_session_id = ?').pluck(),
    claim: db.prepare('INSERT INTO billing_checkout_claims (checkout_session_id, user_id, claimed_at) VALUES (?, ?, ?) ON CONFLICT(checkout_session_id) DO NOTHING'),
    insertChange: db.prepare(`INSERT INTO plan_changes (user_id, from_package, to_package, reason, message, details, created_at)
      VALUES (?, ?, ?, ?, ?, ?, ?)`),
    openChanges: db.prepare('SELECT * FROM plan_changes WHERE user_id = ? AND dismissed_at IS NULL ORDER BY id DESC LIMIT 10'),
    dismissChange: db.prepare('UPDATE plan_changes SET dismissed_at = ? WHERE id = ? AND user_id = ? AND dismissed_at IS NULL'),
  };
  return {
    transaction: <T>(fn: () => T): T => db.transaction(fn)(),
    customerOf: (userId: number) => q.customerOf.get(userId) as string | undefined,
    userOfCustomer: (customerId: string) => q.userOfCustomer.get(customerId) as number | undefined,
    /** Links a customer to a user (a user may have several: one per checkout email); false when
     *  the customer already belongs to someone else. `claimedAtLogin`: an anonymous checkout
     *  claimed by an existing account (it ranks after the user's own subscriptions). */
    linkCustomer: (userId: number, customerId: string, at: number, claimedAtLogin = false): boolean => {
      q.linkCustomer.run(customerId, userId, at, claimedAtLogin ? 1 : 0);
      return q.userOfCustomer.get(customerId) === userId;
    },
    subscription: (id: string) => q.subscription.get(id) as SubscriptionRow | undefined,
    subscriptionsOf: (userId: number) => q.subscriptionsOf.all(userId) as SubscriptionRow[],
    upsertSubscription: (row: SubscriptionRow) => void q.upsertSubscription.run(row),
    pastDueUsers: (since: number) => q.pastDueUsers.all(since) as number[],
    eventSeen: (eventId: string) => q.eventSeen.get(eventId) !== undefined,
    /** Records a processed event; false when it was already recorded (a replay). */
    recordEvent: (eventId: string, type: string, at: number): boolean => q.recordEvent.run(eventId, type, at).changes === 1,
    claimOf: (sessionId: string) => q.claimOf.get(sessionId) as number | undefined,
    /** Claims a checkout for a user; false when someone already claimed it. */
    claim: (sessionId: string, userId: number, at: number): boolean => q.claim.run(sessionId, userId, at).changes === 1,
    insertPlanChange: (c: Omit<PlanChangeRow, 'id' | 'dismissed_at'>) =>
      Number(q.insertChange.run(c.user_id, c.from_package, c.to_package, c.reason, c.message, c.details, c.created_at).lastInsertRowid),
    openPlanChanges: (userId: number) => q.openChanges.all(userId) as PlanChangeRow[],
    dismissPlanChange: (userId: number, id: number, at: number): boolean => q.dismissChange.run(at, id, userId).changes === 1,
  };
}
export type BillingRepo = ReturnType<typeof createBillingRepo>;
