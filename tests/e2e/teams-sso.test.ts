// In Debian's chromium against the real control plane: OpenID Connect sign-in (code flow
// with PKCE) against a real OIDC provider running locally (the oidc-provider package, its own
// login and consent pages), the SSO user joining OIDC_DEFAULT_WORKSPACE_ID with OIDC_DEFAULT_ROLE,
// the navbar's workspace switcher (remembered per browser), role-based hiding and the Members page.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startOidcProvider, type LocalOidcProvider } from '../../control-plane/src/testing/oidc-provider';
import { startStack, type Stack } from '../helpers/start-stack';
import { ensureWebBuild, hasChromium, launchBrowser } from './screenshots';

const browserOk = hasChromium();
const d = browserOk ? describe : describe.skip;
const title = browserOk ? 'teams and single sign-on in chromium' : 'teams and single sign-on in chromium (skipped: /usr/bin/chromium is missing)';

d(title, () => {
  let stack: Stack;
  let op: LocalOidcProvider;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let page: Page;
  let ownerToken = '';
  let acme = 0;
  const password = 'correct-horse-1';
  const api = async (method: string, p: string, body?: unknown, token?: string, headers: Record<string, string> = {}) => {
    const res = await fetch(`${stack.baseUrl}${p}`, {
      method, headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as any };
  };

  beforeAll(async () => {
    ensureWebBuild();
    // The provider's address is needed before the control plane starts, its client's redirect URI after.
    op = await startOidcProvider({ alice: { email: 'alice@example.com', email_verified: true } });
    const issuer = op.issuer;
    stack = await startStack({
      env: {
        OIDC_ISSUER: issuer, OIDC_CLIENT_ID: 'upfleet', OIDC_CLIENT_SECRET: 'a-long-client-secret-for-tests',
        OIDC_BUTTON_LABEL: 'Sign in with Acme SSO', OIDC_DEFAULT_WORKSPACE_ID: '2', OIDC_DEFAULT_ROLE: 'viewer',
      },
    });
    op.register({ clientId: 'upfleet', clientSecret: 'a-long-client-secret-for-tests', redirectUri: `${stack.baseUrl}/api/auth/oidc/callback` });
    // The owner of workspace 2 ("Acme", the first one made on this fresh server: user 1 is the owner).
    ownerToken = (await api('POST', '/api/auth/signup', { username: 'owner', email: 'owner@example.com', password })).body.data.accessToken;
    acme = (await api('POST', '/api/workspaces', { name: 'Acme' }, ownerToken)).body.data.id;
    expect(acme).toBe(2);
    await api('POST', '/api/workspaces/2/invitations', { email: 'x@example.com', role: 'viewer' }, ownerToken); // Free: refused, one member
    browser = await launchBrowser();
    page = await browser.context.newPage();
    page.setDefaultTimeout(20_000);
  });
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
    await op?.close();
  });

  it('signs in through the local OIDC provider: the account is made and joins the default workspace as viewer', async () => {
    await page.goto(`${stack.baseUrl}/login`);
    await page.getByRole('link', { name: 'Sign in with Acme SSO' }).click();
    // the provider's own pages
    await page.locator('input[name="login"]').fill('alice');
    await page.locator('input[name="password"]').fill('anything');
    await page.getByRole('button', { name: 'Sign-in' }).click();
    const consent = page.getByRole('button', { name: 'Continue' });
    await Promise.race([consent.click().catch(() => undefined), page.waitForURL(/\/dashboard$/)]);
    await page.waitForURL(/\/dashboard$/);
    await page.getByRole('heading', { name: 'Welcome back, alice!' }).waitFor();
    expect(page.url()).not.toContain('access_token'); // the tokens left the address bar
    const switcher = page.getByRole('combobox', { name: 'Workspace' });
    await expect(switcher.locator('option').allTextContents()).resolves.toEqual(['Personal (you) · owner', 'Acme · viewer']);
    const users = (await api('GET', '/api/admin/users', undefined, stack.adminToken)).body.data;
    expect(users.find((u: { email: string }) => u.email === 'alice@example.com')).toMatchObject({ username: 'alice', workspaces: expect.stringContaining('Acme #2 (viewer)') });
  });

  it('switches to the shared workspace (remembered after a reload), hides what a viewer cannot do, and shows the Members page', async () => {
    // the owner adds an endpoint to Acme; alice's personal workspace stays empty
    await api('POST', '/api/users/endpoints', { name: 'Acme site', url: 'https://example.com/acme', regions: ['EU-Germany'], response_code: true }, ownerToken, { 'x-workspace-id': String(acme) });
    await page.getByText('No endpoints yet').waitFor();
    await expect(page.getByRole('button', { name: 'Add Endpoint' }).count()).resolves.toBeGreaterThan(0);
    await page.getByRole('combobox', { name: 'Workspace' }).selectOption({ label: 'Acme · viewer' });
    await page.getByTestId('endpoint-row').filter({ hasText: 'Acme site' }).waitFor();
    await expect(page.getByRole('button', { name: 'Add Endpoint' }).count()).resolves.toBe(0);
    // a viewer's row offers its graphs, not edit, thresholds, pause or delete
    const acmeRow = page.getByTestId('endpoint-row').filter({ hasText: 'Acme site' });
    await expect(acmeRow.getByRole('button', { name: 'View graphs for Acme site' }).count()).resolves.toBe(1);
    for (const name of ['Edit Acme site', 'Alert thresholds for Acme site', 'Disable monitoring for Acme site', 'Delete Acme site']) {
      await expect(acmeRow.getByRole('button', { name }).count()).resolves.toBe(0);
    }
    await page.reload();
    await page.getByTestId('endpoint-row').filter({ hasText: 'Acme site' }).waitFor();
    await expect(page.getByRole('combobox', { name: 'Workspace' }).inputValue()).resolves.toBe(String(acme));
    expect(await page.evaluate<string | null>("localStorage.getItem('upfleetWorkspace')")).toBe(String(acme));
    // a viewer: no Audit Log link, Members without the invite form
    await expect(page.getByRole('link', { name: 'Audit Log' }).count()).resolves.toBe(0);
    await page.getByRole('link', { name: 'Members' }).first().click();
    await page.getByRole('heading', { name: 'Members of Acme' }).waitFor();
    // the rows load after the heading: poll (read once, they were sometimes not there yet under load)
    await expect.poll(() => page.getByTestId('member-row').allTextContents()).toEqual([expect.stringContaining('owner@example.com'), expect.stringContaining('alice@example.com')]);
    await expect(page.getByRole('button', { name: 'Send invitation' }).count()).resolves.toBe(0);
    // status pages are an admin's: a viewer is not offered a new one, nor edit or delete of the owner's
    const ws = { 'x-workspace-id': String(acme) };
    expect((await api('POST', '/api/users/status-pages', { slug: 'acme-status', title: 'Acme status', components: [] }, ownerToken, ws)).status).toBe(201);
    expect((await api('POST', '/api/users/alert-methods', { platform: 'webhook', platform_config: { webhook_url: 'https://hooks.example.com/acme' } }, ownerToken, ws)).status).toBe(201);
    await page.getByRole('link', { name: 'Status pages' }).first().click();
    await page.waitForURL(/\/status-pages$/);
    await page.getByRole('heading', { name: 'Status pages', level: 1 }).waitFor();
    await page.getByText('Acme status').first().waitFor();
    await expect(page.getByRole('button', { name: 'New status page' }).count()).resolves.toBe(0);
    await expect(page.getByRole('button', { name: 'Edit', exact: true }).count()).resolves.toBe(0);
    await expect(page.getByRole('button', { name: 'Delete', exact: true }).count()).resolves.toBe(0);
    // alert methods are an admin's too: the viewer sees the webhook, with no switch, edit, delete or test send
    await page.getByRole('link', { name: 'Alert Settings' }).first().click();
    await page.getByTestId('alert-method-row').first().waitFor();
    for (const name of ['Edit Webhook alert method', 'Delete Webhook alert method', 'Send test']) {
      await expect(page.getByRole('button', { name }).count()).resolves.toBe(0);
    }
    await expect(page.getByRole('checkbox', { name: /Webhook alerts/ }).count()).resolves.toBe(0);
  });

  it('the owner invites from the Members page, changes a role and reads the audit log', async () => {
    // the owner in a browser of their own (its own localStorage)
    const owner = await launchBrowser();
    const ownerPage = await owner.context.newPage();
    ownerPage.setDefaultTimeout(20_000);
    const login = (await api('POST', '/api/auth/login', { email: 'owner@example.com', password })).body.data;
    await ownerPage.goto(`${stack.baseUrl}/`);
    await ownerPage.evaluate(`localStorage.setItem('accessToken', ${JSON.stringify(login.accessToken)});
      localStorage.setItem('refreshToken', ${JSON.stringify(login.refreshToken)});
      localStorage.setItem('upfleetWorkspace', '${acme}');`);
    // Acme moves to Starter (3 members) so an invitation fits
    const ws = (await api('GET', '/api/admin/workspaces', undefined, stack.adminToken)).body.data.find((w: { id: number }) => w.id === acme);
    await api('POST', '/api/admin/users/set-package', { email: ws.account_email, package: 'Starter' }, stack.adminToken);
    await ownerPage.goto(`${stack.baseUrl}/members`);
    await ownerPage.getByRole('heading', { name: 'Members of Acme' }).waitFor();
    await ownerPage.getByLabel('Email').fill('bob@example.com');
    await ownerPage.getByLabel('Role', { exact: true }).selectOption('editor');
    await ownerPage.getByRole('button', { name: 'Send invitation' }).click();
    await ownerPage.getByText('Invitation sent to bob@example.com').waitFor();
    await ownerPage.getByRole('list', { name: 'Pending invitations' }).getByText(/bob@example\.com · editor/).waitFor();
    await ownerPage.getByRole('combobox', { name: 'Role of alice' }).selectOption('editor');
    await ownerPage.getByText('alice is now editor').waitFor();
    await ownerPage.getByRole('link', { name: 'Audit Log' }).first().click();
    await ownerPage.getByRole('heading', { name: 'Audit log of Acme' }).waitFor();
    await ownerPage.getByTestId('audit-row').filter({ hasText: 'member.role_change' }).waitFor();
    await ownerPage.getByTestId('audit-row').filter({ hasText: 'invitation.create' }).waitFor();
    await ownerPage.getByRole('combobox', { name: 'Action' }).selectOption('endpoint');
    await expect.poll(() => ownerPage.getByTestId('audit-row').allTextContents()).toEqual([expect.stringContaining('endpoint.create')]);
    await ownerPage.getByRole('combobox', { name: 'Action' }).selectOption('member');
    await expect.poll(() => ownerPage.getByTestId('audit-row').allTextContents()).toEqual([
      expect.stringContaining('member.role_change'), expect.stringMatching(/alicemember\.join.*via single sign-on, role=viewer/),
    ]);
    await ownerPage.goto(`${stack.baseUrl}/profile`);
    await expect(ownerPage.getByTestId('workspace-plan').textContent()).resolves.toBe('Workspace Acme is on the Starter plan.');
    // the owner renames the workspace on the Members page: the heading and the switcher follow without a reload
    await ownerPage.goto(`${stack.baseUrl}/members`);
    await ownerPage.getByRole('heading', { name: 'Members of Acme' }).waitFor();
    await ownerPage.getByLabel('Workspace name').fill('Acme Inc');
    await ownerPage.getByRole('button', { name: 'Rename' }).click();
    await ownerPage.getByText('The workspace is now called Acme Inc').waitFor();
    await ownerPage.getByRole('heading', { name: 'Members of Acme Inc' }).waitFor();
    await expect.poll(() => ownerPage.getByRole('combobox', { name: 'Workspace' }).locator('option').allTextContents()).toContain('Acme Inc · owner');
    expect((await api('GET', '/api/workspaces', undefined, login.accessToken)).body.data.find((w: { id: number }) => w.id === acme).name).toBe('Acme Inc');
    await owner.close();
    // alice, now an editor, is offered Add Endpoint at once
    await page.goto(`${stack.baseUrl}/dashboard`);
    await page.getByTestId('endpoint-row').filter({ hasText: 'Acme site' }).waitFor();
    await page.getByRole('button', { name: 'Add Endpoint' }).first().waitFor();
  });
});
