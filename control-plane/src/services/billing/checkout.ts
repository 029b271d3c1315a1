// Stripe sessions a user opens: checkout (signed in, or anonymous from the pricing page), the
// billing portal for someone who already pays, and the subscription card with its portal link.
// The price is never the client's: it must be the stored Stripe price of that very plan.
import { MESSAGES, type CheckoutSession, type Package, type Subscription } from '@upfleet/proto/rest';
import type { CheckoutSessionBody, PublicCheckoutSessionBody } from '@upfleet/proto/schemas';
import { AppError, badRequest, notFound } from '../../errors';
import type { BillingProvider } from './provider';
import { LIVE, type PlanSync } from './plan-sync';

const iso = (seconds: number | null) => (seconds ? new Date(seconds * 1000).toISOString() : null);

export function createCheckoutSessions(p: BillingProvider, sync: PlanSync) {
  const { deps, now, log, base } = p;
  const { billing, catalog } = deps;

  function checkedPackage(input: { priceId: string; packageId: number; packageName: string }): Package {
    const pkg = catalog.packageById(input.packageId);
    if (!pkg || pkg.price <= 0 || !pkg.stripe_price_id || pkg.stripe_price_id !== input.priceId || pkg.package_name.toLowerCase() !== input.packageName.toLowerCase()) {
      throw badRequest(MESSAGES.priceMismatch);
    }
    return pkg;
  }

  return {
    /** `contact`: for a team workspace, the Stripe customer's email and name (the owner buying, the workspace's name). */
    async createCheckout(this: void, userId: number, body: CheckoutSessionBody, contact?: { email: string; name: string } | null): Promise<CheckoutSession> {
      const stripe = p.requireStripe();
      const pkg = checkedPackage(body);
      const user = await deps.users.byId(userId);
      if (!user) throw notFound('User not found');
      // Someone who already pays changes plan in the portal, never by a second subscription.
      const current = await sync.liveSubscription(userId);
      if (current) {
        const portal = await p.call('open the billing portal', () =>
          stripe.billingPortal.sessions.create({ customer: current.stripe_customer_id, return_url: `${base()}/pricing` }));
        return { url: portal.url, portal: true };
      }
      let customer = await billing.customerOf(userId);
      if (!customer) {
        const created = await p.call('create the customer', () =>
          stripe.customers.create(
            { email: contact?.email ?? user.email, name: contact?.name ?? user.username, metadata: { user_id: String(userId) } },
            { idempotencyKey: `upfleet-customer-${userId}-${user.created_at}` },
          ));
        await billing.linkCustomer(userId, created.id, now());
        customer = created.id;
      }
      const session = await p.call('start the checkout', () =>
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

    async createPublicCheckout(this: void, input: PublicCheckoutSessionBody): Promise<CheckoutSession> {
      const stripe = p.requireStripe();
      const pkg = checkedPackage(input);
      const session = await p.call('start the checkout', () =>
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

    async subscription(this: void, userId: number): Promise<Subscription> {
      if (!deps.stripe) throw notFound(MESSAGES.noSubscription);
      await sync.expireGraceFor(userId);
      const subs = await billing.subscriptionsOf(userId);
      const sub = subs.find((s) => LIVE.has(s.status)) ?? subs[0];
      if (!sub) throw notFound(MESSAGES.noSubscription);
      const user = await deps.users.byId(userId);
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
  };
}
