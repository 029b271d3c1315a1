// Stripe webhook deliveries: verify the signature, deduplicate by event id, read what the event
// points at fresh from Stripe, then record the event and apply the change in one transaction.
// A webhook is only a trigger, so replays and out-of-order events cannot move a user to a stale
// plan. Registers upfleet_billing_webhook_events_total (by type and outcome).
import { Counter } from 'prom-client';
import type Stripe from 'stripe';
import { AppError, badRequest } from '../../errors';
import type { Kysely } from 'kysely';
import { createBillingRepo } from '../../store/billing-repo';
import type { Schema } from '../../store/sql/schema';
import { idOf, type BillingProvider } from './provider';
import type { PlanSync } from './plan-sync';

export function createWebhookHandler(p: BillingProvider, sync: PlanSync) {
  const { deps, now, log } = p;
  const { billing } = deps;
  const webhookEvents = new Counter({
    name: 'upfleet_billing_webhook_events_total',
    help: 'Stripe webhook deliveries by event type and outcome (applied, ignored, duplicate, rejected)',
    labelNames: ['type', 'outcome'],
    registers: deps.metrics ? [deps.metrics] : [],
  });

  async function attach(trx: Kysely<Schema>, userId: number, sessionId: string, customerId: string, sub: Stripe.Subscription): Promise<void> {
    const tx = createBillingRepo(trx);
    await tx.linkCustomer(userId, customerId, now());
    await tx.claim(sessionId, userId, now());
    await sync.syncSubscription(userId, sub, trx);
  }

  async function userFromSession(session: Stripe.Checkout.Session): Promise<number | undefined> {
    const claimed = await billing.claimOf(session.id);
    if (claimed !== undefined) return claimed;
    const ref = Number(session.client_reference_id);
    if (session.client_reference_id && Number.isInteger(ref) && (await deps.users.byId(ref))) return ref;
    const customer = idOf(session.customer);
    const byCustomer = customer ? await billing.userOfCustomer(customer) : undefined;
    // Never by the checkout's email: anyone can type anyone's address into an anonymous checkout.
    // The buyer claims it at signup or login with its checkout_session (claims.ts).
    return byCustomer;
  }

  /** Reads what an event needs from Stripe, returning the change to apply inside the event's transaction. */
  async function prepareEvent(event: Stripe.Event): Promise<((trx: Kysely<Schema>) => Promise<void>) | null> {
    switch (event.type) {
      case 'checkout.session.completed': {
        const session = event.data.object;
        const subId = idOf(session.subscription);
        const customer = idOf(session.customer);
        if (session.mode !== 'subscription' || !subId || !customer) return null;
        const userId = await userFromSession(session);
        if (userId === undefined) return null; // anonymous: claimed at signup or login
        const sub = await p.fetchSubscription(subId);
        return (trx) => attach(trx, userId, session.id, customer, sub);
      }
      case 'customer.subscription.created':
      case 'customer.subscription.updated':
      case 'customer.subscription.deleted': {
        const obj = event.data.object;
        const userId = await billing.userOfCustomer(idOf(obj.customer) ?? '');
        if (userId === undefined) return null;
        const sub = await p.fetchSubscription(obj.id, obj);
        return (trx) => sync.syncSubscription(userId, sub, trx);
      }
      case 'invoice.paid':
      case 'invoice.payment_failed': {
        const inv = event.data.object;
        const subId = idOf(inv.parent?.subscription_details?.subscription ?? null);
        const userId = await billing.userOfCustomer(idOf(inv.customer) ?? '');
        if (!subId || userId === undefined) return null;
        const sub = await p.fetchSubscription(subId);
        return (trx) => sync.syncSubscription(userId, sub, trx);
      }
      default:
        return null;
    }
  }

  return {
    /** Verifies, deduplicates by event id and applies one webhook delivery. */
    async handleWebhook(this: void, rawBody: Buffer, signature: string | undefined): Promise<{ received: true; duplicate?: true; ignored?: true }> {
      const stripe = p.requireStripe();
      if (!deps.webhookSecret) throw new AppError('unavailable', 'STRIPE_WEBHOOK_SECRET is not set');
      let event: Stripe.Event;
      try {
        event = stripe.webhooks.constructEvent(rawBody, signature ?? '', deps.webhookSecret);
      } catch {
        webhookEvents.inc({ type: 'unknown', outcome: 'rejected' });
        throw badRequest('Invalid Stripe signature');
      }
      if (await billing.eventSeen(event.id)) {
        webhookEvents.inc({ type: event.type, outcome: 'duplicate' });
        return { received: true, duplicate: true };
      }
      const apply = await prepareEvent(event);
      // Recording the event is the compare-and-set: a replay racing on another process records nothing and applies nothing.
      const fresh = await billing.transaction(async (trx) => {
        if (!(await createBillingRepo(trx).recordEvent(event.id, event.type, now()))) return false;
        await apply?.(trx);
        return true;
      });
      log.info({ event: event.id, type: event.type, applied: Boolean(apply) && fresh }, 'stripe event');
      webhookEvents.inc({ type: event.type, outcome: !fresh ? 'duplicate' : apply ? 'applied' : 'ignored' });
      if (!fresh) return { received: true, duplicate: true };
      return apply ? { received: true } : { received: true, ignored: true };
    },
  };
}
