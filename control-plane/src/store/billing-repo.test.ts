// The billing repo on both databases: customers owned once, subscriptions upserted and ranked,
// webhook events and checkout claims recorded once (also when two arrive together), plan-change
// notices dismissed once, and a transaction that rolls back as a whole.
import { describe, expect, it } from 'vitest';
import { freshSql, insertTestUser, SQL_DIALECTS } from '../testing/sql';
import { createBillingRepo, type SubscriptionRow } from './billing-repo';

const sub = (over: Partial<SubscriptionRow>): SubscriptionRow => ({
  stripe_subscription_id: 'sub_1', user_id: 0, stripe_customer_id: 'cus_1', stripe_price_id: 'price_pro', status: 'active',
  current_period_start: 1000, current_period_end: 2000, created: 100, past_due_since: null, updated_at: 100, ...over,
});

describe.each(SQL_DIALECTS)('billing repo on $title', (d) => {
  const sql = freshSql(d);

  it('links a customer to one user only and answers the newest customer of a user', async () => {
    const billing = createBillingRepo(sql().db);
    const ann = await insertTestUser(sql());
    const bob = await insertTestUser(sql());
    expect(await billing.linkCustomer(ann, 'cus_a', 1000)).toBe(true);
    expect(await billing.linkCustomer(ann, 'cus_a', 1500)).toBe(true);
    expect(await billing.linkCustomer(bob, 'cus_a', 2000)).toBe(false);
    expect(await billing.userOfCustomer('cus_a')).toBe(ann);
    expect(await billing.linkCustomer(ann, 'cus_b', 3000, true)).toBe(true);
    expect(await billing.customerOf(ann)).toBe('cus_b');
    expect(await billing.customerOf(bob)).toBeUndefined();
    expect(await billing.userOfCustomer('cus_none')).toBeUndefined();
  });

  it('upserts subscriptions and ranks the user\'s own before ones claimed at login, newest first', async () => {
    const billing = createBillingRepo(sql().db);
    const ann = await insertTestUser(sql());
    await billing.linkCustomer(ann, 'cus_own', 1000);
    await billing.linkCustomer(ann, 'cus_login', 1000, true);
    await billing.upsertSubscription(sub({ stripe_subscription_id: 'sub_old', user_id: ann, stripe_customer_id: 'cus_own', created: 10 }));
    await billing.upsertSubscription(sub({ stripe_subscription_id: 'sub_login', user_id: ann, stripe_customer_id: 'cus_login', created: 30 }));
    await billing.upsertSubscription(sub({ stripe_subscription_id: 'sub_new', user_id: ann, stripe_customer_id: 'cus_own', created: 20 }));
    expect((await billing.subscriptionsOf(ann)).map((s) => s.stripe_subscription_id)).toEqual(['sub_new', 'sub_old', 'sub_login']);
    await billing.upsertSubscription(sub({ stripe_subscription_id: 'sub_new', user_id: ann, stripe_customer_id: 'cus_own', created: 20, status: 'past_due', past_due_since: 500, updated_at: 600 }));
    expect(await billing.subscription('sub_new')).toEqual(sub({ stripe_subscription_id: 'sub_new', user_id: ann, stripe_customer_id: 'cus_own', created: 20, status: 'past_due', past_due_since: 500, updated_at: 600 }));
    expect(await billing.pastDueUsers(499)).toEqual([]);
    expect(await billing.pastDueUsers(500)).toEqual([ann]);
  });

  it('records a webhook event and claims a checkout once, also when two arrive at the same moment', async () => {
    const billing = createBillingRepo(sql().db);
    const ann = await insertTestUser(sql());
    const bob = await insertTestUser(sql());
    expect(await billing.eventSeen('evt_1')).toBe(false);
    const events = await Promise.all([billing.recordEvent('evt_1', 'invoice.paid', 1), billing.recordEvent('evt_1', 'invoice.paid', 2)]);
    expect(events.filter(Boolean)).toHaveLength(1);
    expect(await billing.eventSeen('evt_1')).toBe(true);
    const claims = await Promise.all([billing.claim('cs_1', ann, 1), billing.claim('cs_1', bob, 1)]);
    expect(claims.filter(Boolean)).toHaveLength(1);
    expect([ann, bob]).toContain(await billing.claimOf('cs_1'));
    expect(await billing.claimOf('cs_2')).toBeUndefined();
  });

  it('lists open plan changes newest first, dismisses one once and only for its user', async () => {
    const billing = createBillingRepo(sql().db);
    const ann = await insertTestUser(sql());
    const bob = await insertTestUser(sql());
    const change = { user_id: ann, from_package: 'Pro', to_package: 'Free', reason: 'r', message: 'm', details: '{}', created_at: 5 };
    const first = await billing.insertPlanChange(change);
    const second = await billing.insertPlanChange({ ...change, created_at: 6 });
    expect((await billing.openPlanChanges(ann)).map((c) => c.id)).toEqual([second, first]);
    expect(await billing.dismissPlanChange(bob, first, 10)).toBe(false);
    expect(await billing.dismissPlanChange(ann, first, 10)).toBe(true);
    expect(await billing.dismissPlanChange(ann, first, 11)).toBe(false);
    expect((await billing.openPlanChanges(ann)).map((c) => c.id)).toEqual([second]);
  });

  it('rolls a transaction back as a whole, and a nested one joins the outer', async () => {
    const billing = createBillingRepo(sql().db);
    const ann = await insertTestUser(sql());
    await expect(billing.transaction(async (trx) => {
      const tx = createBillingRepo(trx);
      await tx.claim('cs_x', ann, 1);
      await tx.transaction(async (inner) => { await createBillingRepo(inner).recordEvent('evt_x', 't', 1); });
      throw new Error('stop');
    })).rejects.toThrow('stop');
    expect(await billing.claimOf('cs_x')).toBeUndefined();
    expect(await billing.eventSeen('evt_x')).toBe(false);
  });
});
