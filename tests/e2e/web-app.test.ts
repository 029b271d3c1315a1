// The web app in Debian's chromium against the real control plane (embedded agent on), through
// the whole user journey of SPEC.md, plus a phone-sized run of the dashboard.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startStack, type Stack } from '../helpers/start-stack';
import { addEndpoint, ensureWebBuild, hasChromium, launchBrowser, openGraphsWithData, signUp, totp } from './screenshots';

const browserOk = hasChromium();
const d = browserOk ? describe : describe.skip;
const title = browserOk ? 'web app in chromium' : 'web app in chromium (skipped: /usr/bin/chromium is missing)';

d(title, () => {
  let stack: Stack;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let page: Page;
  const account = { username: 'webuser', email: 'webuser@example.com', password: 'correct-horse-1' };
  // Everything the browser refused under the Content-Security-Policy, over the whole run.
  const cspViolations: string[] = [];
  const watchCsp = (p: Page) => p.on('console', (m) => {
    if (/Content Security Policy/i.test(m.text())) cspViolations.push(m.text());
  });

  beforeAll(async () => {
    ensureWebBuild();
    stack = await startStack({ embeddedAgent: true });
    browser = await launchBrowser();
    page = await browser.context.newPage();
    page.setDefaultTimeout(20_000);
    watchCsp(page);
  });
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  it('serves deep links through client-side routing and redirects signed-out users to /login', async () => {
    await page.goto(`${stack.baseUrl}/alert-settings`);
    await page.waitForURL(`${stack.baseUrl}/login`);
    await expect(page.getByRole('heading', { name: 'Welcome back' }).isVisible()).resolves.toBe(true);
  });

  it('signs up, adds an endpoint, sees graphs, alerts, thresholds, profile, 2FA, signs in with a TOTP code and deletes the endpoint', async () => {
    const base = stack.baseUrl;
    await signUp(page, base, account);
    await page.getByRole('heading', { name: `Welcome, ${account.username}!` }).waitFor(); // a new account: "Welcome back" is for a return
    await page.getByText('No endpoints yet').waitFor();
    expect(JSON.parse((await page.evaluate<string>("localStorage.getItem('user')"))).username).toBe(account.username);

    // Add endpoint: the Free plan offers only EU - Germany.
    await page.getByRole('button', { name: 'Add Endpoint' }).first().click();
    const addDialog = page.getByRole('dialog', { name: 'Add Endpoint' });
    await addDialog.getByText('EU - Germany', { exact: true }).waitFor();
    await addDialog.getByRole('checkbox', { name: /Certificate Expiry/ }).click();
    await addDialog.getByText('The Certificate Expiry monitoring feature is not available in your current plan. Please upgrade to enable this feature.').waitFor();
    await addDialog.getByRole('button', { name: 'Cancel' }).click();
    await addEndpoint(page, 'Control plane', `${base}/`, 'The app itself');
    const row = page.getByTestId('endpoint-row').filter({ hasText: 'Control plane' });
    await row.getByText('EU - Germany').waitFor();
    await row.getByRole('img', { name: 'Monitoring enabled' }).waitFor();
    await row.getByText(/^\d+\.\d\d%$/).waitFor();

    // Graphs: the embedded agent checks the new endpoint at once.
    const hasData = await openGraphsWithData(page, 'Control plane');
    expect(hasData).toBe(true);
    const card = page.locator('.graph-card').first();
    await card.getByText('High').waitFor();
    await card.getByText(/% uptime/).waitFor();
    await page.getByRole('button', { name: '24 h' }).click();
    await expect(page.getByRole('button', { name: '24 h' }).getAttribute('aria-pressed')).resolves.toBe('true');
    await page.getByRole('dialog').getByRole('button', { name: 'Close' }).click();

    // Alert method.
    await page.getByRole('link', { name: 'Alert Settings' }).first().click();
    await page.getByText('No alert methods configured').waitFor();
    await page.getByRole('button', { name: 'Add Alert Method' }).click();
    const am = page.getByRole('dialog', { name: 'Add Alert Method' });
    await am.getByLabel('Platform').selectOption('webhook');
    await am.getByLabel('Webhook URL').fill('not a url');
    await am.getByRole('button', { name: 'Add Alert Method' }).click();
    await am.getByText('Please enter a valid URL').waitFor();
    await am.getByLabel('Webhook URL').fill('https://hooks.example.com/upfleet');
    await am.getByRole('button', { name: 'Add Alert Method' }).click();
    await page.getByTestId('alert-method-row').filter({ hasText: 'Webhook' }).waitFor();

    // Thresholds.
    await page.getByRole('link', { name: 'Dashboard' }).first().click();
    await page.getByRole('button', { name: 'Alert thresholds for Control plane' }).click();
    const th = page.getByRole('dialog', { name: 'Alert Thresholds for Control plane' });
    await th.getByLabel('Threshold value for Response Code').fill('500');
    await th.getByRole('checkbox', { name: /Enable Response Code/ }).check();
    await th.getByRole('button', { name: 'Save Thresholds' }).click();
    await th.waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Alert thresholds for Control plane' }).click();
    await expect(th.getByLabel('Threshold value for Response Code').inputValue()).resolves.toBe('500');
    await expect(th.getByRole('checkbox', { name: /Enable Response Code/ }).isChecked()).resolves.toBe(true);
    await th.getByRole('button', { name: 'Cancel' }).click();

    // Profile.
    await page.goto(`${base}/profile`);
    await page.getByText('No active subscription found').waitFor();
    await page.getByLabel('Timezone').selectOption('UTC+5:30');
    await page.getByRole('button', { name: 'Save Changes' }).click();
    await page.getByText('Profile updated successfully!').waitFor();

    // Two-factor setup with a code computed here.
    await page.getByRole('button', { name: 'Enable 2FA' }).click();
    const secret = (await page.getByTestId('totp-secret').textContent())!.trim();
    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByLabel(/6-digit code/).fill(totp(secret));
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.getByRole('dialog').getByText('Two-factor authentication has been enabled successfully!').waitFor();
    await page.getByRole('dialog').waitFor({ state: 'detached' }); // closes by itself after 2 s
    await page.getByText('Enabled', { exact: true }).waitFor();

    // Sign out, sign in with the code.
    await page.getByRole('button', { name: account.username }).click();
    await page.getByRole('menuitem', { name: 'Sign Out' }).click();
    await page.waitForURL(`${base}/login`);
    expect(await page.evaluate<string | null>("localStorage.getItem('accessToken')")).toBeNull();
    await page.getByLabel('Email').fill(account.email);
    await page.getByLabel('Password', { exact: true }).fill(account.password);
    await page.getByRole('button', { name: 'Sign In' }).click();
    const code = page.getByLabel('Verification code');
    await code.fill('12ab');
    await expect(code.inputValue()).resolves.toBe('12');
    await expect(page.getByRole('button', { name: 'Verify' }).isDisabled()).resolves.toBe(true);
    await code.fill(totp(secret, 1)); // the setup code was used once already
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.waitForURL(`${base}/dashboard`);

    // Disabling 2FA asks for the password.
    await page.goto(`${base}/profile`);
    await page.getByRole('button', { name: 'Disable 2FA' }).click();
    const disable = page.getByRole('dialog', { name: 'Disable Two-Factor Authentication' });
    await disable.getByLabel('Current password').fill('not the password');
    await disable.getByRole('button', { name: 'Disable 2FA' }).click();
    await disable.getByText('Current password is incorrect').waitFor();
    await disable.getByLabel('Current password').fill(account.password);
    await disable.getByRole('button', { name: 'Disable 2FA' }).click();
    await page.getByText('Two-factor authentication has been disabled').waitFor();
    await page.getByRole('link', { name: 'Dashboard' }).first().click();

    // Delete after confirming.
    await page.getByRole('button', { name: 'Delete Control plane' }).click();
    await page.getByText('Are you sure you want to delete this endpoint?').waitFor();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await page.getByText('No endpoints yet').waitFor();
  });

  it('keeps the dashboard usable on a 375 px wide phone', async () => {
    const phone = await browser.context.newPage();
    phone.setDefaultTimeout(20_000);
    watchCsp(phone);
    await phone.setViewportSize({ width: 375, height: 812 });
    await phone.goto(`${stack.baseUrl}/dashboard`); // same browser profile: still signed in
    await phone.getByRole('heading', { name: /Welcome back/ }).waitFor();
    await addEndpoint(phone, 'Phone site', `${stack.baseUrl}/pricing`);
    const overflow = await phone.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
    expect(overflow).toBeLessThanOrEqual(0);
    expect(await phone.getByRole('link', { name: 'Alert Settings' }).isVisible()).toBe(false);
    await phone.getByRole('button', { name: 'Open menu' }).click();
    await phone.locator('#mobile-menu').getByText(account.email).waitFor();
    await phone.locator('#mobile-menu').getByText(account.username, { exact: true }).waitFor();
    await phone.locator('#mobile-menu').getByRole('link', { name: 'Alert Settings' }).click();
    await phone.waitForURL(`${stack.baseUrl}/alert-settings`);
    await phone.close();
  });

  it('ran every page above, charts included, under its Content-Security-Policy without a violation', async () => {
    const res = await fetch(`${stack.baseUrl}/dashboard`);
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(await res.text()).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/); // no inline script in the built index.html
    expect(cspViolations).toEqual([]);
  });
});
