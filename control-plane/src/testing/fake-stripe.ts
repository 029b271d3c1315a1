// A local HTTP server speaking Stripe's wire format for the calls Upfleet makes (form-encoded
// requests with bracketed keys, JSON objects with their `object` field, list objects, Stripe's
// error shape, Idempotency-Key replay), driven by the real `stripe` SDK through STRIPE_API_BASE.
// Tests play Stripe's part with completeCheckout()/updateSubscription() and deliver webhooks
// signed with Stripe's real scheme (generateTestHeaderString).
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';

type Obj = Record<string, any>;

export interface FakeStripeRequest {
  method: string;
  path: string;
  params: Obj;
  idempotencyKey: string | undefined;
}

export interface FakeStripe {
  url: string;
  secretKey: string;
  webhookSecret: string;
  requests: FakeStripeRequest[];
  customers: Map<string, Obj>;
  sessions: Map<string, Obj>;
  subscriptions: Map<string, Obj>;
  products: Map<string, Obj>;
  prices: Map<string, Obj>;
  /** Requests whose method and path start as given (e.g. 'POST /v1/customers'). */
  count(prefix: string): number;
  /** The buyer pays: a customer (if none), an active subscription, the session complete. */
  completeCheckout(sessionId: string, opts?: { status?: string }): { session: Obj; subscription: Obj; customer: Obj };
  updateSubscription(id: string, patch: { status?: string; price?: string }): Obj;
  cancelSubscription(id: string): Obj;
  /** An Event object as Stripe sends it; `created` in seconds. */
  event(type: string, object: Obj, opts?: { id?: string; created?: number }): Obj;
  /** POSTs an event to `${baseUrl}/api/billing/webhook`, signed unless told otherwise. */
  deliver(baseUrl: string, event: Obj, opts?: { secret?: string; signature?: string | null }): Promise<{ status: number; body: any }>;
  close(): Promise<void>;
}

/** Stripe's form encoding: `a[b][0][c]=v` → { a: { b: [ { c: 'v' } ] } }. */
export function parseStripeForm(text: string): Obj {
  const out: Obj = {};
  for (const [key, value] of new URLSearchParams(text)) {
    const parts = key.replace(/\]/g, '').split('[');
    let node: any = out;
    parts.forEach((part, i) => {
      const last = i === parts.length - 1;
      const nextIsIndex = !last && /^\d*$/.test(parts[i + 1]);
      const k = part === '' && Array.isArray(node) ? node.length : part;
      if (last) node[k] = value;
      else node = node[k] ??= nextIsIndex ? [] : {};
    });
  }
  return out;
}

const apiError = (status: number, type: string, message: string, extra: Obj = {}) => ({
  status,
  body: { error: { type, message, ...extra, request_log_url: 'https://dashboard.stripe.com/test/logs' } },
});
const missing = (kind: string, id: string, param = 'id') =>
  apiError(404, 'invalid_request_error', `No such ${kind}: '${id}'`, { code: 'resource_missing', param });

export async function startFakeStripe(opts: { secretKey?: string; webhookSecret?: string } = {}): Promise<FakeStripe> {
  const secretKey = opts.secretKey ?? 'sk_test_upfleet_fake';
  const webhookSecret = opts.webhookSecret ?? `whsec_${crypto.randomBytes(12).toString('hex')}`;
  const signer = new Stripe(secretKey);
  const requests: FakeStripeRequest[] = [];
  const customers = new Map<string, Obj>();
  const sessions = new Map<string, Obj>();
  const subscriptions = new Map<string, Obj>();
  const products = new Map<string, Obj>();
  const prices = new Map<string, Obj>();
  const replays = new Map<string, { status: number; body: unknown }>();
  const nowS = () => Math.floor(Date.now() / 1000);
  const newId = (prefix: string) => `${prefix}_${crypto.randomBytes(10).toString('hex')}`;
  let base = '';

  const priceOf = (id: string): Obj => {
    let p = prices.get(id);
    if (!p) {
      // Prices set by hand (`upfleet package set-price`) exist in the real account; here on first use.
      p = { id, object: 'price', active: true, currency: 'eur', unit_amount: 2900, recurring: { interval: 'month', interval_count: 1 }, lookup_key: null, product: 'prod_manual', type: 'recurring', metadata: {}, livemode: false, created: nowS() };
      prices.set(id, p);
    }
    return p;
  };

  function route(method: string, path: string, params: Obj): { status: number; body: unknown } {
    let m: RegExpExecArray | null;
    if (method === 'POST' && path === '/v1/customers') {
      const c = { id: newId('cus'), object: 'customer', email: params.email ?? null, name: params.name ?? null, metadata: params.metadata ?? {}, created: nowS(), livemode: false };
      customers.set(c.id, c);
      return { status: 200, body: c };
    }
    if (method === 'GET' && (m = /^\/v1\/customers\/([^/]+)$/.exec(path))) {
      const c = customers.get(m[1]);
      return c ? { status: 200, body: c } : missing('customer', m[1]);
    }
    if (method === 'POST' && path === '/v1/checkout/sessions') {
      const price = params.line_items?.[0]?.price;
      if (!price) return apiError(400, 'invalid_request_error', 'Missing required param: line_items.', { code: 'parameter_missing', param: 'line_items' });
      if (!params.success_url) return apiError(400, 'invalid_request_error', 'Missing required param: success_url.', { code: 'parameter_missing', param: 'success_url' });
      if (params.customer && !customers.has(params.customer)) return missing('customer', params.customer, 'customer');
      const id = newId('cs_test');
      const s = {
        id, object: 'checkout.session', mode: params.mode, status: 'open', payment_status: 'unpaid',
        customer: params.customer ?? null, customer_email: params.customer_email ?? null, customer_details: null,
        client_reference_id: params.client_reference_id ?? null, success_url: params.success_url, cancel_url: params.cancel_url ?? null,
        url: `${base}/c/pay/${id}`, metadata: params.metadata ?? {}, subscription: null, created: nowS(),
        expires_at: nowS() + 86400, livemode: false, _price: price, _quantity: Number(params.line_items[0].quantity ?? 1),
      };
      sessions.set(id, s);
      return { status: 200, body: s };
    }
    if (method === 'GET' && (m = /^\/v1\/checkout\/sessions\/([^/]+)$/.exec(path))) {
      const s = sessions.get(m[1]);
      if (!s) return missing('checkout.session', m[1]);
      const expand: string[] = params.expand ?? [];
      return { status: 200, body: expand.includes('subscription') && s.subscription ? { ...s, subscription: subscriptions.get(s.subscription) } : s };
    }
    if (method === 'GET' && (m = /^\/v1\/subscriptions\/([^/]+)$/.exec(path))) {
      const s = subscriptions.get(m[1]);
      return s ? { status: 200, body: s } : missing('subscription', m[1]);
    }
    if (method === 'POST' && path === '/v1/billing_portal/sessions') {
      if (!customers.has(params.customer)) return missing('customer', params.customer, 'customer');
      const id = newId('bps');
      return { status: 200, body: { id, object: 'billing_portal.session', customer: params.customer, return_url: params.return_url ?? null, url: `${base}/p/session/${id}`, created: nowS(), livemode: false } };
    }
    if (method === 'POST' && path === '/v1/products') {
      if (!params.name) return apiError(400, 'invalid_request_error', 'Missing required param: name.', { code: 'parameter_missing', param: 'name' });
      const p = { id: newId('prod'), object: 'product', name: params.name, description: params.description ?? null, metadata: params.metadata ?? {}, active: true, created: nowS(), livemode: false };
      products.set(p.id, p);
      return { status: 200, body: p };
    }
    if (method === 'POST' && path === '/v1/prices') {
      if (!products.has(params.product)) return missing('product', params.product, 'product');
      if (params.lookup_key && [...prices.values()].some((x) => x.lookup_key === params.lookup_key) && params.transfer_lookup_key !== 'true') {
        return apiError(400, 'invalid_request_error', `A price (\`${params.lookup_key}\`) already uses that lookup key.`, { param: 'lookup_key' });
      }
      const p = {
        id: newId('price'), object: 'price', active: true, currency: params.currency, unit_amount: Number(params.unit_amount),
        recurring: params.recurring ? { interval: params.recurring.interval, interval_count: 1 } : null, lookup_key: params.lookup_key ?? null,
        product: params.product, type: params.recurring ? 'recurring' : 'one_time', metadata: params.metadata ?? {}, created: nowS(), livemode: false,
      };
      prices.set(p.id, p);
      return { status: 200, body: p };
    }
    if (method === 'GET' && path === '/v1/prices') {
      const keys: string[] = params.lookup_keys ?? [];
      const data = [...prices.values()].filter((p) => (keys.length === 0 || keys.includes(p.lookup_key)) && (params.active === undefined || String(p.active) === params.active));
      return { status: 200, body: { object: 'list', data: data.slice(0, Number(params.limit ?? 10)), has_more: false, url: '/v1/prices' } };
    }
    return apiError(404, 'invalid_request_error', `Unrecognized request URL (${method}: ${path}).`);
  }

  const page = (title: string, text: string) =>
    `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body><h1>${title}</h1><p>${text}</p></body></html>`;

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const url = new URL(req.url ?? '/', 'http://x');
    const method = req.method ?? 'GET';
    // The pages a browser is sent to: checkout and the customer portal.
    if (method === 'GET' && url.pathname.startsWith('/c/pay/')) {
      const s = sessions.get(url.pathname.slice('/c/pay/'.length));
      res.writeHead(s ? 200 : 404, { 'content-type': 'text/html' });
      res.end(page('Fake Stripe Checkout', s ? `Pay for ${s._price}` : 'Unknown session'));
      return;
    }
    if (method === 'GET' && url.pathname.startsWith('/p/session/')) {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(page('Fake Stripe Billing Portal', 'Manage your subscription'));
      return;
    }
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', 'request-id': newId('req'), 'stripe-version': '2025-10-29.clover', ...headers });
      res.end(JSON.stringify(body));
    };
    if (req.headers.authorization !== `Bearer ${secretKey}`) {
      const r = apiError(401, 'invalid_request_error', `Invalid API Key provided: ${String(req.headers.authorization ?? '').slice(7, 15)}***`);
      return send(r.status, r.body);
    }
    const params = method === 'GET' ? parseStripeForm(url.search.slice(1)) : parseStripeForm(Buffer.concat(chunks).toString('utf8'));
    const key = req.headers['idempotency-key'] as string | undefined;
    requests.push({ method, path: url.pathname, params, idempotencyKey: key });
    const replayKey = key && `${method} ${url.pathname} ${key}`;
    if (replayKey && replays.has(replayKey)) {
      const r = replays.get(replayKey)!;
      return send(r.status, r.body, { 'idempotent-replayed': 'true' });
    }
    const r = route(method, url.pathname, params);
    if (replayKey && method === 'POST') replays.set(replayKey, r);
    send(r.status, r.body);
  };
  const server = http.createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const subscriptionFor = (customer: string, priceId: string, status: string): Obj => {
    const id = newId('sub');
    const start = nowS();
    const sub = {
      id, object: 'subscription', customer, status, created: start, start_date: start, livemode: false,
      cancel_at_period_end: false, canceled_at: null, ended_at: null, metadata: {},
      items: {
        object: 'list', has_more: false, url: `/v1/subscription_items?subscription=${id}`,
        data: [{ id: newId('si'), object: 'subscription_item', price: priceOf(priceId), quantity: 1, subscription: id, current_period_start: start, current_period_end: start + 30 * 86400 }],
      },
    };
    subscriptions.set(id, sub);
    return sub;
  };

  const fake: FakeStripe = {
    url: base,
    secretKey,
    webhookSecret,
    requests,
    customers,
    sessions,
    subscriptions,
    products,
    prices,
    count: (prefix) => requests.filter((r) => `${r.method} ${r.path}`.startsWith(prefix)).length,
    completeCheckout(sessionId, o = {}) {
      const s = sessions.get(sessionId);
      if (!s) throw new Error(`no checkout session ${sessionId}`);
      let customer = s.customer ? customers.get(s.customer)! : undefined;
      if (!customer) {
        customer = { id: newId('cus'), object: 'customer', email: s.customer_email, name: null, metadata: {}, created: nowS(), livemode: false };
        customers.set(customer.id, customer);
      }
      const sub = subscriptionFor(customer.id, s._price, o.status ?? 'active');
      Object.assign(s, {
        status: 'complete', payment_status: 'paid', customer: customer.id, subscription: sub.id,
        customer_details: { email: customer.email ?? s.customer_email, name: customer.name },
        success_url: String(s.success_url).replace('{CHECKOUT_SESSION_ID}', s.id),
      });
      return { session: s, subscription: sub, customer };
    },
    updateSubscription(id, patch) {
      const sub = subscriptions.get(id);
      if (!sub) throw new Error(`no subscription ${id}`);
      if (patch.status) sub.status = patch.status;
      if (patch.price) sub.items.data[0].price = priceOf(patch.price);
      return sub;
    },
    cancelSubscription(id) {
      const sub = fake.updateSubscription(id, { status: 'canceled' });
      sub.canceled_at = nowS();
      sub.ended_at = nowS();
      return sub;
    },
    event(type, object, o = {}) {
      return {
        id: o.id ?? newId('evt'), object: 'event', api_version: '2025-10-29.clover', created: o.created ?? nowS(),
        data: { object: structuredClone(object) }, livemode: false, pending_webhooks: 1,
        request: { id: null, idempotency_key: null }, type,
      };
    },
    async deliver(baseUrl, event, o = {}) {
      const payload = JSON.stringify(event, null, 2);
      const header = o.signature === undefined ? signer.webhooks.generateTestHeaderString({ payload, secret: o.secret ?? webhookSecret }) : o.signature;
      const res = await fetch(`${baseUrl}/api/billing/webhook`, {
        method: 'POST',
        headers: { 'content-type': 'application/json; charset=utf-8', 'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)', ...(header === null ? {} : { 'stripe-signature': header }) },
        body: payload,
      });
      const text = await res.text();
      let body: any;
      try {
        body = JSON.parse(text);
      } catch {
        body = { raw: text };
      }
      return { status: res.status, body };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return fake;
}
