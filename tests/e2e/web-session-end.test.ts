// After sign-out, or with both stored tokens corrupt, a visit to /dashboard is a page that sends the
// person to sign in: never the API's JSON. (Server side, a page load that fails answers HTML:
// control-plane/src/http/web-pages.test.ts.)
import { describe, expect, it } from 'vitest';
import { useBrowserStack } from '../helpers/browser-stack';
import { hasChromium, signUp } from './screenshots';

const browserOk = hasChromium();
const d = browserOk ? describe : describe.skip;
const title = browserOk ? 'session end in chromium' : 'session end in chromium (skipped: /usr/bin/chromium is missing)';

d(title, () => {
  const env = useBrowserStack();

  async function visitDashboardLandsOnSignIn(base: string): Promise<void> {
    const page = env.page;
    const res = await page.goto(`${base}/dashboard`);
    expect(res?.headers()['content-type']).toMatch(/^text\/html/);
    await page.waitForURL(`${base}/login`);
    await page.getByRole('button', { name: 'Sign In' }).waitFor();
    expect(await page.locator('body').innerText()).not.toContain('"success"');
  }

  it('sends a signed-out visitor and one with corrupt stored tokens from /dashboard to sign in', async () => {
    const { page } = env;
    const base = env.stack.baseUrl;
    await signUp(page, base, { username: 'leaver', email: 'leaver@example.com', password: 'correct-horse-1' });
    await page.getByRole('button', { name: 'leaver' }).click();
    await page.getByRole('menuitem', { name: 'Sign Out' }).click();
    await page.waitForURL(`${base}/login`);
    await visitDashboardLandsOnSignIn(base);

    await page.evaluate("localStorage.setItem('accessToken', 'not-a-token'); localStorage.setItem('refreshToken', 'not-a-refresh-token')");
    await visitDashboardLandsOnSignIn(base);
    expect(await page.evaluate<unknown>("[localStorage.getItem('accessToken'), localStorage.getItem('refreshToken')]")).toEqual([null, null]);
  });
});
