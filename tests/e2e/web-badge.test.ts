// README badges in Debian's chromium against the real control plane: the graphs view's Badge
// section shows the status and uptime badges (the browser loads and draws both SVGs), the Markdown
// to copy, and a rotation after the confirmation ends the old badge URLs at once.
import { describe, expect, it } from 'vitest';
import { useBrowserStack } from '../helpers/browser-stack';
import { hasChromium, signUp } from './screenshots';

const browserOk = hasChromium();
const d = browserOk ? describe : describe.skip;
const title = browserOk ? 'badge section in chromium' : 'badge section in chromium (skipped: /usr/bin/chromium is missing)';

d(title, () => {
  const env = useBrowserStack();

  it('shows both badges and their Markdown in the graphs view, and rotates to new URLs', async () => {
    const { page, stack } = env;
    const base = stack.baseUrl;
    await signUp(page, base, { username: 'badges', email: 'badges@example.com', password: 'correct-horse-1' });
    await page.getByRole('button', { name: 'Add Endpoint' }).first().click();
    const dialog = page.getByRole('dialog', { name: 'Add Endpoint' });
    await dialog.getByLabel('Name').fill('Docs site');
    await dialog.getByLabel('URL').fill('https://example.com/docs');
    await dialog.getByRole('button', { name: 'Add Endpoint' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'View graphs for Docs site' }).click();

    const section = page.getByRole('region', { name: 'Badge' });
    const markdown = section.getByLabel('Markdown');
    await markdown.waitFor();
    const first = await markdown.inputValue();
    const urls = [...first.matchAll(/\((https?:[^)]+)\)/g)].map((m) => m[1]);
    expect(urls).toHaveLength(2);
    expect(urls[0]).toMatch(new RegExp(`^${base}/badge/[A-Za-z0-9_-]{43}/status\\.svg$`));
    expect(urls[1]).toMatch(new RegExp(`^${base}/badge/[A-Za-z0-9_-]{43}/uptime\\.svg\\?window=30d$`));
    // The browser drew both images (an SVG that failed to load has no natural width).
    // Polled from outside the page: waitForFunction evaluates its predicate inside it, which the app's CSP (no eval) refuses.
    await expect.poll(() => page.evaluate<boolean>("[...document.querySelectorAll('.badge-preview img')].length === 2 && [...document.querySelectorAll('.badge-preview img')].every((i) => i.complete && i.naturalWidth > 0)"), { timeout: 15_000 }).toBe(true);
    expect(await section.getByAltText('status badge').getAttribute('src')).toBe(urls[0]);

    page.once('dialog', (d) => void d.accept());
    await section.getByRole('button', { name: 'Rotate badge URLs' }).click();
    await section.getByText('New badge URLs made: the old ones no longer work.').waitFor();
    const next = await markdown.inputValue();
    expect(next).not.toBe(first);
    expect((await fetch(urls[0])).status).toBe(404);
    const fresh = /\((https?:[^)]+status\.svg)\)/.exec(next)![1];
    const res = await fetch(fresh);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('aria-label="status: pending"');
  }, 120_000);
});
