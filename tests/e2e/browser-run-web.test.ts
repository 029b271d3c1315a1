// In Debian's chromium against the real control plane with its embedded agent: a browser check is
// built with the step editor (a secret password fill), run now (the result and its screenshot are
// shown before saving), then saved.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { LOGIN_STEPS, LOGIN_PASSWORD, startLoginPage, type LoginPage } from '../helpers/login-page';
import { REPO_ROOT, startStack, type Stack } from '../helpers/start-stack';
import { ensureWebBuild, hasChromium, launchBrowser, signUp } from './screenshots';

const browserOk = hasChromium();
const d = browserOk ? describe : describe.skip;
const title = browserOk ? 'browser check step editor and Run now in chromium' : 'browser check step editor and Run now (skipped: /usr/bin/chromium is missing)';

d(title, () => {
  let stack: Stack;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let page: Page;
  let login: LoginPage;

  beforeAll(async () => {
    ensureWebBuild();
    [stack, login] = await Promise.all([startStack({ embeddedAgent: true, env: { ALLOW_PRIVATE_TARGETS: '1' } }), startLoginPage()]);
    browser = await launchBrowser();
    page = await browser.context.newPage();
    page.setDefaultTimeout(20_000);
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
    await login?.close();
  });

  it('builds a sign-in check with the step editor, runs it now, sees it pass with its screenshot, and saves it', async () => {
    const base = stack.baseUrl;
    await signUp(page, base, { username: 'stepper', email: 'stepper@example.com', password: 'correct-horse-1' });
    const r = await fetch(`${base}/api/admin/users/set-package`, {
      method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${stack.adminToken}` },
      body: JSON.stringify({ email: 'stepper@example.com', package: 'Business' }),
    });
    expect(r.status).toBe(200);
    await page.reload();

    await page.getByRole('button', { name: 'Add Endpoint' }).first().click();
    const dialog = page.getByRole('dialog', { name: 'Add Endpoint' });
    await dialog.getByRole('radio', { name: /Browser/ }).click();
    await dialog.getByLabel('Name').fill('Login');
    await dialog.getByLabel('URL').fill(`${login.url}/login`);
    await dialog.getByLabel('Check interval').selectOption('300');
    for (const [i, s] of LOGIN_STEPS.entries()) {
      const n = i + 1;
      await dialog.getByLabel('New step action').selectOption(s.action);
      await dialog.getByRole('button', { name: 'Add step' }).click();
      if (s.selector) await dialog.getByLabel(`Step ${n} selector`).fill(s.selector);
      if (s.secret) await dialog.getByLabel(`Step ${n} secret`).check();
      if (s.value) await dialog.getByLabel(`Step ${n} value`).fill(s.value);
      if (s.contains) await dialog.getByLabel(`Step ${n} contains`).fill(s.contains);
      if (s.name) await dialog.getByLabel(`Step ${n} name`).fill(s.name);
    }
    expect(await dialog.getByLabel('Step 2 value').getAttribute('type')).toBe('password');
    expect(await dialog.getByTestId('step-error').count()).toBe(0);

    // the embedded agent may still be connecting: a 503 is shown, and a later run passes
    const outcome = dialog.getByTestId('run-outcome');
    for (let tries = 0; tries < 30 && !(await outcome.isVisible()); tries++) {
      await dialog.getByRole('button', { name: 'Run now' }).click();
      await dialog.getByRole('button', { name: 'Run now' }).waitFor({ timeout: 60_000 });
      if (!(await outcome.isVisible())) await page.waitForTimeout(1000);
    }
    await expect(outcome.textContent()).resolves.toBe('Passed');
    const result = dialog.getByRole('region', { name: 'Run result' });
    expect(await result.getByLabel('Step times').locator('li').count()).toBe(LOGIN_STEPS.length);
    const shot = result.getByRole('img', { name: 'Screenshot: signed in' });
    await shot.waitFor();
    expect(await shot.evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth)).toBeGreaterThan(100);
    expect(await dialog.textContent()).not.toContain(LOGIN_PASSWORD);
    await result.scrollIntoViewIfNeeded();
    await result.screenshot({ path: path.join(REPO_ROOT, 'docs/screenshots/browser-run-now.png') });

    await dialog.getByRole('button', { name: 'Add Endpoint' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByRole('heading', { name: 'Login', exact: true }).waitFor();
  }, 240_000);
});
