// Billing bodies (SPEC section 7): checkout signed in and anonymous, the checkout a signup or login
// claims, and the admin price command. Whether the price is the plan's own is policy (the service).
import { z } from 'zod';
import { emailAddress, requiredText } from './common';

export const CheckoutSessionBody = z
  .object({
    priceId: requiredText('priceId', 200),
    packageId: z.number({ error: 'packageId must be a plan id' }).int('packageId must be a plan id').positive('packageId must be a plan id'),
    packageName: requiredText('packageName', 100),
  })
  .meta({ id: 'CheckoutSessionBody', description: 'POST /api/billing/create-checkout-session' });
export type CheckoutSessionBody = z.infer<typeof CheckoutSessionBody>;

export const PublicCheckoutSessionBody = CheckoutSessionBody.extend({ email: emailAddress() })
  .meta({ id: 'PublicCheckoutSessionBody', description: 'POST /api/public/create-checkout-session (anonymous)' });
export type PublicCheckoutSessionBody = z.infer<typeof PublicCheckoutSessionBody>;

/** The `checkout_session` a signup or login may carry: a paid anonymous checkout to attach. */
export const CheckoutSessionId = z
  .string({ error: 'checkout_session is not a checkout session id' })
  .trim()
  .regex(/^cs_[A-Za-z0-9_]{1,250}$/, 'checkout_session is not a checkout session id');

export const SetPackagePriceBody = z
  .object({
    package: requiredText('package', 100),
    stripe_price_id: z
      .string({ error: 'stripe_price_id is required' })
      .trim()
      .regex(/^price_[A-Za-z0-9_]{1,200}$/, 'stripe_price_id must look like price_123'),
  })
  .meta({ id: 'SetPackagePriceBody', description: 'POST /api/admin/packages/set-price' });
export type SetPackagePriceBody = z.infer<typeof SetPackagePriceBody>;
