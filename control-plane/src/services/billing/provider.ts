// What every billing part shares: the dependencies, the Stripe client (or a clear 503 when billing
// is off), one way to turn a failed Stripe call into an AppError, and reading a subscription fresh
// from Stripe. Stripe is the source of truth; the parts never trust an event's copy when a read
// is possible.
import type { Registry } from 'prom-client';
import Stripe from 'stripe';
import { MESSAGES } from '@upfleet/proto/rest';
import { AppError } from '../../errors';
import type { Logger } from '../../logger';
import type { BillingRepo } from '../../store/billing-repo';
import type { CatalogRepo } from '../../store/catalog-repo';
import type { UsersRepo } from '../../store/users-repo';
import type { PlanChanger } from '../plan-change';

export interface BillingDeps {
  stripe: Stripe | null;
  webhookSecret: string | null;
  billing: BillingRepo;
  users: UsersRepo;
  catalog: CatalogRepo;
  plans: PlanChanger;
  /** The address users open ({PUBLIC_URL}, else the listening URL), for return URLs. */
  publicUrl: () => string;
  logger: Logger;
  now?: () => number;
  /** The service registers its own metrics here (webhook deliveries by outcome). */
  metrics?: Registry;
}

export interface BillingProvider {
  deps: BillingDeps;
  now: () => number;
  log: Logger;
  requireStripe(): Stripe;
  /** A failed Stripe call becomes one clear 503 (on the webhook, the 5xx makes Stripe retry). */
  providerError(what: string, err: unknown): AppError;
  call<T>(what: string, fn: () => Promise<T>): Promise<T>;
  isMissing(err: unknown): boolean;
  /** The subscription as Stripe says it is now (the fallback when Stripe no longer has it). */
  fetchSubscription(id: string, fallback?: Stripe.Subscription): Promise<Stripe.Subscription>;
  /** The public URL without a trailing slash, for return URLs. */
  base(this: void): string;
}

export const idOf = (x: string | { id: string } | null | undefined): string | null => (x == null ? null : typeof x === 'string' ? x : x.id);

export function createBillingProvider(deps: BillingDeps): BillingProvider {
  const log = deps.logger.child({ component: 'billing' });

  function requireStripe(): Stripe {
    if (!deps.stripe) throw new AppError('unavailable', MESSAGES.billingNotConfigured);
    return deps.stripe;
  }

  function providerError(what: string, err: unknown): AppError {
    if (err instanceof AppError) return err;
    log.warn({ err: (err as Error).message, what }, 'stripe call failed');
    return new AppError('unavailable', `The payment provider could not ${what}; please try again`);
  }

  const isMissing = (err: unknown) => err instanceof Stripe.errors.StripeError && err.code === 'resource_missing';

  return {
    deps,
    now: deps.now ?? Date.now,
    log,
    requireStripe,
    providerError,
    isMissing,
    async call<T>(what: string, fn: () => Promise<T>): Promise<T> {
      try {
        return await fn();
      } catch (err) {
        throw providerError(what, err);
      }
    },
    async fetchSubscription(id: string, fallback?: Stripe.Subscription): Promise<Stripe.Subscription> {
      const stripe = requireStripe();
      try {
        return await stripe.subscriptions.retrieve(id);
      } catch (err) {
        if (fallback && isMissing(err)) return fallback;
        throw providerError('read the subscription', err);
      }
    },
    base: () => deps.publicUrl().replace(/\/+$/, ''),
  };
}
