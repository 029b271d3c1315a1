// Billing routes (SPEC section 7): checkout (signed in and anonymous), the subscription card, plan
// change notices, the Stripe webhook (raw body, mounted before the JSON parser) and the admin
// price commands behind `upfleet package set-price|sync-stripe`.
import express, { Router } from 'express';
import { CheckoutSessionBody, PublicCheckoutSessionBody, SetPackagePriceBody } from '@upfleet/proto/schemas';
import type { BillingService } from '../../services/billing';
import type { PriceService } from '../../services/billing-prices';
import { parseId, parseInput } from '../../services/validation';
import { authOf, requireAdmin, type SignIn } from '../middleware/auth';
import { mount, route, strictRouter } from '../route-table';
import type { RateLimiter } from '../../services/rate-limiter';
import { clientKey } from '../../lib/net';
import { AppError } from '../../errors';

/** POST /api/billing/webhook: the signature covers the exact bytes, so no JSON parser before it. */
export function billingWebhookRoute(billing: BillingService): Router {
  const r = Router();
  r.post('/api/billing/webhook', express.raw({ type: () => true, limit: '1mb' }), async (req, res) => {
    const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    res.json({ success: true, data: await billing.handleWebhook(raw, req.header('stripe-signature')) });
  });
  return r;
}

export function billingRoutes(deps: { billing: BillingService; prices: PriceService; signIn: SignIn; adminToken: string; limiter?: RateLimiter;
  /** A team workspace's billing contact (the member buying, the workspace's name); null for a personal workspace. */
  billingContact?: (memberId: number, workspaceId: number) => Promise<{ email: string; name: string } | null>;
  /** The plan new accounts start on (DEFAULT_PACKAGE), for the sign-up page. */
  defaultPackage?: () => string }): Router {
  const { billing, prices } = deps;
  const r = strictRouter();
  // The plan and subscription are the workspace's: the owner buys, every member sees the card.
  const signedIn = deps.signIn.user;
  const scope = deps.signIn.inWorkspace;
  mount(r, [
    route('post', '/billing/create-checkout-session', { role: 'owner', action: 'billing.checkout' }, async (req, res) => {
      const a = authOf(req);
      const contact = (await deps.billingContact?.(a.memberId ?? a.userId, a.userId)) ?? null;
      res.json({ success: true, data: await billing.createCheckout(a.userId, parseInput(CheckoutSessionBody, req.body), contact) });
    }),
    route('get', '/billing/subscription', 'viewer', async (req, res) => {
      const a = authOf(req);
      // `?optional=1`: none is an answer (data null), not a 404, for a page that shows the card on load.
      const optional = req.query.optional === '1';
      const sub = await billing.subscription(a.userId).catch((err: unknown) => {
        if (optional && err instanceof AppError && err.code === 'not_found') return null;
        throw err;
      });
      if (sub === null) return void res.json({ success: true, data: null });
      // Only the owner manages the subscription; the others see the card without the portal link.
      res.json({ success: true, data: a.role === 'owner' ? sub : { ...sub, customer_portal_url: null } });
    }),
    route('get', '/billing/notices', 'viewer', async (req, res) => {
      res.json({ success: true, data: await billing.notices(authOf(req).userId) });
    }),
    route('post', '/billing/notices/:id/dismiss', { role: 'admin', action: 'billing.notice_dismiss' }, async (req, res) => {
      await billing.dismissNotice(authOf(req).userId, parseId(req.params.id, 'Notice not found'));
      res.json({ success: true, data: null });
    }),
  ], signedIn, scope);
  // Whether plans can be bought here (without billing the pricing page says the operator sets
  // them), and the plan a new account starts on (the sign-up page lists what it includes).
  r.get('/public/billing', (_req, res) => {
    res.json({ success: true, data: { enabled: billing.enabled(), default_package: deps.defaultPackage?.() ?? 'Free' } });
  });
  r.post('/public/create-checkout-session', async (req, res) => {
    await deps.limiter?.consume('checkout_ip', clientKey(req.ip));
    res.json({ success: true, data: await billing.createPublicCheckout(parseInput(PublicCheckoutSessionBody, req.body)) });
  });

  const admin = requireAdmin(deps.adminToken);
  r.post('/admin/packages/set-price', admin, async (req, res) => {
    res.json({ success: true, data: await prices.setPrice(parseInput(SetPackagePriceBody, req.body)) });
  });
  r.post('/admin/packages/sync-stripe', admin, async (_req, res) => {
    res.json({ success: true, data: await prices.syncStripe() });
  });
  return r;
}
