// Self-hosting without SaaS tiers: DEFAULT_PACKAGE is the plan new accounts and workspaces start
// on, the pricing page learns whether plans can be bought here, a members refusal says how to get
// more members, and the operator moves a workspace's plan by its id.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MESSAGES } from '@upfleet/proto/rest';
import { startHarness, type Harness } from '../testing/harness';
import { startFakeStripe, type FakeStripe } from '../testing/fake-stripe';

describe('DEFAULT_PACKAGE', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ DEFAULT_PACKAGE: 'starter' });
  });
  afterAll(async () => h?.close());

  it('puts a new account and a new workspace on the named package (any letter case)', async () => {
    const s = await h.signup();
    expect((await h.call('GET', '/api/users/dashboard', undefined, s.token)).body.data).toMatchObject({ package_name: 'Starter' });
    const ws = await h.call('POST', '/api/workspaces', { name: 'Ops' }, s.token);
    expect(ws.status).toBe(201);
    expect(ws.body.data).toMatchObject({ package_name: 'Starter' });
    // Starter has three members: an invitation goes out at once
    const inv = await h.call('POST', `/api/workspaces/${ws.body.data.id}/invitations`, { email: 'dana@example.com', role: 'editor' }, s.token);
    expect(inv.status).toBe(201);
  });

  it('tells the web app that billing is off (the pricing page offers no checkout) and which plan a new account starts on', async () => {
    expect((await h.call('GET', '/api/public/billing')).body).toEqual({ success: true, data: { enabled: false, default_package: 'Starter' } });
  });
});

describe('DEFAULT_PACKAGE naming no package', () => {
  it('stops the start with one line that names the packages there are', async () => {
    await expect(startHarness({ DEFAULT_PACKAGE: 'Gold' })).rejects.toThrow(
      "DEFAULT_PACKAGE names no package (got 'Gold'); packages: Free, Starter, Pro, Business",
    );
  });
});

describe('without DEFAULT_PACKAGE and without billing', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h?.close());

  it('starts on Free; the refusal to invite says to ask the operator, who moves the workspace by its id', async () => {
    const s = await h.signup();
    expect((await h.call('GET', '/api/users/dashboard', undefined, s.token)).body.data.package_name).toBe('Free');
    const ws = (await h.call('POST', '/api/workspaces', { name: 'Platform' }, s.token)).body.data as { id: number; package_name: string };
    expect(ws.package_name).toBe('Free');
    const refused = await h.call('POST', `/api/workspaces/${ws.id}/invitations`, { email: 'eve@example.com', role: 'viewer' }, s.token);
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe(
      'You have reached the limit of 1 members for your Free plan. To invite more members, ask the operator of this server to move this workspace to a plan with more members.',
    );

    const moved = await h.call('POST', `/api/admin/workspaces/${ws.id}/set-package`, { package: 'Pro' }, h.cp.adminToken);
    expect(moved.status).toBe(200);
    expect(moved.body.data).toEqual({ id: ws.id, name: 'Platform', package_name: 'Pro' });
    expect((await h.call('GET', `/api/workspaces/${ws.id}`, undefined, s.token)).body.data.package_name).toBe('Pro');
    const invited = await h.call('POST', `/api/workspaces/${ws.id}/invitations`, { email: 'eve@example.com', role: 'viewer' }, s.token);
    expect(invited.status).toBe(201);
  });

  it('refuses a bad set-package clearly and changes nothing', async () => {
    const s = await h.signup();
    const ws = (await h.call('POST', '/api/workspaces', { name: 'Quiet' }, s.token)).body.data.id as number;
    const admin = (p: string, body: unknown) => h.call('POST', p, body, h.cp.adminToken);
    expect(await admin('/api/admin/workspaces/999999/set-package', { package: 'Pro' })).toMatchObject({ status: 404, body: { success: false, error: "No workspace with id 999999; see 'upfleet workspace list'" } });
    expect(await admin(`/api/admin/workspaces/${ws}/set-package`, { package: 'Gold' })).toMatchObject({ status: 404, body: { success: false, error: "No package named Gold; see 'upfleet package list'" } });
    expect(await admin(`/api/admin/workspaces/${ws}/set-package`, {})).toMatchObject({ status: 400, body: { success: false, error: 'package is required' } });
    expect(await admin('/api/admin/workspaces/abc/set-package', { package: 'Pro' })).toMatchObject({ status: 404 });
    expect((await h.call('POST', `/api/admin/workspaces/${ws}/set-package`, { package: 'Pro' }, s.token)).status).toBe(401);
    expect((await h.call('GET', `/api/workspaces/${ws}`, undefined, s.token)).body.data.package_name).toBe('Free');
  });
});

describe('with billing on', () => {
  let h: Harness;
  let stripe: FakeStripe;
  beforeAll(async () => {
    stripe = await startFakeStripe();
    h = await startHarness({ STRIPE_SECRET_KEY: stripe.secretKey, STRIPE_WEBHOOK_SECRET: stripe.webhookSecret, STRIPE_API_BASE: stripe.url });
  });
  afterAll(async () => {
    await h?.close();
    await stripe?.close();
  });

  it('says so to the web app, and the refusal to invite points at upgrading the workspace', async () => {
    expect((await h.call('GET', '/api/public/billing')).body.data).toEqual({ enabled: true, default_package: 'Free' });
    const s = await h.signup();
    const ws = (await h.call('POST', '/api/workspaces', { name: 'Paid team' }, s.token)).body.data.id as number;
    const refused = await h.call('POST', `/api/workspaces/${ws}/invitations`, { email: 'eve@example.com', role: 'viewer' }, s.token);
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe(MESSAGES.tooManyMembers(1, 'Free', true));
    expect(refused.body.error).toContain('upgrades this workspace on the Pricing page');
  });
});
