// Plan sync: which plan a user's subscriptions give, mirroring one Stripe subscription into SQLite
// and moving the user to the plan that follows, the 7-day grace of a past-due subscription, and
// the plan-change notices the dashboard shows. Webhooks, claims and the subscription card all
// end here.
import type Stripe from 'stripe';
import type { Package, PlanChangeNotice } from '@upfleet/proto/rest';
import { notFound } from '../../errors';
import type { SubscriptionRow } from '../../store/billing-repo';
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
  const { billing, catalog, plans } = p.deps;
  const { now, log } = p;

  /** The plan a user's subscriptions give right now: newest live one wins, else Free. */
  function planFromSubscriptions(userId: number, t: number): Package {
    for (const s of billing.subscriptionsOf(userId)) {
      const inGrace = s.status === 'past_due' && s.past_due_since !== null && t - s.past_due_since < PAST_DUE_GRACE_MS;
      if (s.status !== 'active' && s.status !== 'trialing' && !inGrace) continue;
      const pkg = catalog.packageByStripePrice(s.stripe_price_id);
      if (pkg) return pkg;
      log.warn({ subscription: s.stripe_subscription_id, price: s.stripe_price_id }, 'subscription price matches no plan');
    }
    return catalog.freePackage();
  }

  function expireGraceFor(userId: number): void {
    const t = now();
    const expired = billing.subscriptionsOf(userId).some((s) => s.status === 'past_due' && s.past_due_since !== null && t - s.past_due_since >= PAST_DUE_GRACE_MS);
    if (expired) plans.applyPlan(userId, planFromSubscriptions(userId, t), REASONS.past_due);
  }

  return {
    expireGraceFor,

    liveSubscription(userId: number): SubscriptionRow | undefined {
      return billing.subscriptionsOf(userId).find((s) => LIVE.has(s.status));
    },

    /** Mirrors one subscription as Stripe says it is, then puts the user on the plan that follows. */
    syncSubscription(userId: number, sub: Stripe.Subscription): void {
      const prev = billing.subscription(sub.id);
      const item = sub.items?.data?.[0];
      const t = now();
      billing.upsertSubscription({
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
      plans.applyPlan(userId, planFromSubscriptions(userId, t), REASONS[sub.status] ?? `your subscription is ${sub.status}`);
      // The plan follows the first of subscriptionsOf; the others keep billing until the operator
      // cancels or refunds them in Stripe (README, "Billing").
      const live = billing.subscriptionsOf(userId).filter((s) => LIVE.has(s.status));
      if (live.length > 1) log.warn({ userId, subscriptions: live.map((s) => s.stripe_subscription_id) }, 'user has several live subscriptions: the plan follows the first, the operator decides on the others');
    },

    /** Past-due subscriptions whose grace has run out fall back (timer and lazily on reads). */
    expireGrace(this: void): number {
      const users = billing.pastDueUsers(now() - PAST_DUE_GRACE_MS);
      for (const u of users) expireGraceFor(u);
      return users.length;
    },

    notices(this: void, userId: number): PlanChangeNotice[] {
      expireGraceFor(userId);
      return billing.openPlanChanges(userId).map(toNotice);
    },

    dismissNotice(this: void, userId: number, id: number): void {
      if (!billing.dismissPlanChange(userId, id, now())) throw notFound('Notice not found');
    },
  };
}
export type PlanSync = ReturnType<typeof createPlanSync>;
