// Billing with Stripe: checkout (signed in and anonymous), claiming an anonymous checkout at
// signup/login, the subscription card, and webhooks. Stripe is the source of truth: a webhook is a
// trigger, the subscription itself is read fresh from Stripe, so replays and out-of-order events
// cannot move a user to a stale plan.
import { Counter, type Registry } from 'prom-client';
import Stripe from 'stripe';
import {
  MESSAGES,
  type CheckoutSession,
  type Package,
  type PlanChangeNotice,
  type Subscription,
} from '@upfleet/proto/rest';
import type { CheckoutSessionBody, PublicCheckoutSessionBody } from '@upfleet/proto/schemas';
import { AppError, badRequest, conflict, notFound } from '../errors';
import type { Logger } from '../logger';
import type { BillingRepo, SubscriptionRow } from '../store/billing-repo';
import type { CatalogRepo } from '../store/catalog-repo';
import type { UsersRepo } from '../store/users-repo';
import { toNotice, type PlanChanger } from './plan-change';

export const PAST_DUE_GRACE_MS = 7 * 86400_000;
/** Statuses in which a subscription still gives its plan (past_due only within the grace). */
const LIVE = new Set(['active', 'trialing', 'past_due']);

export interface PreparedClaim {
  sessionId: string;
  customerId: string;
  subscription: Stripe.Subscription;
}

/** What auth needs to attach an anonymous checkout to the account signing up or in. */
export interface CheckoutClaimer {
  prepareClaim(sessionId: string | null | undefined): Promise<PreparedClaim | null>;
  commitClaim(claim: PreparedClaim, userId: number): void;
}

const idOf = (x: string | { id: string } | null | undefined): string | null => (x == null ? null : typeof x === 'string' ? x : x.id);

export function createBillingService(deps: {
  stripe: Stripe | null;
  webhookSecret: string | null;
  billing: BillingRepo;
  users: UsersRepo;
  catalog: CatalogRepo;
  plans: PlanChanger;
  /** The address users open ({PUBLIC_URL}, else the listening URL), for return URLs. */
  publicUrl: () => string;
  logger: Logger;
  now?: () => number;
  /** The service registers its own metrics here (webhook deliveries by outcome). */
  metrics?: Registry;
}) {
  const { billing, catalog } = deps;
  const now = deps.now ?? Date.now;
  const log = deps.logger.child({ component: 'billing' });
  const webhookEvents = new Counter({
    name: 'upfleet_billing_webhook_events_total',
    help: 'Stripe webhook deliveries by event type and outcome (applied, ignored, duplicate, rejected)',
    labelNames: ['type', 'outcome'],
    registers: deps.metrics ? [deps.metrics] : [],
  });

  function requireStripe(): Stripe {
    if (!deps.stripe) throw new AppError('unavailable', MESSAGES.billingNotConfigured);
    return deps.stripe;
  }

  /** A failed Stripe call becomes one clear 503 (on the webhook, the 5xx makes Stripe retry). */
  function providerError(what: string, err: unknown): AppError {
    if (err instanceof AppError) return err;
    log.warn({ err: (err as Error).message, what }, 'stripe call failed');
    return new AppError('unavailable', `The payment provider could not ${what}; please try again`);
  }
  async function call<T>(what: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      throw providerError(what, err);
    }
  }
  const isMissing = (err: unknown) => err instanceof Stripe.errors.StripeError && err.code === 'resource_missing';

  function checkedPackage(input: { priceId: string; packageId: number; packageName: string }): Package {
    // Never trust the client's price: it must be the stored price of that very plan.
    const pkg = catalog.packageById(input.packageId);
    if (!pkg || pkg.price <= 0 || !pkg.stripe_price_id || pkg.stripe_price_id !== input.priceId || pkg.package_name.toLowerCase() !== input.packageName.toLowerCase()) {
      throw badRequest(MESSAGES.priceMismatch);
    }
    return pkg;
  }

  const base = () => deps.publicUrl().replace(/\/+$/, '');

  function liveSubscription(userId: number): SubscriptionRow | undefined {
    return billing.subscriptionsOf(userId).find((s) => LIVE.has(s.status));
  }

  async function fetchSubscription(id: string, fallback?: Stripe.Subscription): Promise<Stripe.Subscription> {
    const stripe = requireStripe();
    try {
      return await stripe.subscriptions.retrieve(id);
    } catch (err) {
      if (fallback && isMissing(err)) return fallback;
      throw providerError('read the subscription', err);
    }
  }

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

  const REASONS: Record<string, string> = {
    active: 'your subscription is active',
    trialing: 'your subscription trial started',
    past_due: 'a payment failed and the 7-day grace period ended',
    canceled: 'your subscription was canceled',
    unpaid: 'your subscription is unpaid',
    incomplete_expired: 'the first payment did not go through',
  };

  /** Mirrors one subscription as Stripe says it is, then puts the user on the plan that follows. */
  function syncSubscription(userId: number, sub: Stripe.Subscription): void {
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
    deps.plans.applyPlan(userId, planFromSubscriptions(userId, t), REASONS[sub.status] ?? `your subscription is ${sub.status}`);
  }

  function attach(userId: number, sessionId: string, customerId: string, sub: Stripe.Subscription): void {
    billing.linkCustomer(userId, customerId, now());
    billing.claim(sessionId, userId, now());
    syncSubscription(userId, sub);
  }

  function userFromSession(session: Stripe.Checkout.Session): number | undefined {
    const claimed = billing.claimOf(session.id);
    if (claimed !== undefined) return claimed;
    const ref = Number(session.client_reference_id);
    if (session.client_reference_id && Number.isInteger(ref) && deps.users.byId(ref)) return ref;
    const customer = idOf(session.customer);
    const byCustomer = customer ? billing.userOfCustomer(customer) : undefined;
    if (byCustomer !== undefined) return byCustomer;
    // An account that already exists with the checkout's email gets the plan at once.
    const email = session.customer_details?.email ?? session.customer_email;
    return email ? deps.users.byEmail(email)?.id : undefined;
  }

  /** Reads what an event needs from Stripe (async), returning the change to apply (sync). */
  async function prepareEvent(event: Stripe.Event): Promise<(() => void) | null> {
    switch (event.type) {
      case 'checkout.session.completed': {
        const session = event.data.object;
        const subId = idOf(session.subscription);
        const customer = idOf(session.customer);
        if (session.mode !== 'subscription' || !subId || !customer) return null;
        const userId = userFromSession(session);
        if (userId === undefined) return null; // a new buyer: the signup claims it
        const sub = await fetchSubscription(subId);
        return () => attach(userId, session.id, customer, sub);
      }
      case 'customer.subscription.created':
      case 'customer.subscription.updated':
      case 'customer.subscription.deleted': {
        const obj = event.data.object;
        const userId = billing.userOfCustomer(idOf(obj.customer) ?? '');
        if (userId === undefined) return null;
        const sub = await fetchSubscription(obj.id, obj);
        return () => syncSubscription(userId, sub);
      }
      case 'invoice.paid':
      case 'invoice.payment_failed': {
        const inv = event.data.object;
        const subId = idOf(inv.parent?.subscription_details?.subscription ?? null);
        const userId = billing.userOfCustomer(idOf(inv.customer) ?? '');
        if (!subId || userId === undefined) return null;
        const sub = await fetchSubscription(subId);
        return () => syncSubscription(userId, sub);
      }
      default:
        return null;
    }
  }

  function expireGraceFor(userId: number): void {
    const t = now();
    const expired = billing.subscriptionsOf(userId).some((s) => s.status === 'past_due' && s.past_due_since !== null && t - s.past_due_since >= PAST_DUE_GRACE_MS);
    if (expired) deps.plans.applyPlan(userId, planFromSubscriptions(userId, t), REASONS.past_due);
  }

  const iso = (seconds: number | null) => (seconds ? new Date(seconds * 1000).toISOString() : null);

  const service = {
    enabled: () => deps.stripe !== null,

    async createCheckout(userId: number, body: CheckoutSessionBody): Promise<CheckoutSession> {
      const stripe = requireStripe();
      const pkg = checkedPackage(body);
      const user = deps.users.byId(userId);
      if (!user) throw notFound('User not found');
      // Someone who already pays changes plan in the portal, never by a second subscription.
      const current = liveSubscription(userId);
      if (current) {
        const portal = await call('open the billing portal', () =>
          stripe.billingPortal.sessions.create({ customer: current.stripe_customer_id, return_url: `${base()}/pricing` }));
        return { url: portal.url, portal: true };
      }
      let customer = billing.customerOf(userId);
      if (!customer) {
        const created = await call('create the customer', () =>
          stripe.customers.create(
            { email: user.email, name: user.username, metadata: { user_id: String(userId) } },
            { idempotencyKey: `upfleet-customer-${userId}-${user.created_at}` },
          ));
        billing.linkCustomer(userId, created.id, now());
        customer = created.id;
      }
      const session = await call('start the checkout', () =>
        stripe.checkout.sessions.create({
          mode: 'subscription',
          customer,
          client_reference_id: String(userId),
          line_items: [{ price: pkg.stripe_price_id, quantity: 1 }],
          success_url: `${base()}/dashboard?checkout=success`,
          cancel_url: `${base()}/pricing`,
          metadata: { package_id: String(pkg.package_id), user_id: String(userId) },
        }));
      if (!session.url) throw new AppError('unavailable', 'The payment provider returned no checkout address');
      return { url: session.url };
    },

    async createPublicCheckout(input: PublicCheckoutSessionBody): Promise<CheckoutSession> {
      const stripe = requireStripe();
      const pkg = checkedPackage(input);
      const session = await call('start the checkout', () =>
        stripe.checkout.sessions.create({
          mode: 'subscription',
          customer_email: input.email,
          line_items: [{ price: pkg.stripe_price_id, quantity: 1 }],
          success_url: `${base()}/signup?checkout_session={CHECKOUT_SESSION_ID}`,
          cancel_url: `${base()}/pricing`,
          metadata: { package_id: String(pkg.package_id) },
        }));
      if (!session.url) throw new AppError('unavailable', 'The payment provider returned no checkout address');
      return { url: session.url };
    },

    async subscription(userId: number): Promise<Subscription> {
      if (!deps.stripe) throw notFound(MESSAGES.noSubscription);
      expireGraceFor(userId);
      const subs = billing.subscriptionsOf(userId);
      const sub = subs.find((s) => LIVE.has(s.status)) ?? subs[0];
      if (!sub) throw notFound(MESSAGES.noSubscription);
      const user = deps.users.byId(userId);
      const pkg = catalog.packageByStripePrice(sub.stripe_price_id) ?? (user && catalog.packageById(user.package_id)) ?? catalog.freePackage();
      let portal: string | null = null;
      try {
        portal = (await deps.stripe.billingPortal.sessions.create({ customer: sub.stripe_customer_id, return_url: `${base()}/profile` })).url;
      } catch (err) {
        log.warn({ err: (err as Error).message }, 'billing portal session failed'); // the card says the link is unavailable
      }
      return {
        package_name: pkg.package_name,
        price: pkg.price,
        currency: pkg.currency,
        status: sub.status,
        current_period_start: iso(sub.current_period_start),
        current_period_end: iso(sub.current_period_end),
        customer_portal_url: portal,
      };
    },

    /** Verifies, deduplicates by event id and applies one webhook delivery. */
    async handleWebhook(rawBody: Buffer, signature: string | undefined): Promise<{ received: true; duplicate?: true; ignored?: true }> {
      const stripe = requireStripe();
      if (!deps.webhookSecret) throw new AppError('unavailable', 'STRIPE_WEBHOOK_SECRET is not set');
      let event: Stripe.Event;
      try {
        event = stripe.webhooks.constructEvent(rawBody, signature ?? '', deps.webhookSecret);
      } catch {
        webhookEvents.inc({ type: 'unknown', outcome: 'rejected' });
        throw badRequest('Invalid Stripe signature');
      }
      if (billing.eventSeen(event.id)) {
        webhookEvents.inc({ type: event.type, outcome: 'duplicate' });
        return { received: true, duplicate: true };
      }
      const apply = await prepareEvent(event);
      const fresh = billing.transaction(() => {
        if (!billing.recordEvent(event.id, event.type, now())) return false;
        apply?.();
        return true;
      });
      log.info({ event: event.id, type: event.type, applied: Boolean(apply) && fresh }, 'stripe event');
      webhookEvents.inc({ type: event.type, outcome: !fresh ? 'duplicate' : apply ? 'applied' : 'ignored' });
      if (!fresh) return { received: true, duplicate: true };
      return apply ? { received: true } : { received: true, ignored: true };
    },

    async prepareClaim(sessionId: string | null | undefined): Promise<PreparedClaim | null> {
      if (!sessionId) return null;
      const stripe = requireStripe();
      if (billing.claimOf(sessionId) !== undefined) throw conflict(MESSAGES.checkoutClaimed);
      let session: Stripe.Checkout.Session;
      try {
        session = await stripe.checkout.sessions.retrieve(sessionId);
      } catch (err) {
        if (isMissing(err)) throw badRequest('Unknown checkout session');
        throw providerError('read the checkout', err);
      }
      const subId = idOf(session.subscription);
      const customerId = idOf(session.customer);
      if (session.mode !== 'subscription') throw badRequest('This checkout is not a subscription');
      if (session.status !== 'complete' || !subId || !customerId) throw badRequest('This checkout is not complete yet');
      // A signed-in checkout already belongs to its user.
      if (session.client_reference_id) throw conflict(MESSAGES.checkoutClaimed);
      const owner = billing.userOfCustomer(customerId);
      if (owner !== undefined) throw conflict(MESSAGES.checkoutClaimed);
      return { sessionId, customerId, subscription: await fetchSubscription(subId) };
    },

    commitClaim(claim: PreparedClaim, userId: number): void {
      billing.transaction(() => {
        if (!billing.claim(claim.sessionId, userId, now())) throw conflict(MESSAGES.checkoutClaimed);
        if (!billing.linkCustomer(userId, claim.customerId, now())) throw conflict(MESSAGES.checkoutClaimed);
        syncSubscription(userId, claim.subscription);
      });
    },

    /** Past-due subscriptions whose grace has run out fall back (timer and lazily on reads). */
    expireGrace(): number {
      const users = billing.pastDueUsers(now() - PAST_DUE_GRACE_MS);
      for (const u of users) expireGraceFor(u);
      return users.length;
    },

    notices(userId: number): PlanChangeNotice[] {
      expireGraceFor(userId);
      return billing.openPlanChanges(userId).map(toNotice);
    },

    dismissNotice(userId: number, id: number): void {
      if (!billing.dismissPlanChange(userId, id, now())) throw notFound('Notice not found');
    },
  };
  return service;
}
export type BillingService = ReturnType<typeof createBillingService>;
