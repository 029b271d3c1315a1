// Claiming an anonymous checkout at signup or login: prepareClaim reads and checks the checkout
// session in Stripe (async, before the account is written); commitClaim attaches customer and
// subscription to the account in one transaction, so a session is claimed at most once.
// A checkout is tied to its buyer's email: only an account with that address claims it, and at
// login only once the address is verified (anyone can type anyone's address into a checkout).
import type Stripe from 'stripe';
import { MESSAGES } from '@upfleet/proto/rest';
import { AppError, badRequest, conflict } from '../../errors';
import { createBillingRepo } from '../../store/billing-repo';
import { idOf, type BillingProvider } from './provider';
import type { PlanSync } from './plan-sync';

export const CLAIM_OTHER_EMAIL = 'This checkout was paid with another email address: sign up or sign in with that address';
export const CLAIM_UNVERIFIED = 'Verify your email address before claiming a checkout';

/** The account that claims: its email, whether that is verified, and whether it exists already (login). */
export interface Claimant {
  email: string;
  verified: boolean;
  atLogin: boolean;
}

export interface PreparedClaim {
  sessionId: string;
  atLogin: boolean;
  customerId: string;
  subscription: Stripe.Subscription;
}

/** What auth needs to attach an anonymous checkout to the account signing up or in. */
export interface CheckoutClaimer {
  prepareClaim(this: void, sessionId: string | null | undefined, who: Claimant): Promise<PreparedClaim | null>;
  commitClaim(this: void, claim: PreparedClaim, userId: number): Promise<void>;
}

export function createCheckoutClaimer(p: BillingProvider, sync: PlanSync): CheckoutClaimer {
  const { now } = p;
  const { billing } = p.deps;
  return {
    async prepareClaim(sessionId: string | null | undefined, who: Claimant): Promise<PreparedClaim | null> {
      if (!sessionId) return null;
      const stripe = p.requireStripe();
      if ((await billing.claimOf(sessionId)) !== undefined) throw conflict(MESSAGES.checkoutClaimed);
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
      const owner = await billing.userOfCustomer(customerId);
      if (owner !== undefined) throw conflict(MESSAGES.checkoutClaimed);
      const buyer = session.customer_details?.email ?? session.customer_email ?? '';
      if (buyer.toLowerCase() !== who.email.toLowerCase()) throw new AppError('forbidden', CLAIM_OTHER_EMAIL);
      if (who.atLogin && !who.verified) throw new AppError('forbidden', CLAIM_UNVERIFIED);
      return { sessionId, atLogin: who.atLogin, customerId, subscription: await p.fetchSubscription(subId) };
    },

    async commitClaim(claim: PreparedClaim, userId: number): Promise<void> {
      // The claim row is the compare-and-set: of two processes claiming one checkout, one inserts it.
      await billing.transaction(async (trx) => {
        const tx = createBillingRepo(trx);
        if (!(await tx.claim(claim.sessionId, userId, now()))) throw conflict(MESSAGES.checkoutClaimed);
        if (!(await tx.linkCustomer(userId, claim.customerId, now(), claim.atLogin))) throw conflict(MESSAGES.checkoutClaimed);
        await sync.syncSubscription(userId, claim.subscription, trx);
      });
    },
  };
}
