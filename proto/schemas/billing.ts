// REST bodies of the billing routes (SPEC section 7) and the admin price commands.
import { z } from 'zod';

export const checkoutSessionBody = z.object({
  priceId: z.string({ error: 'priceId is required' }).trim().min(1, 'priceId is required').max(200),
  packageId: z.number({ error: 'packageId must be a plan id' }).int().positive(),
  packageName: z.string({ error: 'packageName is required' }).trim().min(1, 'packageName is required').max(100),
});

export const publicCheckoutSessionBody = checkoutSessionBody.extend({
  email: z.email({ error: 'Please enter a valid email address' }).max(254),
});

export const setPackagePriceBody = z.object({
  package: z.string({ error: 'package is required' }).trim().min(1, 'package is required'),
  stripe_price_id: z.string({ error: 'stripe_price_id is required' }).trim().regex(/^price_[A-Za-z0-9_]{1,200}$/, 'stripe_price_id must look like price_123'),
});

/** An optional `checkout_session` on signup and login: the anonymous checkout to claim. */
export const checkoutClaimField = z.string().trim().regex(/^cs_[A-Za-z0-9_]{1,250}$/, 'checkout_session is not a checkout session id');

export type CheckoutSessionBody = z.infer<typeof checkoutSessionBody>;
export type PublicCheckoutSessionBody = z.infer<typeof publicCheckoutSessionBody>;
