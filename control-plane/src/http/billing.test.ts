// Billing end to end in one process: the real control plane (SQLite, express) and the real
// `stripe` SDK talking to a local server that speaks Stripe's wire format, with webhooks signed by
// Stripe's own scheme.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MESSAGES } from '@upfleet/proto/rest';
import { startHarness, type Harness } from '../testing/harness';
import { startFakeStripe, type FakeStripe } from '../testing/fake-stripe';
import { PAST_DUE_GRACE_MS } from '../services/billing';
import { CLAIM_OTHER_EMAIL } from '../services/billing/claims';

let h: Harness;
let stripe: FakeStripe;
let clock = Date.now();
const PRO_PRICE = 'price_pro_monthly';
const STARTER_PRICE = 'price_starter_monthly';

beforeAll(async () => {
  stripe = await startFakeStripe();
  h = await startHarness(
    { STRIPE_SECRET_KEY: stripe.secretKey, STRIPE_WEBHOOK_SECRET: stripe.webhookSecret, STRIPE_API_BASE: stripe.url, PUBLIC_URL: 'https://app.upfleet.test' },
    { results: null, now: () => clock },
  );
  await admin('POST', '/api/admin/packages/set-price', { package: 'Pro', stripe_price_id: PRO_PRICE });
  await admin('POST', '/api/admin/packages/set-price', { package: 'Starter', stripe_price_id: STARTER_PRICE });
});
afterAll(async () => {
  await h?.close();
  await stripe?.close();
});

async function admin(method: string, path: string, body?: unknown) {
  const r = await h.call(method, path, body, h.cp.adminToken);
  if (r.status >= 400) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.data;
}
const packages = async () => (await h.call('GET', '/api/public/packages')).body.data as any[];
const pkg = async (name: string) => (await packages()).find((p) => p.package_name === name);
const checkoutBody = async (name: string) => {
  const p = await pkg(name);
  return { priceId: p.stripe_price_id, packageId: p.package_id, packageName: p.package_name };
};
const planOf = async (token: string) => (await h.call('GET', '/api/users/dashboard', undefined, token)).body.data.package_name as string;
const endpointBody = (i: number, over: Record<string, unknown> = {}) => ({
  name: `Site ${i}`, url: `https://site${i}.example.com/`, description: '', regions: ['EU-Germany'],
  ping_host: false, cert_expiry: false, response_code: true, response_time: false, ...over,
});
const lastSessionId = () => [...stripe.sessions.keys()].at(-1)!;

/** A signed-in user who bought Pro: checkout, payment, both webhooks. */
async function proUser() {
  const u = await h.signup();
  const r = await h.call('POST', '/api/billing/create-checkout-session', await checkoutBody('Pro'), u.token);
  expect(r.status).toBe(200);
  const { session, subscription } = stripe.completeCheckout(lastSessionId());
  expect((await stripe.deliver(h.cp.url, stripe.event('checkout.session.completed', session))).status).toBe(200);
  expect((await stripe.deliver(h.cp.url, stripe.event('customer.subscription.created', subscription))).status).toBe(200);
  return { ...u, session, subscription };
}

describe('prices', () => {
  it('set-price stores the plan price shown in the public packages list; bad input is a 4xx that changes nothing', async () => {
    expect((await pkg('Pro')).stripe_price_id).toBe(PRO_PRICE);
    const before = await packages();
    const bad: Array<[unknown, number, string]> = [
      [{ package: 'Pro', stripe_price_id: 'prod_123' }, 400, 'stripe_price_id must look like price_123'],
      [{ package: 'Gold', stripe_price_id: 'price_x' }, 404, "No package named Gold; see 'upfleet package list'"],
      [{ package: 'Free', stripe_price_id: 'price_x' }, 400, 'Free is free: it needs no Stripe price'],
      [{ package: 'Business', stripe_price_id: PRO_PRICE }, 400, `${PRO_PRICE} is already the price of Pro`],
    ];
    for (const [body, status, error] of bad) {
      const r = await h.call('POST', '/api/admin/packages/set-price', body, h.cp.adminToken);
      expect([r.status, r.body]).toEqual([status, { success: false, error }]);
    }
    expect((await h.call('POST', '/api/admin/packages/set-price', { package: 'Pro', stripe_price_id: 'price_x' })).status).toBe(401);
    expect(await packages()).toEqual(before);
  });
});

describe('signed-in checkout', () => {
  it('creates the Stripe customer once and a subscription-mode session with the user id and return URLs', async () => {
    const u = await h.signup();
    const customersBefore = stripe.count('POST /v1/customers');
    const r = await h.call('POST', '/api/billing/create-checkout-session', await checkoutBody('Pro'), u.token);
    expect(r.status).toBe(200);
    const session = stripe.sessions.get(lastSessionId())!;
    expect(r.body.data).toEqual({ url: session.url });
    expect(session).toMatchObject({
      mode: 'subscription', client_reference_id: String(u.user.id), _price: PRO_PRICE,
      success_url: 'https://app.upfleet.test/dashboard?checkout=success', cancel_url: 'https://app.upfleet.test/pricing',
    });
    expect(stripe.customers.get(session.customer)).toMatchObject({ email: u.user.email, name: u.user.username });
    const again = await h.call('POST', '/api/billing/create-checkout-session', await checkoutBody('Starter'), u.token);
    expect(again.status).toBe(200);
    expect(stripe.sessions.get(lastSessionId())!.customer).toBe(session.customer);
    expect(stripe.count('POST /v1/customers')).toBe(customersBefore + 1);
    expect(await planOf(u.token)).toBe('Free'); // nothing changes before Stripe says it is paid
  });

  it('rejects a price that does not match the package (400) and asks Stripe for nothing', async () => {
    const u = await h.signup();
    const before = stripe.requests.length;
    const pro = await checkoutBody('Pro');
    const cases: Array<[unknown, string]> = [
      [{ ...pro, priceId: STARTER_PRICE }, MESSAGES.priceMismatch],
      [{ ...pro, priceId: 'price_cheap' }, MESSAGES.priceMismatch],
      [{ ...pro, packageName: 'Business' }, MESSAGES.priceMismatch],
      [{ ...pro, packageId: (await pkg('Free')).package_id, priceId: '' }, 'priceId is required'],
      [{ ...pro, packageId: 'three' }, 'packageId must be a plan id'],
      [{ ...pro, priceId: (await pkg('Business')).stripe_price_id || 'price_none', packageId: (await pkg('Business')).package_id, packageName: 'Business' }, MESSAGES.priceMismatch],
    ];
    for (const [body, error] of cases) {
      const r = await h.call('POST', '/api/billing/create-checkout-session', body, u.token);
      expect([r.status, r.body]).toEqual([400, { success: false, error }]);
    }
    expect(stripe.requests.length).toBe(before);
    expect((await h.call('POST', '/api/billing/create-checkout-session', pro)).status).toBe(401);
  });

  it('payment then checkout.session.completed + customer.subscription.created puts the user on Pro with the subscription card data', async () => {
    const u = await proUser();
    expect(await planOf(u.token)).toBe('Pro');
    const r = await h.call('GET', '/api/billing/subscription', undefined, u.token);
    expect(r.status).toBe(200);
    const item = u.subscription.items.data[0];
    expect(r.body.data).toMatchObject({
      package_name: 'Pro', price: 29, currency: 'EUR', status: 'active',
      current_period_start: new Date(item.current_period_start * 1000).toISOString(),
      current_period_end: new Date(item.current_period_end * 1000).toISOString(),
    });
    expect(r.body.data.customer_portal_url).toMatch(new RegExp(`^${stripe.url}/p/session/bps_`));
    const portal = stripe.requests.filter((x) => x.path === '/v1/billing_portal/sessions').at(-1)!;
    expect(portal.params).toEqual({ customer: u.session.customer, return_url: 'https://app.upfleet.test/profile' });
    const notices = (await h.call('GET', '/api/billing/notices', undefined, u.token)).body.data;
    expect(notices[0]).toMatchObject({ from_package: 'Free', to_package: 'Pro', message: 'Your plan changed from Free to Pro because your subscription is active. Checks now run every 30 seconds.' });
  });

  it('a paying user choosing another plan is sent to the customer portal, not a second subscription', async () => {
    const u = await proUser();
    const sessionsBefore = stripe.sessions.size;
    const r = await h.call('POST', '/api/billing/create-checkout-session', await checkoutBody('Starter'), u.token);
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({ url: expect.stringMatching(/\/p\/session\/bps_/), portal: true });
    expect(stripe.sessions.size).toBe(sessionsBefore);
  });

  it('answers 404 No active subscription found for a user who never paid', async () => {
    const u = await h.signup();
    const r = await h.call('GET', '/api/billing/subscription', undefined, u.token);
    expect([r.status, r.body]).toEqual([404, { success: false, error: 'No active subscription found' }]);
  });

  it('answers none as data null, not a 404, when asked with ?optional=1 (the Profile loads without a failing call)', async () => {
    const u = await h.signup();
    const r = await h.call('GET', '/api/billing/subscription?optional=1', undefined, u.token);
    expect([r.status, r.body]).toEqual([200, { success: true, data: null }]);
  });
});

describe('webhooks', () => {
  it('refuses a bad or missing signature with 400 and changes nothing', async () => {
    const u = await h.signup();
    await h.call('POST', '/api/billing/create-checkout-session', await checkoutBody('Pro'), u.token);
    const { session } = stripe.completeCheckout(lastSessionId());
    const event = stripe.event('checkout.session.completed', session);
    for (const opts of [{ secret: 'whsec_wrong' }, { signature: null }, { signature: 't=1,v1=deadbeef' }]) {
      const r = await stripe.deliver(h.cp.url, event, opts);
      expect([r.status, r.body]).toEqual([400, { success: false, error: 'Invalid Stripe signature' }]);
    }
    expect(await planOf(u.token)).toBe('Free');
    // The same event, properly signed, is not counted as already seen.
    expect((await stripe.deliver(h.cp.url, event)).body.data).toEqual({ received: true });
    expect(await planOf(u.token)).toBe('Pro');
  });

  it('a replayed event changes nothing, even when Stripe now says otherwise', async () => {
    const u = await proUser();
    const event = stripe.event('customer.subscription.updated', u.subscription);
    expect((await stripe.deliver(h.cp.url, event)).body.data).toEqual({ received: true });
    stripe.cancelSubscription(u.subscription.id); // changed at Stripe, but this event is old news
    const reads = stripe.count('GET /v1/subscriptions');
    const r = await stripe.deliver(h.cp.url, event);
    expect([r.status, r.body.data]).toEqual([200, { received: true, duplicate: true }]);
    expect(stripe.count('GET /v1/subscriptions')).toBe(reads);
    expect(await planOf(u.token)).toBe('Pro');
    const metrics = await (await fetch(`${h.cp.url}/metrics`, { headers: { authorization: `Bearer ${h.cp.adminToken}` } })).text();
    expect(metrics).toContain('upfleet_billing_webhook_events_total{type="customer.subscription.updated",outcome="duplicate"} 1');
  });

  it('is safe out of order: a stale event is checked against the subscription read fresh from Stripe', async () => {
    const u = await proUser();
    const stale = { ...structuredClone(u.subscription), status: 'incomplete' };
    stripe.updateSubscription(u.subscription.id, { price: STARTER_PRICE });
    await stripe.deliver(h.cp.url, stripe.event('customer.subscription.updated', stripe.subscriptions.get(u.subscription.id)!));
    expect(await planOf(u.token)).toBe('Starter');
    await stripe.deliver(h.cp.url, stripe.event('customer.subscription.created', stale, { created: 1 }));
    expect(await planOf(u.token)).toBe('Starter');
    expect((await h.call('GET', '/api/billing/subscription', undefined, u.token)).body.data.status).toBe('active');
  });

  it('an event for an unknown customer is acknowledged and changes nothing', async () => {
    const u = await h.signup();
    const stranger = { id: 'sub_unknown', object: 'subscription', customer: 'cus_nobody', status: 'active', created: 1, items: { object: 'list', data: [] } };
    const usersBefore = await admin('GET', '/api/admin/users');
    for (const type of ['customer.subscription.created', 'customer.subscription.deleted', 'invoice.paid']) {
      const object = type === 'invoice.paid' ? { id: 'in_1', object: 'invoice', customer: 'cus_nobody', parent: { subscription_details: { subscription: 'sub_unknown' } } } : stranger;
      const r = await stripe.deliver(h.cp.url, stripe.event(type, object));
      expect([r.status, r.body.data]).toEqual([200, { received: true, ignored: true }]);
    }
    expect(await admin('GET', '/api/admin/users')).toEqual(usersBefore);
    expect(await planOf(u.token)).toBe('Free');
  });

  it('past_due keeps the plan for the 7-day grace, then falls back to Free', async () => {
    const u = await proUser();
    stripe.updateSubscription(u.subscription.id, { status: 'past_due' });
    const invoice = { id: 'in_failed', object: 'invoice', customer: u.session.customer, parent: { subscription_details: { subscription: u.subscription.id } } };
    await stripe.deliver(h.cp.url, stripe.event('invoice.payment_failed', invoice));
    expect(await planOf(u.token)).toBe('Pro');
    const start = clock;
    try {
      clock = start + PAST_DUE_GRACE_MS - 60_000;
      expect((await h.call('GET', '/api/billing/subscription', undefined, u.token)).body.data).toMatchObject({ status: 'past_due', package_name: 'Pro' });
      expect(await planOf(u.token)).toBe('Pro');
      clock = start + PAST_DUE_GRACE_MS + 1000;
      expect((await h.call('GET', '/api/billing/subscription', undefined, u.token)).body.data.status).toBe('past_due');
      expect(await planOf(u.token)).toBe('Free');
      const notice = (await h.call('GET', '/api/billing/notices', undefined, u.token)).body.data[0];
      expect(notice.message).toMatch(/^Your plan changed from Pro to Free because a payment failed and the 7-day grace period ended\./);
      // Paid after all: Stripe says active again, the plan comes back.
      stripe.updateSubscription(u.subscription.id, { status: 'active' });
      await stripe.deliver(h.cp.url, stripe.event('invoice.paid', invoice));
      expect(await planOf(u.token)).toBe('Pro');
    } finally {
      clock = start;
    }
  });

  it('customer.subscription.deleted moves to Free at once: endpoints over 10 disabled newest first, features and regions removed, nothing deleted', async () => {
    const u = await proUser();
    for (let i = 1; i <= 13; i++) {
      const extra = i === 1 ? { ping_host: true, response_time: true, regions: ['EU-Germany', 'US-Virginia'] } : i === 2 ? { response_code: false, ping_host: true } : {};
      expect((await h.call('POST', '/api/users/endpoints', endpointBody(i, extra), u.token)).status).toBe(201);
    }
    await h.call('PATCH', `/api/users/endpoints/${(await h.call('GET', '/api/users/endpoints-with-uptime', undefined, u.token)).body.data[12].url_id}/toggle`, { monitoring_enabled: false }, u.token);
    stripe.cancelSubscription(u.subscription.id);
    await stripe.deliver(h.cp.url, stripe.event('customer.subscription.deleted', stripe.subscriptions.get(u.subscription.id)!));
    expect(await planOf(u.token)).toBe('Free');
    const list = (await h.call('GET', '/api/users/endpoints-with-uptime', undefined, u.token)).body.data as any[];
    expect(list).toHaveLength(13);
    // 12 were on; the 2 newest of those (Site 12, Site 11) are switched off, Site 13 was already off.
    expect(list.filter((e) => !e.monitoring_enabled).map((e) => e.name)).toEqual(['Site 11', 'Site 12', 'Site 13']);
    expect(list[0]).toMatchObject({ name: 'Site 1', ping_host: false, response_time: false, response_code: true, regions: ['EU-Germany'] });
    expect(list[1]).toMatchObject({ name: 'Site 2', ping_host: false, response_code: true });
    const notice = (await h.call('GET', '/api/billing/notices', undefined, u.token)).body.data[0];
    expect(notice).toMatchObject({ from_package: 'Pro', to_package: 'Free', disabled_endpoints: ['Site 12', 'Site 11'] });
    expect(notice.message).toBe(
      "Your plan changed from Pro to Free because your subscription was canceled. Monitoring was switched off for 2 endpoints over the Free plan's limit of 10: Site 12, Site 11. " +
      'Ping Host, Response Time monitoring are not in the Free plan and were removed from your endpoints. Regions not in the Free plan were removed: US - Virginia. ' +
      'Checks now run every 5 minutes. Nothing was deleted: upgrade to switch monitoring back on and add features again.',
    );
    // Within the limit nothing more can be switched on; the card shows the canceled subscription.
    const r = await h.call('PATCH', `/api/users/endpoints/${list[11].url_id}/toggle`, { monitoring_enabled: true }, u.token);
    expect([r.status, r.body.error]).toEqual([400, MESSAGES.tooManyEndpoints(10, 'Free')]);
    expect((await h.call('GET', '/api/billing/subscription', undefined, u.token)).body.data).toMatchObject({ status: 'canceled' });
    // Dismissed notices stay dismissed.
    expect((await h.call('POST', `/api/billing/notices/${notice.id}/dismiss`, {}, u.token)).status).toBe(200);
    expect((await h.call('GET', '/api/billing/notices', undefined, u.token)).body.data.map((n: any) => n.id)).not.toContain(notice.id);

    // Paying again re-enables nothing on its own; monitoring can then be switched back on.
    expect((await h.call('POST', '/api/billing/create-checkout-session', await checkoutBody('Pro'), u.token)).body.data.portal).toBeUndefined();
    const again = stripe.completeCheckout(lastSessionId());
    await stripe.deliver(h.cp.url, stripe.event('checkout.session.completed', again.session));
    expect(await planOf(u.token)).toBe('Pro');
    const after = (await h.call('GET', '/api/users/endpoints-with-uptime', undefined, u.token)).body.data as any[];
    expect(after.filter((e) => !e.monitoring_enabled).map((e) => e.name)).toEqual(['Site 11', 'Site 12', 'Site 13']);
    expect((await h.call('PATCH', `/api/users/endpoints/${list[11].url_id}/toggle`, { monitoring_enabled: true }, u.token)).status).toBe(200);
  });
});

describe('anonymous checkout', () => {
  it('checkout with email → signup with the checkout session puts the account on the plan; the session cannot be claimed twice', async () => {
    const bad = await h.call('POST', '/api/public/create-checkout-session', { ...(await checkoutBody('Pro')), email: 'not-an-email' });
    expect([bad.status, bad.body.error]).toEqual([400, 'Please enter a valid email address']);
    const r = await h.call('POST', '/api/public/create-checkout-session', { ...(await checkoutBody('Pro')), email: 'newbuyer@example.com' });
    expect(r.status).toBe(200);
    const id = lastSessionId();
    expect(stripe.sessions.get(id)).toMatchObject({
      customer_email: 'newbuyer@example.com', customer: null, client_reference_id: null,
      success_url: 'https://app.upfleet.test/signup?checkout_session={CHECKOUT_SESSION_ID}',
    });
    const signup = (username: string, checkout_session: string) =>
      h.call('POST', '/api/auth/signup', { username, email: `${username}@example.com`, password: 'correct horse', checkout_session });

    // Not paid yet: refused, no account.
    const early = await signup('newbuyer', id);
    expect([early.status, early.body.error]).toEqual([400, 'This checkout is not complete yet']);
    const { session, subscription } = stripe.completeCheckout(id);
    expect(session.success_url).toBe(`https://app.upfleet.test/signup?checkout_session=${id}`);
    // Webhooks before the account exists find no user and change nothing.
    expect((await stripe.deliver(h.cp.url, stripe.event('checkout.session.completed', session))).body.data).toEqual({ received: true, ignored: true });
    await stripe.deliver(h.cp.url, stripe.event('customer.subscription.created', subscription));

    const ok = await signup('newbuyer', id);
    expect(ok.status).toBe(201);
    expect(await planOf(ok.body.data.accessToken)).toBe('Pro');
    expect((await h.call('GET', '/api/billing/subscription', undefined, ok.body.data.accessToken)).body.data).toMatchObject({ status: 'active', package_name: 'Pro' });

    const usersBefore = (await admin('GET', '/api/admin/users')).length;
    const twice = await signup('thief', id);
    expect([twice.status, twice.body.error]).toEqual([409, MESSAGES.checkoutClaimed]);
    const login = await h.call('POST', '/api/auth/login', { email: 'newbuyer@example.com', password: 'correct horse', checkout_session: id });
    expect([login.status, login.body.error]).toEqual([409, MESSAGES.checkoutClaimed]);
    expect((await admin('GET', '/api/admin/users')).length).toBe(usersBefore);
    // Later events for that customer now reach the new account.
    stripe.cancelSubscription(subscription.id);
    await stripe.deliver(h.cp.url, stripe.event('customer.subscription.deleted', subscription));
    expect(await planOf(ok.body.data.accessToken)).toBe('Free');

    const unknown = await signup('ghost', 'cs_test_doesnotexist');
    expect([unknown.status, unknown.body.error]).toEqual([400, 'Unknown checkout session']);
  });

  // An anonymous checkout is tied to its buyer's email. It used to attach itself to any
  // account with that email by webhook, and to any account signing in with its session id.
  it('signing in with a paid checkout session attaches it only to the account with the checkout\'s email', async () => {
    const u = await h.signup();
    await h.call('POST', '/api/public/create-checkout-session', { ...(await checkoutBody('Starter')), email: 'someone-else@example.com' });
    const other = stripe.completeCheckout(lastSessionId());
    const refused = await h.call('POST', '/api/auth/login', { email: u.user.email, password: 'correct horse', checkout_session: other.session.id });
    expect([refused.status, refused.body]).toEqual([403, { success: false, error: CLAIM_OTHER_EMAIL }]);
    expect(await planOf(u.token)).toBe('Free');
    const wrongSignup = await h.call('POST', '/api/auth/signup', { username: 'notbuyer', email: 'notbuyer@example.com', password: 'correct horse', checkout_session: other.session.id });
    expect([wrongSignup.status, wrongSignup.body.error]).toEqual([403, CLAIM_OTHER_EMAIL]);

    await h.call('POST', '/api/public/create-checkout-session', { ...(await checkoutBody('Starter')), email: u.user.email.toUpperCase() });
    const own = stripe.completeCheckout(lastSessionId());
    const r = await h.call('POST', '/api/auth/login', { email: u.user.email, password: 'correct horse', checkout_session: own.session.id });
    expect(r.status).toBe(200);
    expect(await planOf(u.token)).toBe('Starter');
  });

  it('an anonymous purchase with a paying customer\'s email changes nothing on their account, by webhook or when they sign in with it', async () => {
    const u = await proUser();
    const key = (await h.call('POST', '/api/users/api-keys', { name: 'ci' }, u.token)).body.data.key as string;
    const ep = await h.call('POST', '/api/users/endpoints', endpointBody(1, { regions: ['EU-Germany', 'US-Virginia'], response_time: true }), u.token);
    expect(ep.status).toBe(201);
    // Someone else buys Starter with the customer's address and pays; every webhook is delivered.
    await h.call('POST', '/api/public/create-checkout-session', { ...(await checkoutBody('Starter')), email: u.user.email });
    const { session, subscription } = stripe.completeCheckout(lastSessionId());
    expect((await stripe.deliver(h.cp.url, stripe.event('checkout.session.completed', session))).body.data).toEqual({ received: true, ignored: true });
    expect((await stripe.deliver(h.cp.url, stripe.event('customer.subscription.created', subscription))).body.data).toEqual({ received: true, ignored: true });
    expect(await planOf(u.token)).toBe('Pro');
    expect((await h.call('GET', '/api/users/endpoints-with-uptime', undefined, key)).status).toBe(200);
    // Lured into signing in with it: claimed (their verified address), but it never lowers their own plan.
    const login = await h.call('POST', '/api/auth/login', { email: u.user.email, password: 'correct horse', checkout_session: session.id });
    expect(login.status).toBe(200);
    expect(await planOf(u.token)).toBe('Pro');
    expect((await h.call('GET', '/api/billing/subscription', undefined, u.token)).body.data).toMatchObject({ package_name: 'Pro', status: 'active' });
    const list = await h.call('GET', '/api/users/endpoints-with-uptime', undefined, key);
    expect([list.status, list.body.data.find((e: any) => e.url_id === ep.body.data.url_id)?.regions]).toEqual([200, ['EU-Germany', 'US-Virginia']]);
    const again = await h.call('POST', '/api/auth/signup', { username: 'lateclaimer', email: 'lateclaimer@example.com', password: 'correct horse', checkout_session: session.id });
    expect([again.status, again.body.error]).toEqual([409, MESSAGES.checkoutClaimed]);
  });
});

describe('sync-stripe', () => {
  it('creates a Product and monthly Price per paid plan without a price, with lookup keys; running it twice creates nothing new', async () => {
    const free = await startFakeStripe();
    const h2 = await startHarness({ STRIPE_SECRET_KEY: free.secretKey, STRIPE_WEBHOOK_SECRET: free.webhookSecret, STRIPE_API_BASE: free.url });
    try {
      const run = async () => {
        const r = await h2.call('POST', '/api/admin/packages/sync-stripe', {}, h2.cp.adminToken);
        expect(r.status).toBe(200);
        return r.body.data as any[];
      };
      const first = await run();
      expect(first.map((x) => [x.package_name, x.action, x.lookup_key])).toEqual([
        ['Free', 'skipped', null], ['Starter', 'created', 'upfleet_starter'], ['Pro', 'created', 'upfleet_pro'], ['Business', 'created', 'upfleet_business'],
      ]);
      expect([...free.prices.values()].map((p) => [p.lookup_key, p.unit_amount, p.currency, p.recurring.interval])).toEqual([
        ['upfleet_starter', 900, 'eur', 'month'], ['upfleet_pro', 2900, 'eur', 'month'], ['upfleet_business', 9900, 'eur', 'month'],
      ]);
      expect(free.requests.filter((x) => x.method === 'POST').every((x) => x.idempotencyKey?.startsWith('upfleet-'))).toBe(true);
      const stored = (await h2.call('GET', '/api/public/packages')).body.data as any[];
      expect(stored.slice(1).map((p) => p.stripe_price_id)).toEqual(first.slice(1).map((x) => x.stripe_price_id));
      const posts = free.count('POST');
      expect((await run()).map((x) => x.action)).toEqual(['skipped', 'kept', 'kept', 'kept']);
      expect(free.count('POST')).toBe(posts);
      expect(free.products.size).toBe(3);
    } finally {
      await h2.close();
      await free.close();
    }
  });
});

describe('billing not configured', () => {
  it('checkout answers 503 Billing is not configured, the subscription 404, and everything else works', async () => {
    const off = await startHarness();
    try {
      const u = await off.signup();
      const body = { priceId: 'price_x', packageId: 3, packageName: 'Pro' };
      for (const [path, token] of [['/api/billing/create-checkout-session', u.token], ['/api/public/create-checkout-session', undefined]] as const) {
        const r = await off.call('POST', path, { ...body, email: 'a@b.co' }, token);
        expect([r.status, r.body]).toEqual([503, { success: false, error: 'Billing is not configured' }]);
      }
      const s = await off.call('GET', '/api/billing/subscription', undefined, u.token);
      expect([s.status, s.body.error]).toEqual([404, 'No active subscription found']);
      expect((await off.call('POST', '/api/billing/webhook', '{}')).status).toBe(503);
      expect((await off.call('GET', '/api/users/dashboard', undefined, u.token)).body.data.package_name).toBe('Free');
    } finally {
      await off.close();
    }
  });
});

describe('Stripe unreachable', () => {
  it('checkout answers 503 with a clear message and stores nothing', async () => {
    const gone = await startFakeStripe();
    const h3 = await startHarness({ STRIPE_SECRET_KEY: gone.secretKey, STRIPE_WEBHOOK_SECRET: gone.webhookSecret, STRIPE_API_BASE: gone.url });
    try {
      await h3.call('POST', '/api/admin/packages/set-price', { package: 'Pro', stripe_price_id: PRO_PRICE }, h3.cp.adminToken);
      await gone.close();
      const u = await h3.signup();
      const r = await h3.call('POST', '/api/billing/create-checkout-session', { priceId: PRO_PRICE, packageId: 3, packageName: 'Pro' }, u.token);
      expect([r.status, r.body]).toEqual([503, { success: false, error: 'The payment provider could not create the customer; please try again' }]);
      expect((await h3.call('GET', '/api/users/dashboard', undefined, u.token)).body.data.package_name).toBe('Free');
      expect(h3.cp.db.prepare('SELECT COUNT(*) FROM billing_customers').pluck().get()).toBe(0);
    } finally {
      await h3.close();
    }
  });
});

describe('anonymous checkout rate limit', () => {
  it('allows RATE_LIMIT_IP_SIGNUPS anonymous checkouts per address in the window, then 429 with Retry-After, asking Stripe for nothing more', async () => {
    const s2 = await startFakeStripe();
    const h2 = await startHarness({ STRIPE_SECRET_KEY: s2.secretKey, STRIPE_WEBHOOK_SECRET: s2.webhookSecret, STRIPE_API_BASE: s2.url, RATE_LIMIT_IP_SIGNUPS: '3' });
    try {
      await h2.call('POST', '/api/admin/packages/set-price', { package: 'Pro', stripe_price_id: PRO_PRICE }, h2.cp.adminToken);
      const body = { priceId: PRO_PRICE, packageId: 3, packageName: 'Pro' };
      for (let i = 0; i < 3; i++) expect((await h2.call('POST', '/api/public/create-checkout-session', { ...body, email: `victim${i}@example.com` })).status).toBe(200);
      const r = await h2.call('POST', '/api/public/create-checkout-session', { ...body, email: 'victim9@example.com' });
      expect([r.status, r.body]).toEqual([429, { success: false, error: 'Too many checkouts from this address. Please try again later.' }]);
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(s2.count('POST /v1/checkout/sessions')).toBe(3);
    } finally {
      await h2.close();
      await s2.close();
    }
  });
});

describe('a team workspace buys its own plan', () => {
  it('the owner checks out for the workspace (customer: the owner\'s email, the workspace\'s name); the plan is the workspace\'s, not the owner\'s; others get 403', async () => {
    const owner = await h.signup();
    const ws = (await h.call('POST', '/api/workspaces', { name: 'Ops team' }, owner.token)).body.data.id as number;
    const inWs = { 'x-workspace-id': String(ws) };
    const r = await h.call('POST', '/api/billing/create-checkout-session', await checkoutBody('Pro'), owner.token, inWs);
    expect(r.status).toBe(200);
    const customer = [...stripe.customers.values()].at(-1)!;
    expect(customer).toMatchObject({ email: owner.user.email, name: 'Ops team' });
    const { session, subscription } = stripe.completeCheckout(lastSessionId());
    expect((await stripe.deliver(h.cp.url, stripe.event('checkout.session.completed', session))).status).toBe(200);
    expect((await stripe.deliver(h.cp.url, stripe.event('customer.subscription.created', subscription))).status).toBe(200);
    expect((await h.call('GET', '/api/users/dashboard', undefined, owner.token, inWs)).body.data.package_name).toBe('Pro');
    expect(await planOf(owner.token)).toBe('Free'); // the owner's personal workspace is unchanged
    const card = await h.call('GET', '/api/billing/subscription', undefined, owner.token, inWs);
    expect(card.body.data).toMatchObject({ package_name: 'Pro' });
    expect((await h.call('GET', '/api/billing/subscription', undefined, owner.token)).status).toBe(404);
    // an admin of the workspace sees the card without the portal, and cannot buy
    const admin2 = await h.signup();
    const inv = await h.call('POST', `/api/workspaces/${ws}/invitations`, { email: admin2.user.email, role: 'admin' }, owner.token);
    const token = /\/invitations\/([A-Za-z0-9_-]+)$/.exec(inv.body.data.link)![1];
    expect((await h.call('POST', `/api/invitations/${token}/accept`, undefined, admin2.token)).status).toBe(200);
    expect((await h.call('GET', '/api/billing/subscription', undefined, admin2.token, inWs)).body.data).toMatchObject({ package_name: 'Pro', customer_portal_url: null });
    const refused = await h.call('POST', '/api/billing/create-checkout-session', await checkoutBody('Starter'), admin2.token, inWs);
    expect(refused.body).toEqual({ success: false, error: 'Your role in this workspace (admin) does not allow this action.' });
  });
});
