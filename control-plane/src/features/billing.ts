// Billing: Stripe checkout and webhooks, plan changes, prices, and the past-due grace.
// Off without STRIPE_SECRET_KEY: checkout answers 503, everything else works.
import { createStripeClient } from '../lib/stripe';
import { createBillingService } from '../services/billing';
import { createPriceService } from '../services/billing-prices';
import { createPlanChanger } from '../services/plan-change';
import { createBillingRepo } from '../store/billing-repo';
import type { Foundation } from './foundation';
import { every, whileLeader, type Feature } from './lifecycle';
import { billingRoutes, billingWebhookRoute } from '../http/routes/billing';
import { catalogRoutes, publicRoutes } from '../http/routes/catalog';

export function createBillingFeature(base: Foundation) {
  const { config, users, catalog, metrics } = base;
  const stripe = config.stripe.secretKey ? createStripeClient(config.stripe.secretKey, config.stripe.apiBase) : null;
  const billingRepo = createBillingRepo(base.sql.db);
  const billing = createBillingService({
    stripe, webhookSecret: config.stripe.webhookSecret, billing: billingRepo, users, catalog, logger: base.logger, now: base.now, metrics,
    plans: createPlanChanger({
      users, catalog, endpoints: base.endpointsRepo, billing: billingRepo, now: base.now, metrics,
      // A plan change edits many endpoints at once: agents get deltas, alerting re-reads them.
      changes: base.changes,
    }),
    publicUrl: base.publicUrl,
  });
  const prices = createPriceService({ stripe, catalog });
  // Past-due subscriptions past their 7-day grace fall back to Free even when nobody signs in.
  const grace = every(60_000, () => {
    billing.expireGrace().catch((err: unknown) => base.logger.error({ err }, 'past-due grace check failed'));
  });
  return {
    name: 'billing',
    services: { billing, prices },
    routes: (signIn) => ({
      outside: [billingWebhookRoute(billing)],
      public: [publicRoutes(catalog)],
      workspace: catalogRoutes(catalog),
      operator: [billingRoutes({
        billing, prices, signIn, adminToken: base.adminToken, limiter: base.limiter, defaultPackage: base.defaultPackageName,
        // A team workspace's Stripe contact: the member buying and the workspace's name.
        billingContact: async (memberId, workspaceId) => {
          const w = await base.workspacesRepo.get(workspaceId);
          const member = await users.byId(memberId);
          return w && !w.personal && member ? { email: member.email, name: w.name } : null;
        },
      })],
    }),
    ...whileLeader(base.leadership, {
      start: () => {
        if (stripe) grace.start();
      },
      stop: () => grace.stop(),
    }),
  } satisfies Feature<unknown>;
}
