// Plan sync: which plan a user's subscriptions give, mirroring one Stripe subscription into SQLite
// and moving the user to the plan that follows, the 7-day grace of a past-due subscription, and
// the plan-change notices the dashboard shows. Webhooks, claims and the subscription card all
// end here.
import type Stripe from 'stripe';
import type { Package, PlanChangeNotice } from '@upfleet/proto/rest';
import { notFound } from '../../errors';
import type { Kysely } from 'kysely';
import { createBillingRepo, type SubscriptionRow } from '../../store/billing-repo';
import type { Schema } from '../../store/sql/schema';
import { toNotice } from '../plan-change';
import { idOf, type BillingProvider } from './provider';

export const PAST_DUE_GRACE_MS = 7 * 86400_000;
/** Statuses in which a subscription still gives its plan (past_due only within the grace). */
export const LIVE = new Set(['active', 'trialing', 'past_due']);

const REASONS: Record<string, string> = {
  active: 'your subscription is active',
  trialing: 'your subscription trial started',
  past_due: 'a payment failed and the 7-day grace period ended',
  canceled: 'your subscription was canceled',
  unpaid: 'your subscription is unpaid',
  incomplete_expired: 'the first payment did not go through',
};

export function createPlanSync(p: BillingProvider) {
  const { catalog, plans } = p.deps;
  const { now, log } = p;
  /** The billing rows outside a transaction, or inside the caller's. */
  const rows = (trx?: Kysely<Schema>) => (trx ? createBillingRepo(trx) : p.deps.billing);

  /** The plan a user's subscriptions give right now: newest live one wins, else Free. */
  async function planFromSubscriptions(userId: number, t: number, trx?: Kysely<Schema>): Promise<Package> {
    for (const s of await rows(trx).subscriptionsOf(userId)) {
      const inGrace = s.status === 'past_due' && s.past_due_since !== null && t - s.past_due_since < PAST_DUE_GRACE_MS;
      if (s.status !== 'active' && s.status !== 'trialing' && !inGrace) continue;
      const pkg = catalog.packageByStripePrice(s.stripe_price_id);
      if (pkg) return pkg;
      log.warn({ subscription: s.stripe_subscription_id, price: s.stripe_price_id }, 'subscription price matches no plan');
    }
    return catalog.freePackage();
  }

  async function expireGraceFor(userId: number): Promise<void> {
    const t = now();
    const expired = (await rows().subscriptionsOf(userId)).some((s) => s.status === 'past_due' && s.past_due_since !== null && t - s.past_due_since >= PAST_DUE_GRACE_MS);
    if (expired) await plans.applyPlan(userId, await planFromSubscriptions(userId, t), REASONS.past_due);
  }

  return {
    expireGraceFor,

    async liveSubscription(userId: number): Promise<SubscriptionRow | undefined> {
      return (await rows().subscriptionsOf(userId)).find((s) => LIVE.has(s.status));
    },

    /** Mirrors one subscription as Stripe says it is, then puts the user on the plan that follows;
     *  inside the caller's transaction when `trx` is given. */
    async syncSubscription(userId: number, sub: Stripe.Subscription, trx?: Kysely<Schema>): Promise<void> {
      const billing = rows(trx);
      const prev = await billing.subscription(sub.id);
      const item = sub.items?.data?.[0];
      const t = now();
      await billing.upsertSubscription({
        stripe_subscription_id: sub.id,
        user_id: userId,
        stripe_customer_id: idOf(sub.customer) ?? '',
        stripe_price_id: item?.price?.id ?? prev?.stripe_price_id ?? '',
        status: sub.status,
        current_period_start: item?.current_period_start ?? prev?.current_period_start ?? null,
        current_period_end: item?.current_period_end ?? prev?.current_period_end ?? null,
        created: sub.created,
        past_due_since: sub.status === 'past_due' ? (prev?.status === 'past_due' && prev.past_due_since !== null ? prev.past_due_since : t) : null,
        updated_at: t,
      });
      await plans.applyPlan(userId, await planFromSubscriptions(userId, t, trx), REASONS[sub.status] ?? `your subscription is ${sub.status}`, trx);
      // The plan follows the first of subscriptionsOf; the others keep billing until the operator
      // cancels or refunds them in Stripe (README, "Billing").
      const live = (await billing.subscriptionsOf(userId)).filter((s) => LIVE.has(s.status));
      if (live.length > 1) log.warn({ userId, subscriptions: live.map((s) => s.stripe_subscription_id) }, 'user has several live subscriptions: the plan follows the first, the operator decides on the others');
    },

    /** Past-due subscriptions whose grace has run out fall back (timer and lazily on reads). */
    async expireGrace(this: void): Promise<number> {
      const users = await rows().pastDueUsers(now() - PAST_DUE_GRACE_MS);
      for (const u of users) await expireGraceFor(u);
      return users.length;
    },

    async notices(this: void, userId: number): Promise<PlanChangeNotice[]> {
      await expireGraceFor(userId);
      return (await rows().openPlanChanges(userId)).map(toNotice);
    },

    async dismissNotice(this: void, userId: number, id: number): Promise<void> {
      if (!(await rows().dismissPlanChange(userId, id, now()))) throw notFound('Notice not found');
    },
  };
}
export type PlanSync = ReturnType<typeof createPlanSync>;
