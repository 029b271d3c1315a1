// Operator actions on plan prices: store a Stripe price for a plan, or create the missing
// Products and monthly Prices in Stripe (lookup key upfleet_<plan>, idempotency keys), so running
// it twice creates nothing new.
import type Stripe from 'stripe';
import { MESSAGES, type Package, type PriceSyncRow } from '@upfleet/proto/rest';
import type { SetPackagePriceBody } from '@upfleet/proto/schemas';
import { AppError, badRequest, notFound } from '../errors';
import type { CatalogRepo } from '../store/catalog-repo';

const ZERO_DECIMAL = new Set(['JPY']);
export const lookupKeyOf = (p: Package) => `upfleet_${p.package_name.toLowerCase().replace(/[^a-z0-9]+/g, '_')}`;
const minorUnits = (p: Package) => Math.round(ZERO_DECIMAL.has(p.currency) ? p.price : p.price * 100);

export function createPriceService(deps: { stripe: Stripe | null; catalog: CatalogRepo; onChange?: () => void }) {
  const { catalog } = deps;
  return {
    async setPrice(input: SetPackagePriceBody): Promise<Package> {
      const pkg = catalog.packageByName(input.package);
      if (!pkg) throw notFound(`No package named ${input.package}; see 'upfleet package list'`);
      if (pkg.price <= 0) throw badRequest(`${pkg.package_name} is free: it needs no Stripe price`);
      const taken = catalog.packageByStripePrice(input.stripe_price_id);
      if (taken && taken.package_id !== pkg.package_id) throw badRequest(`${input.stripe_price_id} is already the price of ${taken.package_name}`);
      await catalog.setStripePrice(pkg.package_id, input.stripe_price_id);
      return catalog.packageById(pkg.package_id)!;
    },

    async syncStripe(): Promise<PriceSyncRow[]> {
      const stripe = deps.stripe;
      if (!stripe) throw new AppError('unavailable', MESSAGES.billingNotConfigured);
      const rows: PriceSyncRow[] = [];
      for (const pkg of catalog.listPackages()) {
        if (pkg.price <= 0) {
          rows.push({ package_name: pkg.package_name, action: 'skipped', stripe_price_id: '', lookup_key: null, note: 'free plan' });
          continue;
        }
        if (pkg.stripe_price_id) {
          rows.push({ package_name: pkg.package_name, action: 'kept', stripe_price_id: pkg.stripe_price_id, lookup_key: null, note: 'already has a price' });
          continue;
        }
        const lookupKey = lookupKeyOf(pkg);
        const amount = minorUnits(pkg);
        const currency = pkg.currency.toLowerCase();
        try {
          // A price made by an earlier run (even past the idempotency keys' 24 h) is reused by its lookup key.
          const existing = (await stripe.prices.list({ lookup_keys: [lookupKey], active: true, limit: 1 })).data[0];
          if (existing && existing.unit_amount === amount && existing.currency === currency && existing.recurring?.interval === 'month') {
            await catalog.setStripePrice(pkg.package_id, existing.id);
            rows.push({ package_name: pkg.package_name, action: 'linked', stripe_price_id: existing.id, lookup_key: lookupKey, note: 'found by lookup key' });
            continue;
          }
          const product = await stripe.products.create(
            { name: `Upfleet ${pkg.package_name}`, description: pkg.description || undefined, metadata: { package_id: String(pkg.package_id) } },
            { idempotencyKey: `upfleet-product-${lookupKey}` },
          );
          const price = await stripe.prices.create(
            {
              product: product.id, currency, unit_amount: amount, recurring: { interval: 'month' },
              lookup_key: lookupKey, transfer_lookup_key: Boolean(existing), metadata: { package_id: String(pkg.package_id) },
            },
            { idempotencyKey: `upfleet-price-${lookupKey}-${amount}-${currency}` },
          );
          await catalog.setStripePrice(pkg.package_id, price.id);
          rows.push({ package_name: pkg.package_name, action: 'created', stripe_price_id: price.id, lookup_key: lookupKey, note: `${product.id}, ${amount} ${currency}/month` });
        } catch (err) {
          throw new AppError('unavailable', `Stripe refused the price for ${pkg.package_name}: ${(err as Error).message}`);
        }
      }
      return rows;
    },
  };
}
export type PriceService = ReturnType<typeof createPriceService>;
