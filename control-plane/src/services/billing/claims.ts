// Claiming an anonymous checkout at signup or login: prepareClaim reads and checks the checkout
// session in Stripe (async, before the account is written); commitClaim attaches customer and
// subscription to the account in one transaction, so a session is claimed at most once.
import type Stripe from 'stripe';
import { MESSAGES } from '@upfleet/proto/rest';
import { badRequest, conflict } from '../../errors';
import { idOf, type BillingProvider } from './provider';
import type { PlanSync } from './plan-sync';

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

export function createCheckoutClaimer(p: BillingProvider, sync: PlanSync): CheckoutClaimer {
  const { now } = p;
  const { billing } = p.deps;
  return {
    async prepareClaim(sessionId: string | null | undefined): Promise<PreparedClaim | null> {
      if (!sessionId) return null;
      const stripe = p.requireStripe();
      if (billing.claimOf(sessionId) !== undefined) throw conflict(MESSAGES.checkoutClaimed);
      let session: Stripe.Checkout.Session;
      try {
        session = await stripe.checkout.sessions.retrieve(sessionId);
      } catch (err) {
        if (p.isMissing(err)) throw badRequest('Unknown checkout session');
        throw p.providerError('read the checkout', err);
      }
      const subId = idOf(session.subscription);
      const customerId = idOf(session.customer);
      if (session.mode !== 'subscription') throw badRequest('This checkout is not a subscription');
      if (session.status !== 'complete' || !subId || !customerId) throw badRequest('This checkout is not complete yet');
      // A signed-in checkout already belongs to its user.
      if (session.client_reference_id) throw conflict(MESSAGES.checkoutClaimed);
      const owner = billing.userOfCustomer(customerId);
      if (owner !== undefined) throw conflict(MESSAGES.checkoutClaimed);
      return { sessionId, customerId, subscription: await p.fetchSubscription(subId) };
    },

    commitClaim(claim: PreparedClaim, userId: number): void {
      billing.transaction(() => {
        if (!billing.claim(claim.sessionId, userId, now())) throw conflict(MESSAGES.checkoutClaimed);
        if (!billing.linkCustomer(userId, claim.customerId, now())) throw conflict(MESSAGES.checkoutClaimed);
        sync.syncSubscription(userId, claim.subscription);
      });
    },
  };
}
