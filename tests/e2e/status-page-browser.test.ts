// Status pages in Debian's chromium against the real control plane: the editor (live slug
// check, components from endpoints, order, groups, a report, a maintenance window) and the public
// page with JavaScript on and off, desktop and phone; screenshots go to docs/screenshots.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Page } from 'playwright-core';
import { REPO_ROOT, startStack, type Stack } from '../helpers/start-stack';
import { CHROMIUM, ensureWebBuild, hasChromium, launchBrowser, signUp } from './screenshots';

const browserOk = hasChromium();
const d = browserOk ? describe : describe.skip;
const title = browserOk ? 'status pages in chromium' : 'status pages in chromium (skipped: /usr/bin/chromium is missing)';
const SHOTS = path.join(REPO_ROOT, 'docs', 'screenshots');

d(title, () => {
  let stack: Stack;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let page: Page;
  const cspViolations: string[] = [];
  const account = { username: 'statususer', email: 'statususer@example.com', password: 'correct-horse-1' };

  beforeAll(async () => {
    ensureWebBuild();
    stack = await startStack({ embeddedAgent: true });
    browser = await launchBrowser();
    page = await browser.context.newPage();
    page.setDefaultTimeout(20_000);
    page.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) cspViolations.push(m.text());
    });
  });
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  it('the editor: slug check, components from endpoints in order with groups, a report and a maintenance window', async () => {
    const base = stack.baseUrl;
    await signUp(page, base, account);
    await fetch(`${base}/api/admin/users/set-package`, {
      method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${stack.adminToken}` },
      body: JSON.stringify({ email: account.email, package: 'Pro' }),
    });
    const token = await page.evaluate<string>("localStorage.getItem('accessToken') ?? ''");
    const auth = { 'content-type': 'application/json', authorization: `Bearer ${token}` };
    for (const [name, url] of [['Website', `${base}/`], ['API', `${base}/api/health`]]) {
      const r = await fetch(`${base}/api/users/endpoints`, { method: 'POST', headers: auth, body: JSON.stringify({ name, url, regions: ['EU-Germany'], response_code: true }) });
      expect(r.status).toBe(201);
    }

    await page.getByRole('link', { name: 'Status pages' }).first().click();
    await page.getByRole('heading', { name: 'Status pages', exact: true }).waitFor();
    await page.getByText('No status page yet.').waitFor();
    await page.getByRole('button', { name: 'New status page' }).click();
    const form = page.getByRole('form', { name: 'New status page' });
    await form.getByLabel('Title').fill('Acme Cloud');
    await form.getByLabel('Slug').fill('admin');
    await form.getByText('This slug is reserved. Please choose another one.').waitFor();
    await form.getByLabel('Slug').fill('acme-cloud');
    await form.getByText('Available', { exact: true }).waitFor();
    await form.getByLabel('Description').fill('Live status of Acme Cloud services');
    for (let i = 0; i < 3; i++) await form.getByRole('button', { name: 'Add component' }).click();
    await form.getByLabel('Component 1 endpoint').selectOption({ label: 'API' });
    await form.getByLabel('Component 1 group').fill('Platform');
    await form.getByLabel('Component 2 endpoint').selectOption({ label: 'Website' });
    await form.getByLabel('Component 2 group').fill('Platform');
    await form.getByLabel('Component 3 name').fill('Support desk');
    // Website first: move component 2 up.
    await form.getByRole('button', { name: 'Move component 2 up' }).click();
    await expect(form.getByLabel('Component 1 name').inputValue()).resolves.toBe('Website');
    await page.evaluate('window.scrollTo(0, 0)'); // the sticky navbar stays at the top of the picture
    await page.screenshot({ path: path.join(SHOTS, 'status-page-editor-desktop.png'), fullPage: true });
    await form.getByRole('button', { name: 'Save status page' }).click();
    const item = page.locator('[data-page="acme-cloud"]');
    await item.getByText('3 components', { exact: false }).waitFor();

    const pages = (await (await fetch(`${base}/api/users/status-pages`, { headers: auth })).json()) as any;
    expect(pages.data[0].components.map((c: any) => [c.name, c.group])).toEqual([['Website', 'Platform'], ['API', 'Platform'], ['Support desk', null]]);

    // A report from the page's details.
    await item.getByRole('button', { name: 'Reports & subscribers' }).click();
    const reportForm = item.getByRole('form', { name: 'New report' });
    await reportForm.getByLabel('Report title').fill('Slow support replies');
    await reportForm.getByLabel('Report message').fill('We are answering a backlog of tickets.');
    await reportForm.getByLabel('Impact on Support desk').selectOption('partial_outage');
    await reportForm.getByRole('button', { name: 'Open report' }).click();
    await item.getByText('Slow support replies').waitFor();
    await item.getByText('0 confirmed subscribers').waitFor();

    // A maintenance window for the API (the form's default: in an hour, for an hour).
    const mw = page.getByRole('form', { name: 'New maintenance window' });
    await mw.getByLabel('Title').fill('Database upgrade');
    await mw.getByRole('checkbox', { name: 'API' }).check();
    await mw.getByRole('button', { name: 'Schedule maintenance' }).click();
    await page.locator('[data-window]').getByText('Database upgrade').waitFor();
    await page.locator('[data-window]').getByText('scheduled').waitFor();
    expect(cspViolations).toEqual([]);
  });

  it('the public page with JavaScript on (desktop, phone) and off shows the state, bars, report and maintenance', async () => {
    const url = `${stack.baseUrl}/status/acme-cloud`;
    // The embedded agent checks the endpoints at once: wait for today's bar to have data.
    const deadline = Date.now() + 60_000;
    for (;;) {
      const s = (await (await fetch(`${stack.baseUrl}/api/public/status/acme-cloud`)).json()) as any;
      if (s.data.components[0].days.at(-1).uptime !== null) break;
      if (Date.now() > deadline) throw new Error('no check result reached the page');
      await new Promise((r) => setTimeout(r, 1000));
    }
    await new Promise((r) => setTimeout(r, 11_000)); // the cached view (10 s) picks the data up

    await page.goto(url);
    await page.getByRole('heading', { name: 'Acme Cloud' }).waitFor();
    await expect(page.locator('#overall').textContent()).resolves.toBe('Partial outage');
    expect(await page.locator('[data-component]').count()).toBe(3);
    expect(await page.locator('[data-component]').first().locator('.bar').count()).toBe(90);
    await expect(page.locator('[data-component]').first().getAttribute('data-status')).resolves.toBe('operational');
    await expect(page.locator('[data-component]').nth(2).getAttribute('data-status')).resolves.toBe('partial_outage');
    await page.getByText('Slow support replies').first().waitFor();
    await page.getByText('Database upgrade').waitFor();
    const today = await page.locator('[data-component]').first().locator('.bar').last().getAttribute('title');
    expect(today).toMatch(/^\d{4}-\d{2}-\d{2} · \d+\.\d\d % uptime/);
    const old = await page.locator('[data-component]').first().locator('.bar').first().getAttribute('title');
    expect(old).toMatch(/ · No data$/);
    await page.screenshot({ path: path.join(SHOTS, 'status-page-desktop.png'), fullPage: true });

    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(url);
    await page.getByRole('heading', { name: 'Acme Cloud' }).waitFor();
    const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth');
    expect(overflow).toBeLessThanOrEqual(0);
    await page.screenshot({ path: path.join(SHOTS, 'status-page-phone.png'), fullPage: true });
    await page.setViewportSize({ width: 1440, height: 900 });

    // JavaScript off, dark scheme: the same page, readable.
    const noJs = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu'] });
    try {
      const ctx = await noJs.newContext({ javaScriptEnabled: false, colorScheme: 'dark', viewport: { width: 1280, height: 900 } });
      const p = await ctx.newPage();
      await p.goto(url);
      await expect(p.locator('h1').textContent()).resolves.toBe('Acme Cloud');
      await expect(p.locator('#overall').textContent()).resolves.toBe('Partial outage');
      expect(await p.locator('.bar').count()).toBe(270);
      await p.getByText('We are answering a backlog of tickets.').waitFor();
      const bg = await p.evaluate<string>('getComputedStyle(document.body).backgroundColor');
      expect(bg).toBe('rgb(13, 17, 23)'); // the dark palette
      await p.screenshot({ path: path.join(SHOTS, 'status-page-nojs-dark.png'), fullPage: true });
      // The subscribe form works without JavaScript too.
      await p.getByLabel('Email address').fill('reader@example.com');
      await p.getByRole('button', { name: 'Subscribe' }).click();
      await p.getByText('Check your inbox').waitFor();
      await ctx.close();
    } finally {
      await noJs.close();
    }
  });
});
