// Paying in Chromium against the real control plane (embedded agent on) and a local Stripe that
// speaks Stripe's wire format: Free → Pro through checkout and signed webhooks, then a canceled
// subscription back to Free, with endpoints over the limit switched off and none deleted.
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import type { Page } from 'playwright-core';
import { startStack, type Stack } from '../helpers/start-stack';
import { startFakeStripe, type FakeStripe } from '../helpers/fake-stripe';
import { apiFor, waitFor } from '../helpers/api';
import { ensureWebBuild, hasChromium, launchBrowser, signUp } from './screenshots';

const browserOk = hasChromium();
const d = browserOk ? describe : describe.skip;
const title = browserOk ? 'billing in chromium' : 'billing in chromium (skipped: /usr/bin/chromium is missing)';

/** The check intervals the embedded agent holds for one endpoint (its saved assignment snapshot). */
function agentIntervals(stack: Stack, endpointId: number): number[] {
  const db = new Database(path.join(stack.dataDir, 'agent', 'agent.db'), { readonly: true, fileMustExist: true });
  try {
    const rows = db.prepare('SELECT payload FROM assignments').pluck().all() as string[];
    return rows.map((r) => JSON.parse(r) as { endpoint_id: number; interval_seconds: number }).filter((a) => a.endpoint_id === endpointId).map((a) => a.interval_seconds);
  } finally {
    db.close();
  }
}

d(title, () => {
  let stack: Stack;
  let stripe: FakeStripe;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let page: Page;
  const api = apiFor(() => stack);
  const account = { username: 'payer', email: 'payer@example.com', password: 'correct-horse-1' };

  beforeAll(async () => {
    ensureWebBuild();
    stripe = await startFakeStripe();
    stack = await startStack({
      embeddedAgent: true,
      env: { STRIPE_SECRET_KEY: stripe.secretKey, STRIPE_WEBHOOK_SECRET: stripe.webhookSecret, STRIPE_API_BASE: stripe.url },
    });
    await api.admin('POST', '/api/admin/packages/set-price', { package: 'Pro', stripe_price_id: 'price_pro_e2e' });
    browser = await launchBrowser();
    page = await browser.context.newPage();
    page.setDefaultTimeout(30_000);
  });
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
    await stripe?.close();
  });

  it('Free → Pro by checkout and signed webhooks, then canceled → Free with endpoints over 10 disabled and none deleted', async () => {
    const base = stack.baseUrl;
    await signUp(page, base, account);
    const token = (await page.evaluate<string | null>("localStorage.getItem('accessToken')"))!;
    const first = await api.call('POST', '/api/users/endpoints', { name: 'Home', url: `${base}/`, regions: ['EU-Germany'], response_code: true }, token);
    expect(first.status).toBe(201);
    const homeId = first.body.data.url_id as number;
    await waitFor('the agent to hold the Free check', async () => agentIntervals(stack, homeId).join() === '300', 45_000);

    // Choose Pro: Processing..., then the browser is at the checkout page the (fake) Stripe returned.
    await page.goto(`${base}/pricing`);
    await page.getByRole('button', { name: 'Choose Pro' }).click();
    await page.waitForURL(new RegExp(`^${stripe.url}/c/pay/cs_test_`));
    await page.getByRole('heading', { name: 'Fake Stripe Checkout' }).waitFor();
    const sessionId = page.url().split('/').at(-1)!;
    expect(stripe.sessions.get(sessionId)).toMatchObject({ client_reference_id: expect.any(String), _price: 'price_pro_e2e', success_url: `${base}/dashboard?checkout=success` });

    // The buyer pays; Stripe sends the signed webhooks and the browser comes back.
    const paid = stripe.completeCheckout(sessionId);
    expect((await stripe.deliver(base, stripe.event('checkout.session.completed', paid.session))).status).toBe(200);
    expect((await stripe.deliver(base, stripe.event('customer.subscription.created', paid.subscription))).status).toBe(200);
    await page.goto(paid.session.success_url);
    await page.getByText('You are on the Pro plan.').waitFor();
    await page.getByText(/Thank you! Your payment went through/).waitFor();
    await page.getByTestId('plan-notice').getByText(/Your plan changed from Free to Pro because your subscription is active\. Checks now run every 30 seconds\./).waitFor();
    // The agent got the delta: the endpoint's check now runs at Pro's interval.
    await waitFor('the agent to hold the Pro interval', async () => agentIntervals(stack, homeId).join() === '30', 30_000);

    // Profile: the subscription card shows active, the period dates and the portal link.
    await page.goto(`${base}/profile`);
    const card = page.locator('section', { has: page.getByRole('heading', { name: 'Subscription & Billing' }) });
    await card.locator('.badge', { hasText: 'active' }).waitFor();
    await expect(card.getByText('Not available').count()).resolves.toBe(0);
    const start = new Date(paid.subscription.items.data[0].current_period_start * 1000).getFullYear();
    await expect(card.locator('dd').filter({ hasText: String(start) }).count()).resolves.toBe(2);
    const portal = await card.getByRole('link', { name: 'Manage Billing' }).getAttribute('href');
    expect(portal).toMatch(new RegExp(`^${stripe.url}/p/session/bps_`));

    // 11 more endpoints (12 in all) on Pro, then the subscription ends at Stripe.
    for (let i = 2; i <= 12; i++) {
      const r = await api.call('POST', '/api/users/endpoints', { name: `Page ${i}`, url: `${base}/about?n=${i}`, regions: ['EU-Germany'], response_code: true }, token);
      expect(r.status).toBe(201);
    }
    const canceled = stripe.cancelSubscription(paid.subscription.id);
    expect((await stripe.deliver(base, stripe.event('customer.subscription.deleted', canceled))).status).toBe(200);

    await page.goto(`${base}/dashboard`);
    await page.getByText('You are on the Free plan.').waitFor();
    await page.getByTestId('plan-notice').getByText(/Your plan changed from Pro to Free because your subscription was canceled\. Monitoring was switched off for 2 endpoints over the Free plan's limit of 10: Page 12, Page 11\./).waitFor();
    await expect(page.getByTestId('endpoint-row').count()).resolves.toBe(12);
    const off = page.getByTestId('endpoint-row').filter({ has: page.getByRole('img', { name: 'Monitoring disabled' }) });
    await expect(off.count()).resolves.toBe(2);
    await off.filter({ hasText: 'Page 12' }).waitFor();
    await off.filter({ hasText: 'Page 11' }).waitFor();
    await waitFor('the agent to hold the Free interval again', async () => agentIntervals(stack, homeId).join() === '300', 30_000);
    const list = (await api.call('GET', '/api/users/endpoints-with-uptime', undefined, token)).body.data as Array<{ url_id: number; name: string }>;
    const page12 = list.find((e) => e.name === 'Page 12')!;
    expect(agentIntervals(stack, page12.url_id)).toEqual([]);
  });

  it('anonymous checkout with an email, then signup with the checkout session: the new account is on Pro; the session cannot be claimed twice', async () => {
    const base = stack.baseUrl;
    // An anonymous visitor in a browser profile of their own: a signed-in tab of the first test (with
    // its live event stream) sharing this profile's storage kept re-rendering or signing out this one.
    await page.goto('about:blank');
    const anonymous = await launchBrowser();
    onTestFinished(() => anonymous.close());
    const p = await anonymous.context.newPage();
    p.setDefaultTimeout(30_000);
    await p.goto(`${base}/pricing`);
    await p.evaluate('localStorage.clear()');
    await p.reload();
    await p.getByRole('button', { name: 'Choose Pro' }).click();
    const modal = p.getByRole('dialog', { name: 'Subscribe to Pro' });
    await modal.getByLabel('Email').fill('buyer@example.com');
    await modal.getByRole('button', { name: 'Continue to Checkout' }).click();
    await p.waitForURL(new RegExp(`^${stripe.url}/c/pay/cs_test_`));
    const sessionId = p.url().split('/').at(-1)!;
    expect(stripe.sessions.get(sessionId)).toMatchObject({ customer_email: 'buyer@example.com', client_reference_id: null });

    const paid = stripe.completeCheckout(sessionId);
    await stripe.deliver(base, stripe.event('checkout.session.completed', paid.session));
    await p.goto(paid.session.success_url);
    expect(p.url()).toBe(`${base}/signup?checkout_session=${sessionId}`);
    await p.getByText('Payment received. Create your account to activate your plan').waitFor();
    await p.getByLabel('Username').fill('buyer');
    await p.getByLabel('Email').fill('buyer@example.com');
    await p.getByLabel('Password', { exact: true }).fill('correct-horse-2');
    await p.getByLabel('Confirm Password').fill('correct-horse-2');
    await p.getByRole('button', { name: 'Create Account' }).click();
    await p.waitForURL(`${base}/dashboard`);
    await p.getByText('You are on the Pro plan.').waitFor();

    const again = await api.call('POST', '/api/auth/signup', { username: 'second', email: 'second@example.com', password: 'correct-horse-3', checkout_session: sessionId });
    expect([again.status, again.body.error]).toEqual([409, 'This checkout has already been used']);
    await p.close();
  });
});
