// Billing with Stripe, composed from its parts: provider.ts (the Stripe client, call errors,
// fresh subscription reads), plan-sync.ts (subscription → plan, past-due grace, notices),
// checkout.ts (checkout and portal sessions, the subscription card), claims.ts (an anonymous
// checkout claimed at signup/login) and webhook.ts (verified, deduplicated Stripe events).
// Stripe is the source of truth: a webhook is a trigger, the subscription itself is read fresh.
import { createBillingProvider, type BillingDeps } from './provider';
import { createPlanSync } from './plan-sync';
import { createCheckoutSessions } from './checkout';
import { createCheckoutClaimer } from './claims';
import { createWebhookHandler } from './webhook';

export { PAST_DUE_GRACE_MS } from './plan-sync';
export type { CheckoutClaimer, PreparedClaim } from './claims';
export type { BillingDeps } from './provider';

export function createBillingService(deps: BillingDeps) {
  const provider = createBillingProvider(deps);
  const sync = createPlanSync(provider);
  const checkout = createCheckoutSessions(provider, sync);
  const claims = createCheckoutClaimer(provider, sync);
  const webhook = createWebhookHandler(provider, sync);
  return {
    enabled: () => deps.stripe !== null,
    createCheckout: checkout.createCheckout,
    createPublicCheckout: checkout.createPublicCheckout,
    subscription: checkout.subscription,
    handleWebhook: webhook.handleWebhook,
    prepareClaim: claims.prepareClaim,
    commitClaim: claims.commitClaim,
    expireGrace: sync.expireGrace,
    notices: sync.notices,
    dismissNotice: sync.dismissNotice,
  };
}
export type BillingService = ReturnType<typeof createBillingService>;
