// Reports and SLOs in Debian's chromium against the real control plane with its embedded agent:
// an endpoint with an SLO shows its error budget on the dashboard and the burn-down in its graphs,
// the Reports page shows its figures with totals, downloads them as CSV, and prints without the
// navigation; screenshots go to docs/screenshots.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { REPO_ROOT, startStack, type Stack } from '../helpers/start-stack';
import { ensureWebBuild, hasChromium, launchBrowser, openGraphsWithData, signUp } from './screenshots';

const browserOk = hasChromium();
const d = browserOk ? describe : describe.skip;
const title = browserOk ? 'reports in chromium' : 'reports in chromium (skipped: /usr/bin/chromium is missing)';
const SHOTS = path.join(REPO_ROOT, 'docs', 'screenshots');

d(title, () => {
  let stack: Stack;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let page: Page;
  const account = { username: 'reportsuser', email: 'reportsuser@example.com', password: 'correct-horse-1' };

  beforeAll(async () => {
    ensureWebBuild();
    stack = await startStack({ embeddedAgent: true });
    browser = await launchBrowser();
    page = await browser.context.newPage();
    page.setDefaultTimeout(20_000);
  });
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  it('shows the error budget on the dashboard and its burn-down in the graphs, and the Reports page with totals, CSV and a clean print', async () => {
    const base = stack.baseUrl;
    await signUp(page, base, account);
    await fetch(`${base}/api/admin/users/set-package`, {
      method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${stack.adminToken}` },
      body: JSON.stringify({ email: account.email, package: 'Pro' }),
    });
    const token = await page.evaluate<string>("localStorage.getItem('accessToken') ?? ''");
    const auth = { 'content-type': 'application/json', authorization: `Bearer ${token}` };
    const created = await fetch(`${base}/api/users/endpoints`, {
      method: 'POST', headers: auth, body: JSON.stringify({ name: 'Website', url: `${base}/`, regions: ['EU-Germany'], response_code: true, slo_target: 99.9, slo_window_days: 7 }),
    });
    expect(created.status).toBe(201);
    const id = ((await created.json()) as { data: { url_id: number } }).data.url_id;
    // The embedded agent checks the new endpoint at once; wait for its first result to count.
    const deadline = Date.now() + 60_000;
    for (;;) {
      const slo = (await (await fetch(`${base}/api/users/endpoints/${id}/slo`, { headers: auth })).json()) as { data: { uptime_percentage: number | null } };
      if (slo.data.uptime_percentage !== null) break;
      if (Date.now() > deadline) throw new Error('no result counted within a minute');
      await new Promise((r) => setTimeout(r, 1000));
    }

    await page.goto(`${base}/dashboard`);
    const chip = page.getByTestId('slo-badge');
    await chip.waitFor();
    expect(await chip.textContent()).toMatch(/^Budget [\d,]+ min left$/);
    expect(await chip.getAttribute('class')).toContain('badge-green');
    expect(await openGraphsWithData(page, 'Website')).toBe(true);
    const burn = page.getByTestId('burn-down');
    await burn.waitFor();
    expect(await burn.textContent()).toContain('Error budget · SLO 99.9% over 7 days');
    await burn.locator('svg.apexcharts-svg').first().waitFor();
    await page.keyboard.press('Escape');

    await page.getByRole('link', { name: 'Reports' }).first().click();
    await page.getByRole('heading', { name: 'SLA report' }).waitFor();
    const row = page.getByTestId('report-row').filter({ hasText: 'Website' });
    await row.waitFor();
    expect(await row.textContent()).toMatch(/^Website\d+\.\d{2}%/);
    expect(await page.getByTestId('report-totals').textContent()).toMatch(/^Total\d+\.\d{2}%/);
    await page.evaluate('window.scrollTo(0, 0)');
    await page.screenshot({ path: path.join(SHOTS, 'reports-desktop.png'), fullPage: true });

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download CSV' }).click()]);
    const csv = fs.readFileSync((await download.path()), 'utf8').split('\r\n');
    expect(csv[0]).toBe('endpoint,url_id,region,month,uptime_percentage,downtime_minutes,checks,incidents,longest_outage_minutes,mttr_minutes,mtta_minutes');
    expect(csv[1]).toMatch(new RegExp(`^Website,${id},,,\\d+(\\.\\d+)?,`));
    expect(csv.at(-2)).toMatch(/^Total,/);

    // "Save as PDF" prints the print stylesheet: the table without navigation or controls.
    await page.emulateMedia({ media: 'print' });
    expect(await page.locator('.navbar').isVisible()).toBe(false);
    expect(await page.getByRole('button', { name: 'Download CSV' }).isVisible()).toBe(false);
    expect(await page.getByRole('table', { name: 'SLA report' }).isVisible()).toBe(true);
    await page.screenshot({ path: path.join(SHOTS, 'reports-print.png'), fullPage: true });
    await page.emulateMedia({ media: 'screen' });
  });
});
