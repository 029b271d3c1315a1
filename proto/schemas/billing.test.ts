import { describe, expect, it } from 'vitest';
import { CheckoutSessionBody, LoginBody, PublicCheckoutSessionBody, SetPackagePriceBody, SignupBody, check, firstError } from './index';

describe('billing bodies', () => {
  const pro = { priceId: 'price_pro', packageId: 3, packageName: 'Pro' };
  it('a checkout names the price, the plan id and the plan name', () => {
    expect(check(CheckoutSessionBody, { ...pro, priceId: ' price_pro ' })).toEqual({ ok: true, data: pro });
    expect(firstError(CheckoutSessionBody, { ...pro, priceId: '' })).toBe('priceId is required');
    expect(firstError(CheckoutSessionBody, { ...pro, packageId: '3' })).toBe('packageId must be a plan id');
    expect(firstError(CheckoutSessionBody, { ...pro, packageId: 1.5 })).toBe('packageId must be a plan id');
    expect(firstError(CheckoutSessionBody, { priceId: 'price_pro', packageId: 3 })).toBe('packageName is required');
  });
  it('an anonymous checkout adds a valid email, lower-cased', () => {
    expect(check(PublicCheckoutSessionBody, { ...pro, email: 'Buyer@Example.com' })).toEqual({ ok: true, data: { ...pro, email: 'buyer@example.com' } });
    expect(firstError(PublicCheckoutSessionBody, { ...pro, email: 'nope' })).toBe('Please enter a valid email address');
  });
  it('signup and login may carry a checkout session id, nothing else in its place', () => {
    const signup = { username: 'alice', email: 'a@b.co', password: 'longenough' };
    expect(check(SignupBody, { ...signup, checkout_session: 'cs_test_1' })).toMatchObject({ ok: true, data: { checkout_session: 'cs_test_1' } });
    expect(check(SignupBody, signup).ok).toBe(true);
    expect(firstError(SignupBody, { ...signup, checkout_session: 'sub_1' })).toBe('checkout_session is not a checkout session id');
    expect(firstError(LoginBody, { email: 'a@b.co', password: 'x', checkout_session: 42 })).toBe('checkout_session is not a checkout session id');
  });
  it('set-price takes a package name and a price_ id', () => {
    expect(check(SetPackagePriceBody, { package: 'Pro', stripe_price_id: 'price_123' })).toEqual({ ok: true, data: { package: 'Pro', stripe_price_id: 'price_123' } });
    expect(firstError(SetPackagePriceBody, { package: 'Pro', stripe_price_id: 'prod_123' })).toBe('stripe_price_id must look like price_123');
    expect(firstError(SetPackagePriceBody, { stripe_price_id: 'price_123' })).toBe('package is required');
  });
});
