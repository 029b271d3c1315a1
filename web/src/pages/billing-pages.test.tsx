import { afterEach, describe, expect, it, vi } from 'vitest';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MESSAGES, type Package, type PlanChangeNotice } from '@upfleet/proto/rest';
import { PricingPage } from './PricingPage';
import { SignupPage } from './SignupPage';
import { PlanNotices } from '../components/dashboard/PlanNotices';
import { ok, renderWith, scriptedApi, testServices } from '../test-utils';
import type { AppServices } from '../services';

const signIn = (services: AppServices) =>
  services.auth.getState().setSession({
    accessToken: 'a', refreshToken: 'r',
    user: { id: 1, username: 'alice', email: 'alice@example.com', timezone: 'UTC', two_factor_enabled: false },
  });

const plan = (package_id: number, package_name: string, price: number, stripe_price_id: string): Package => ({
  package_id, package_name, price, currency: 'EUR', description: '', max_endpoints: 10, max_regions: 1, max_members: 1, check_frequency_seconds: 300,
  retention_days: 30, ssl_monitoring: false, advanced_alerts: false, api_access: false, multi_region: false, ping_host: false,
  cert_expiry: false, response_code: true, response_time: false, stripe_price_id, max_status_pages: 1, custom_domains: false, monitor_kinds: ['http', 'heartbeat'], browser_checks: 0,
});
const PACKAGES = [plan(1, 'Free', 0, ''), plan(2, 'Starter', 9, ''), plan(3, 'Pro', 29, 'price_pro')];

afterEach(() => vi.restoreAllMocks());

describe('Pricing checkout', () => {
  it('shows Processing... while the signed-in checkout is created, posts the plan and goes to the returned URL', async () => {
    const assign = vi.fn();
    vi.spyOn(window, 'location', 'get').mockReturnValue({ ...window.location, assign });
    let release!: () => void;
    const api = scriptedApi({
      'GET /api/public/packages': () => ok(PACKAGES),
      'GET /api/users/dashboard': () => ok({ package_name: 'Free' }),
      'POST /api/billing/create-checkout-session': () => new Promise((r) => { release = () => r(ok({ url: 'https://checkout.stripe.test/c/pay/cs_1' })); }),
    });
    const services = testServices(api);
    signIn(services);
    renderWith(<PricingPage />, services, '/pricing');
    await userEvent.setup().click(await screen.findByRole('button', { name: 'Choose Pro' }));
    expect(await screen.findByRole('button', { name: 'Processing...' })).toBeDisabled();
    release();
    await waitFor(() => expect(assign).toHaveBeenCalledWith('https://checkout.stripe.test/c/pay/cs_1'));
    expect(api.calls.find((c) => c.path === '/api/billing/create-checkout-session')?.body).toEqual({ priceId: 'price_pro', packageId: 3, packageName: 'Pro' });
  });

  it('does nothing for a plan without a Stripe price and marks the current plan', async () => {
    const api = scriptedApi({ 'GET /api/public/packages': () => ok(PACKAGES), 'GET /api/users/dashboard': () => ok({ package_name: 'Pro' }) });
    const services = testServices(api);
    signIn(services);
    renderWith(<PricingPage />, services, '/pricing');
    expect(await screen.findByRole('button', { name: 'Current Plan' })).toBeDisabled();
    await userEvent.setup().click(screen.getByRole('button', { name: 'Choose Starter' }));
    expect(api.calls.filter((c) => c.method === 'POST')).toEqual([]);
  });
});

describe('Pricing without billing', () => {
  it('says plans are set by the operator and offers no checkout button that would do nothing', async () => {
    const api = scriptedApi({
      'GET /api/public/packages': () => ok(PACKAGES),
      'GET /api/public/billing': () => ok({ enabled: false }),
      'GET /api/users/dashboard': () => ok({ package_name: 'Free' }),
    });
    const services = testServices(api);
    signIn(services);
    renderWith(<PricingPage />, services, '/pricing');
    expect(await screen.findByText(MESSAGES.plansSetByOperator)).toBeVisible();
    expect(screen.queryByRole('button', { name: /^Choose / })).toBeNull();
    expect(screen.getAllByText('Set by the operator of this server')).toHaveLength(2);
    expect(screen.getByRole('link', { name: 'Go to Dashboard' })).toBeVisible();
  });
});

describe('Pricing page: browser checks', () => {
  it('sells the browser checks a plan includes and says nothing of them for a plan without', async () => {
    const api = scriptedApi({
      'GET /api/public/packages': () => ok([PACKAGES[0], { ...PACKAGES[1], browser_checks: 2 }]),
      'GET /api/public/billing': () => ok({ enabled: false }),
      'GET /api/users/dashboard': () => ok({ package_name: 'Free' }),
    });
    const services = testServices(api);
    signIn(services);
    renderWith(<PricingPage />, services, '/pricing');
    expect(await screen.findByText('2 browser checks')).toBeVisible();
    expect(screen.queryByText(/0 browser checks/)).toBeNull();
  });
});

describe('Signup on a server with DEFAULT_PACKAGE', () => {
  it('says which plan the account starts on and what it includes, instead of the Free list', async () => {
    const api = scriptedApi({
      'GET /api/public/billing': () => ok({ enabled: false, default_package: 'Starter' }),
      'GET /api/public/packages': () => ok([...PACKAGES.slice(0, 1), { ...PACKAGES[1], max_endpoints: 50 }, PACKAGES[2]]),
    });
    renderWith(<SignupPage />, testServices(api), '/signup');
    expect(await screen.findByRole('heading', { name: 'Your account starts on the Starter plan' })).toBeVisible();
    expect(screen.getByRole('complementary', { name: 'Starter plan' })).toHaveTextContent('50 endpoints');
    expect(screen.queryByRole('heading', { name: 'The Free plan includes' })).toBeNull();
  });

  it('keeps the Free list when new accounts start on Free', async () => {
    const api = scriptedApi({ 'GET /api/public/billing': () => ok({ enabled: true, default_package: 'Free' }) });
    renderWith(<SignupPage />, testServices(api), '/signup');
    expect(screen.getByRole('heading', { name: 'The Free plan includes' })).toBeVisible();
    await waitFor(() => expect(api.calls.map((c) => c.path)).toContain('/api/public/billing'));
    expect(api.calls.map((c) => c.path)).not.toContain('/api/public/packages');
  });
});

describe('Signup after an anonymous checkout', () => {
  it('says the payment was received and passes checkout_session on to signup', async () => {
    const signup = vi.fn(async () => ({ ok: true as const }));
    renderWith(<SignupPage />, testServices(scriptedApi({}), { signup }), '/signup?checkout_session=cs_test_abc');
    expect(screen.getByRole('status')).toHaveTextContent('Payment received. Create your account to activate your plan');
    expect(screen.getByRole('link', { name: 'sign in' })).toHaveAttribute('href', '/login?checkout_session=cs_test_abc');
    const u = userEvent.setup();
    await u.type(screen.getByLabelText('Username'), 'buyer');
    await u.type(screen.getByLabelText('Email'), 'buyer@example.com');
    await u.type(screen.getByLabelText('Password'), 'password1');
    await u.type(screen.getByLabelText('Confirm Password'), 'password1');
    await u.click(screen.getByRole('button', { name: 'Create Account' }));
    expect(signup).toHaveBeenCalledWith('buyer', 'buyer@example.com', 'password1', 'cs_test_abc');
  });
});

describe('Plan change notices', () => {
  it('shows what a downgrade changed and why, and dismisses it', async () => {
    const notice: PlanChangeNotice = {
      id: 4, from_package: 'Pro', to_package: 'Free', reason: 'your subscription was canceled', created_at: '2026-01-01T00:00:00Z',
      message: "Your plan changed from Pro to Free because your subscription was canceled. Monitoring was switched off for 1 endpoint over the Free plan's limit of 10: Site 11.",
      disabled_endpoints: ['Site 11'],
    };
    const api = scriptedApi({ 'GET /api/billing/notices': () => ok([notice]), 'POST /api/billing/notices/4/dismiss': () => ok(null) });
    renderWith(<PlanNotices onPlanChanged={() => undefined} />, testServices(api), '/');
    expect(await screen.findByTestId('plan-notice')).toHaveTextContent(notice.message);
    await userEvent.setup().click(screen.getByRole('button', { name: 'Dismiss' }));
    expect(screen.queryByTestId('plan-notice')).toBeNull();
    expect(api.calls.at(-1)).toMatchObject({ method: 'POST', path: '/api/billing/notices/4/dismiss' });
  });
});
