// Incidents in Debian's chromium against the real control plane: heartbeats fail for real, their
// webhook messages carry acknowledge links; the dashboard's badge leads to the incident, the
// Incidents page lists it, its timeline's Acknowledge button acknowledges; the /ack page only
// asks on GET and acknowledges on its button. Screenshots go to docs/screenshots.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startHttpReceiver, type HttpReceiver } from '../../control-plane/src/testing/alert-receivers';
import { REPO_ROOT, startStack, type Stack } from '../helpers/start-stack';
import { ensureWebBuild, hasChromium, launchBrowser, signUp } from './screenshots';

const browserOk = hasChromium();
const d = browserOk ? describe : describe.skip;
const title = browserOk ? 'incidents in chromium' : 'incidents in chromium (skipped: /usr/bin/chromium is missing)';
const SHOTS = path.join(REPO_ROOT, 'docs', 'screenshots');

d(title, () => {
  let stack: Stack;
  let hook: HttpReceiver;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let page: Page;
  let auth: Record<string, string>;
  const cspViolations: string[] = [];
  const account = { username: 'oncall', email: 'oncall@example.com', password: 'correct-horse-1' };

  beforeAll(async () => {
    ensureWebBuild();
    hook = await startHttpReceiver(() => ({ status: 204 }));
    stack = await startStack();
    browser = await launchBrowser();
    page = await browser.context.newPage();
    page.setDefaultTimeout(20_000);
    page.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) cspViolations.push(m.text());
    });
    const base = stack.baseUrl;
    await signUp(page, base, account);
    await fetch(`${base}/api/admin/users/set-package`, {
      method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${stack.adminToken}` },
      body: JSON.stringify({ email: account.email, package: 'Pro' }),
    });
    const token = await page.evaluate<string>("localStorage.getItem('accessToken') ?? ''");
    auth = { 'content-type': 'application/json', authorization: `Bearer ${token}` };
    const m = await fetch(`${base}/api/users/alert-methods`, { method: 'POST', headers: auth, body: JSON.stringify({ platform: 'webhook', platform_config: { webhook_url: `${hook.url}/hook` } }) });
    expect(m.status).toBe(201);
  }, 240_000);
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
    await hook?.close();
  });

  /** A heartbeat that fails for real; its incident id and the ack_url its webhook message carried. */
  async function failing(name: string): Promise<{ incidentId: number; ackUrl: string }> {
    const r = await fetch(`${stack.baseUrl}/api/users/endpoints`, { method: 'POST', headers: auth, body: JSON.stringify({ name, kind: 'heartbeat', period_seconds: 3600 }) });
    expect(r.status).toBe(201);
    const { ping_url: pingUrl } = ((await r.json()) as { data: { ping_url: string } }).data;
    expect((await fetch(`${pingUrl}/fail`)).status).toBe(200);
    const end = Date.now() + 20_000;
    for (;;) {
      const body = hook.requests.map((q) => JSON.parse(q.body) as { type: string; endpoint: { name: string }; incident: { id: number }; ack_url?: string })
        .find((b) => b.type === 'incident.opened' && b.endpoint.name === name);
      if (body) return { incidentId: body.incident.id, ackUrl: body.ack_url! };
      if (Date.now() > end) throw new Error(`no webhook message for ${name}`);
      await new Promise((res) => setTimeout(res, 100));
    }
  }
  const state = async (id: number) => (((await (await fetch(`${stack.baseUrl}/api/users/incidents/${id}`, { headers: auth })).json()) as { data: { state: string; acknowledged_by: unknown } }).data);

  it('the dashboard badge leads to the incident; the Incidents page lists it; Acknowledge acknowledges', async () => {
    const { incidentId } = await failing('Nightly backup');
    await page.goto(`${stack.baseUrl}/dashboard`);
    const badge = page.getByTestId('down-badge').first();
    await badge.waitFor();
    await badge.click();
    await page.waitForURL(`${stack.baseUrl}/incidents/${incidentId}`);
    await page.getByRole('heading', { name: /Nightly backup/ }).waitFor();

    await page.getByRole('link', { name: 'Incidents', exact: true }).first().click();
    await page.getByRole('heading', { name: 'Incidents', exact: true }).waitFor();
    const row = page.getByTestId('incident-row').first();
    await row.getByText('Nightly backup').waitFor();
    expect(await row.getByTestId('incident-state').textContent()).toBe('Open');
    await page.evaluate('window.scrollTo(0, 0)');
    await page.screenshot({ path: path.join(SHOTS, 'incidents-desktop.png'), fullPage: true });

    await row.getByRole('link', { name: 'Nightly backup' }).click();
    await page.getByTestId('timeline-entry').first().waitFor();
    await page.locator('[data-type="delivery"]').first().waitFor();
    await page.getByRole('button', { name: 'Acknowledge' }).click();
    await page.getByText(`Acknowledged by ${account.username}`).waitFor();
    expect(await page.getByRole('button', { name: 'Acknowledge' }).count()).toBe(0);
    await page.evaluate('window.scrollTo(0, 0)');
    await page.screenshot({ path: path.join(SHOTS, 'incident-detail-desktop.png'), fullPage: true });
    expect(await state(incidentId)).toMatchObject({ state: 'acknowledged', acknowledged_by: { name: account.username, via: 'app' } });
  });

  it('the /ack page asks on GET (nothing changes) and acknowledges on its button; the link then says it was used', async () => {
    const { incidentId, ackUrl } = await failing('Invoice export');
    const ack = await browser.context.newPage();
    await ack.goto(ackUrl);
    await ack.getByRole('heading', { name: 'Acknowledge this incident?' }).waitFor();
    await ack.getByText('Invoice export').waitFor();
    await ack.screenshot({ path: path.join(SHOTS, 'ack-page-desktop.png'), fullPage: true });
    await ack.reload();
    expect((await state(incidentId)).state).toBe('open');
    await ack.getByRole('button', { name: 'Acknowledge' }).click();
    await ack.getByRole('heading', { name: 'Incident acknowledged' }).waitFor();
    expect(await state(incidentId)).toMatchObject({ state: 'acknowledged', acknowledged_by: { via: 'link' } });
    const again = await ack.goto(ackUrl);
    expect(again!.status()).toBe(409);
    await ack.getByRole('heading', { name: 'Already acknowledged' }).waitFor();
    await ack.close();
    expect(cspViolations).toEqual([]);
  });
});
