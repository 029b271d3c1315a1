// /api/docs/ in Debian's chromium against the real control plane: swagger-ui renders the OpenAPI
// document from files the control plane serves itself (no other origin is contacted), and nothing
// is refused under the Content-Security-Policy the control plane sends.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../helpers/start-stack';
import { hasChromium, launchBrowser } from './screenshots';

const browserOk = hasChromium();
const d = browserOk ? describe : describe.skip;

d(browserOk ? 'API reference page in chromium' : 'API reference page in chromium (skipped: /usr/bin/chromium is missing)', () => {
  let stack: Stack;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  beforeAll(async () => {
    stack = await startStack();
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  it('renders every operation of /api/openapi.json from local files, without a CSP violation', async () => {
    const page = await browser.context.newPage();
    const problems: string[] = [];
    page.on('console', (m) => {
      if (/Content Security Policy|Refused to/i.test(m.text())) problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    const origins = new Set<string>();
    page.on('request', (r) => origins.add(new URL(r.url()).origin));

    await page.goto(`${stack.baseUrl}/api/docs`);
    expect(page.url()).toBe(`${stack.baseUrl}/api/docs/`);
    await page.getByRole('heading', { name: /Upfleet API/ }).waitFor({ timeout: 30_000 });
    const doc = (await (await fetch(`${stack.baseUrl}/api/openapi.json`)).json()) as { paths: Record<string, object> };
    const shown = await page.locator('.opblock-summary-path').allTextContents();
    const normalize = (p: string) => p.replace(/\u200b/g, '').trim();
    expect(new Set(shown.map(normalize))).toEqual(new Set(Object.keys(doc.paths)));
    expect([...origins]).toEqual([stack.baseUrl]);
    expect(problems).toEqual([]);
  });
});
