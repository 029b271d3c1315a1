// The Stripe SDK client: Stripe's own API, or STRIPE_API_BASE (a local server in tests) through the
// SDK's host/port/protocol options.
import Stripe from 'stripe';

export function createStripeClient(secretKey: string, apiBase: string | null): Stripe {
  const options: Stripe.StripeConfig = { maxNetworkRetries: 2, timeout: 20_000, appInfo: { name: 'upfleet' } };
  if (apiBase) {
    const u = new URL(apiBase);
    options.host = u.hostname;
    options.protocol = u.protocol === 'http:' ? 'http' : 'https';
    options.port = u.port ? Number(u.port) : u.protocol === 'http:' ? 80 : 443;
  }
  return new Stripe(secretKey, options);
}
