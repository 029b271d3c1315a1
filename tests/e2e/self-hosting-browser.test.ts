// Self-hosting and team onboarding in Debian's chromium against the real control plane (no
// billing, DEFAULT_PACKAGE unset): the pricing page says the operator sets plans, an invitation
// link opened while signed out goes through sign-up and back to its join page, and "New
// workspace" in the user menu creates a workspace and switches to it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startStack, type Stack } from '../helpers/start-stack';
import { ensureWebBuild, hasChromium, launchBrowser } from './screenshots';

const browserOk = hasChromium();
const d = browserOk ? describe : describe.skip;
const title = browserOk ? 'self-hosting and onboarding in chromium' : 'self-hosting and onboarding in chromium (skipped: /usr/bin/chromium is missing)';

d(title, () => {
  let stack: Stack;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let page: Page;
  const password = 'correct-horse-1';
  const api = async (method: string, p: string, body?: unknown, token?: string) => {
    const res = await fetch(`${stack.baseUrl}${p}`, {
      method, headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as any };
  };

  beforeAll(async () => {
    ensureWebBuild();
    stack = await startStack();
    browser = await launchBrowser();
    page = await browser.context.newPage();
    page.setDefaultTimeout(20_000);
  });
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  it('without billing the pricing page says the operator sets plans and offers no checkout that does nothing', async () => {
    await page.goto(`${stack.baseUrl}/pricing`);
    await page.getByText('Plans on this server are set by its operator.').waitFor();
    await page.getByRole('article', { name: 'Starter plan' }).getByText('Set by the operator of this server').waitFor();
    await expect(page.getByRole('button', { name: /^Choose / }).count()).resolves.toBe(0);
  });

  it('an invitation opened while signed out names the workspace, inviter and role, and sign-up lands back on it', async () => {
    const olivia = (await api('POST', '/api/auth/signup', { username: 'olivia', email: 'olivia@example.com', password })).body.data.accessToken as string;
    const team = (await api('POST', '/api/workspaces', { name: 'Ops team' }, olivia)).body.data.id as number;
    // Free allows one member: the refusal says how to get more
    const refused = await api('POST', `/api/workspaces/${team}/invitations`, { email: 'bob@example.com', role: 'editor' }, olivia);
    expect(refused.body.error).toContain('ask the operator of this server');
    expect((await api('POST', `/api/admin/workspaces/${team}/set-package`, { package: 'Starter' }, stack.adminToken)).status).toBe(200);
    const link = (await api('POST', `/api/workspaces/${team}/invitations`, { email: 'bob@example.com', role: 'editor' }, olivia)).body.data.link as string;
    const joinPath = new URL(link).pathname;

    await page.goto(`${stack.baseUrl}${joinPath}`);
    await page.getByRole('heading', { name: 'Join Ops team' }).waitFor();
    await expect(page.getByTestId('invitation-summary').textContent()).resolves.toBe('olivia invited bob@example.com to the workspace Ops team as editor.');
    await page.getByRole('link', { name: 'Sign in to accept' }).click();
    await page.waitForURL(/\/login\?next=/);
    await page.getByRole('link', { name: 'Sign up' }).click();
    await page.waitForURL(/\/signup\?next=/);
    await page.getByLabel('Username').fill('bob');
    await page.getByLabel('Email').fill('bob@example.com');
    await page.getByLabel('Password', { exact: true }).fill(password);
    await page.getByLabel('Confirm Password').fill(password);
    await page.getByRole('button', { name: /create account/i }).click();
    await page.waitForURL((u) => u.pathname === joinPath);
    await page.getByRole('button', { name: 'Accept invitation' }).click();
    await page.waitForURL(/\/dashboard$/);
    const switcher = page.getByRole('combobox', { name: 'Workspace' });
    await expect(switcher.locator('option:checked').textContent()).resolves.toBe('Ops team · editor');
  });

  it('"New workspace" in the user menu creates a workspace on the default plan and switches to it', async () => {
    await page.getByRole('button', { name: /bob/ }).click();
    await page.getByRole('menuitem', { name: 'New workspace' }).click();
    await page.getByLabel('Name').fill('Side project');
    await page.getByRole('button', { name: 'Create workspace' }).click();
    const switcher = page.getByRole('combobox', { name: 'Workspace' });
    await expect.poll(() => switcher.locator('option:checked').textContent(), { timeout: 20_000 }).toBe('Side project · owner');
    const login = (await api('POST', '/api/auth/login', { email: 'bob@example.com', password })).body.data.accessToken as string;
    const mine = (await api('GET', '/api/workspaces', undefined, login)).body.data as Array<{ name: string; package_name: string }>;
    expect(mine.find((w) => w.name === 'Side project')!.package_name).toBe('Free');
  });
});
