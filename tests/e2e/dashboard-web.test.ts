// The live dashboard in Debian's chromium against the real control plane and its embedded agent
// (Business plan: a check every 10 s): a target flipped to 503 turns its row red without a reload,
// search / status filter / sort live in the URL, the keyboard moves between rows, clicking a row
// opens its graphs, and a dropped stream says "reconnecting" and catches up.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startStack, type Stack } from '../helpers/start-stack';
import { ensureWebBuild, hasChromium, launchBrowser, signUp } from './screenshots';

const browserOk = hasChromium();
const d = browserOk ? describe : describe.skip;
const title = browserOk ? 'live dashboard in chromium' : 'live dashboard in chromium (skipped: /usr/bin/chromium is missing)';
/** The Business plan's check interval. */
const CHECK_INTERVAL_MS = 10_000;

d(title, () => {
  let stack: Stack;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let page: Page;
  let target: http.Server;
  let flipCode = 200;
  let targetUrl = '';
  let token = '';
  const account = { username: 'liveuser', email: 'liveuser@example.com', password: 'correct-horse-1' };
  const rest = async (method: string, p: string, body?: unknown) => {
    const res = await fetch(`${stack.baseUrl}${p}`, {
      method, headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: body === undefined ? undefined : JSON.stringify(body),
    });
    return (await res.json()) as { success: boolean; data: any };
  };
  const row = (name: string) => page.getByTestId('endpoint-row').filter({ has: page.getByRole('heading', { name, exact: true }) });
  const rowCount = (n: number) => expect.poll(() => page.getByTestId('endpoint-row').count(), { timeout: 30_000 }).toBe(n); // a loaded CI machine renders slowly
  const names = async () => page.getByTestId('endpoint-row').locator('h3').allTextContents();

  beforeAll(async () => {
    ensureWebBuild();
    target = http.createServer((req, res) => {
      res.writeHead(req.url?.startsWith('/flip') ? flipCode : 200, { 'content-type': 'text/plain', connection: 'close' }).end('ok');
    });
    await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
    targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
    // Streams end with the access token (20 s here): the reconnect test waits for that drop.
    stack = await startStack({ embeddedAgent: true, env: { ACCESS_TOKEN_TTL_SECONDS: '20' } });
    browser = await launchBrowser();
    page = await browser.context.newPage();
    page.setDefaultTimeout(20_000);
    await signUp(page, stack.baseUrl, account);
    await fetch(`${stack.baseUrl}/api/admin/users/set-package`, {
      method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${stack.adminToken}` },
      body: JSON.stringify({ email: account.email, package: 'Business' }),
    });
    token = (await page.evaluate<string>('localStorage.getItem("accessToken")'));
    await rest('POST', '/api/users/endpoints', { name: 'Flip shop', url: `${targetUrl}/flip`, response_code: true, response_time: true });
    for (let i = 1; i <= 10; i++) await rest('POST', '/api/users/endpoints', { name: `Steady ${String(i).padStart(2, '0')}`, url: `${targetUrl}/steady-${i}`, response_code: true });
    const paused = await rest('POST', '/api/users/endpoints', { name: 'Quiet blog', url: `${targetUrl}/quiet`, response_code: true });
    await rest('PATCH', `/api/users/endpoints/${paused.data.url_id}/toggle`, { monitoring_enabled: false });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
    await new Promise((r) => target?.close(r));
  });

  it('turns a row red within one check interval of its target answering 503, without a reload', async () => {
    await page.goto(`${stack.baseUrl}/dashboard`);
    await page.getByTestId('stream-state').filter({ hasText: 'Live' }).waitFor();
    const flip = row('Flip shop');
    await flip.and(page.locator('[data-status="up"]')).waitFor({ timeout: 30_000 });
    await flip.getByTestId('last-ms').waitFor();
    await expect(flip.getByTestId('checked-ago').textContent()).resolves.toMatch(/^checked \d+ s ago$/);
    await expect(flip.locator('.beat-up').count()).resolves.toBeGreaterThan(0);
    const navigations: string[] = [];
    page.on('framenavigated', (f) => navigations.push(f.url()));

    flipCode = 503;
    const flippedAt = Date.now();
    await flip.and(page.locator('[data-status="down"]')).waitFor({ timeout: CHECK_INTERVAL_MS + 5_000 });
    const tookMs = Date.now() - flippedAt;
    console.log(`row turned red ${tookMs} ms after the target started answering 503 (check interval ${CHECK_INTERVAL_MS} ms)`);
    expect(tookMs).toBeLessThanOrEqual(CHECK_INTERVAL_MS + 1_500); // one interval, plus the result's trip agent → control plane → browser
    expect(navigations).toEqual([]); // no reload
    await expect(flip.getAttribute('class')).resolves.toMatch(/\bis-down\b/);
    await expect(flip.getByTestId('status-word').textContent()).resolves.toBe('Down');
    await expect(flip.getByTestId('last-error').textContent()).resolves.toBe('HTTP 503 from EU - Germany');
    await expect(flip.locator('.beat').last().getAttribute('class')).resolves.toMatch(/beat-down/);
    await expect(flip.locator('.beat').last().getAttribute('title')).resolves.toMatch(/^\d\d:\d\d:\d\d · 503 · \d+ ms$/);
    await page.getByTestId('count-down').filter({ hasText: '1 Down' }).waitFor();
    flipCode = 200;
  }, 60_000);

  it("shows the 503s in the 12 h graph as 5xx checks with the range's uptime, no average of codes, and monitoring as a switch", async () => {
    await page.goto(`${stack.baseUrl}/dashboard`);
    const flip = row('Flip shop');
    await flip.waitFor();
    await expect(flip.getByRole('switch', { name: 'Disable monitoring for Flip shop' }).getAttribute('aria-checked')).resolves.toBe('true');
    await flip.locator('h3').click();
    const graphs = page.getByRole('dialog');
    await graphs.getByRole('button', { name: '12 h' }).click();
    const card = graphs.getByRole('article', { name: 'Response Code from EU - Germany' });
    await expect.poll(async () => Number(await card.getByTestId('class-5xx').textContent()), { timeout: 20_000 }).toBeGreaterThan(0);
    await expect(card.getByText('Average').count()).resolves.toBe(0);
    await expect(card.getByLabel('Last 10 checks').textContent()).resolves.toContain('503');
    const uptime = Number((await graphs.getByTestId('range-uptime').textContent())!.match(/([\d.]+)%/)![1]);
    expect(uptime).toBeLessThan(100);
    await graphs.getByRole('button', { name: 'Close' }).click();
    await graphs.waitFor({ state: 'detached' });
  }, 60_000);

  it('searches, filters by status from the summary and sorts, all kept in the URL across a reload', async () => {
    await page.goto(`${stack.baseUrl}/dashboard`);
    await page.getByTestId('endpoint-row').first().waitFor();
    await page.keyboard.press('/');
    await expect(page.evaluate<string | null>("document.activeElement?.getAttribute('aria-label') ?? null")).resolves.toBe('Filter endpoints');
    await page.keyboard.type('steady 0');
    await rowCount(9);
    expect(new URL(page.url()).searchParams.get('q')).toBe('steady 0');
    await page.reload();
    await rowCount(9);
    await expect(page.getByLabel('Filter endpoints').inputValue()).resolves.toBe('steady 0');
    await page.getByLabel('Filter endpoints').fill('');

    await page.getByTestId('count-paused').click();
    await expect.poll(names).toEqual(['Quiet blog']);
    expect(new URL(page.url()).searchParams.get('status')).toBe('paused');
    await expect(page.getByTestId('count-paused').getAttribute('aria-pressed')).resolves.toBe('true');
    await page.getByTestId('count-paused').click();
    await rowCount(12);

    await page.getByLabel('Sort').selectOption('-name');
    await expect.poll(async () => (await names()).slice(0, 3)).toEqual(['Steady 10', 'Steady 09', 'Steady 08']);
    expect(new URL(page.url()).searchParams.get('sort')).toBe('-name');
    await page.reload();
    await page.getByTestId('endpoint-row').first().waitFor();
    await expect.poll(async () => (await names())[0]).toBe('Steady 10');
    await page.getByLabel('Status filter').selectOption('paused');
    await expect.poll(names).toEqual(['Quiet blog']);
    await page.getByLabel('Status filter').selectOption('');
    await page.getByLabel('Filter endpoints').fill('nothing like it');
    await page.getByText('No endpoint matches “nothing like it”.').waitFor();
    await page.goto(`${stack.baseUrl}/dashboard`);
  }, 60_000);

  it('opens graphs by clicking a row, and by arrow keys and Enter', async () => {
    await page.goto(`${stack.baseUrl}/dashboard?sort=name`);
    await page.getByTestId('endpoint-row').first().waitFor();
    await row('Steady 03').locator('h3').click();
    const graphs = page.getByRole('dialog');
    await graphs.getByText('Steady 03').waitFor();
    await graphs.getByText('Pinch to zoom • Drag to pan').waitFor();
    await graphs.getByRole('button', { name: 'Close' }).click();
    await graphs.waitFor({ state: 'detached' });

    await page.keyboard.press('/');
    await page.keyboard.press('ArrowDown'); // search → first row (Flip shop)
    await page.keyboard.press('ArrowDown'); // Quiet blog
    await page.keyboard.press('ArrowDown'); // Steady 01
    await page.keyboard.press('ArrowDown'); // Steady 02
    await page.keyboard.press('ArrowUp');
    await expect(page.evaluate<string | null>("document.activeElement?.querySelector('h3')?.textContent ?? null")).resolves.toBe('Steady 01');
    await page.keyboard.press('Enter');
    await page.getByRole('dialog').getByText('Steady 01').waitFor();
    await page.getByRole('dialog').getByRole('button', { name: 'Close' }).click();
  }, 60_000);

  it('says "Reconnecting…" while the stream is down and catches up when it returns', async () => {
    await page.goto(`${stack.baseUrl}/dashboard`);
    await page.getByTestId('stream-state').filter({ hasText: 'Live' }).waitFor();
    // The open stream ends with its access token (20 s); the reconnects fail while this route refuses them.
    await page.route('**/api/users/events', (r) => r.abort());
    await page.getByTestId('stream-state').filter({ hasText: 'Reconnecting…' }).waitFor({ timeout: 30_000 });
    const before = Number(await row('Flip shop').locator('.beat-up, .beat-down').count());
    flipCode = 503;
    await page.waitForTimeout(CHECK_INTERVAL_MS + 1000); // results made while the page cannot hear them
    await page.unroute('**/api/users/events');
    await page.getByTestId('stream-state').filter({ hasText: 'Live' }).waitFor({ timeout: 15_000 });
    await row('Flip shop').and(page.locator('[data-status="down"]')).waitFor({ timeout: 5_000 });
    expect(await row('Flip shop').locator('.beat-up, .beat-down').count()).toBeGreaterThanOrEqual(Math.min(30, before + 1));
    flipCode = 200;
  }, 60_000);
});
