// What a person notices in the first hour, in Debian's chromium against the real control plane:
// a viewer is offered no form the server would refuse; a new account is welcomed (not "welcomed
// back"), counts the regions its plan can use, and meets a navbar that fits at 1440 px, radio cards
// with the radio beside its label, and a Profile that says one thing about its subscription and
// makes no failing call.
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { useBrowserStack } from '../helpers/browser-stack';
import { hasChromium, launchBrowser, signUp } from './screenshots';

const browserOk = hasChromium();
const d = browserOk ? describe : describe.skip;
const title = browserOk ? 'rough edges in chromium' : 'rough edges in chromium (skipped: /usr/bin/chromium is missing)';
const password = 'correct-horse-1';

d(title, () => {
  const env = useBrowserStack();
  const api = async (method: string, p: string, body?: unknown, token?: string, headers: Record<string, string> = {}) => {
    const res = await fetch(`${env.stack.baseUrl}${p}`, {
      method, headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const out = { status: res.status, body: (await res.json()) as any };
    if (res.status >= 400) throw new Error(`${method} ${p}: ${res.status} ${JSON.stringify(out.body)}`);
    return out.body.data;
  };
  /** Every API answer of 400 and above while `fn` runs. */
  const failingCalls = async (p: Page, fn: () => Promise<void>): Promise<string[]> => {
    const failed: string[] = [];
    const onResponse = (r: { status(): number; url(): string }) => {
      if (r.status() >= 400 && r.url().includes('/api/')) failed.push(`${r.status()} ${r.url()}`);
    };
    p.on('response', onResponse);
    try {
      await fn();
    } finally {
      p.off('response', onResponse);
    }
    return failed;
  };

  it('welcomes a new account once, counts the regions its plan can use, fits the navbar at 1440 px, and keeps radios by their labels', async () => {
    const { page, stack } = env;
    const base = stack.baseUrl;
    await signUp(page, base, { username: 'averyveryverylongusername', email: 'newcomer@example.com', password });
    await page.getByRole('heading', { name: 'Welcome, averyveryverylongusername!' }).waitFor();
    const regions = page.locator('.stat-card').filter({ hasText: 'Regions' }).locator('.stat-value');
    await expect.poll(() => regions.innerText()).toMatch(/^1 of \d+$/); // Free: one region of the service's
    await page.reload();
    await page.getByRole('heading', { name: 'Welcome back, averyveryverylongusername!' }).waitFor();

    // The navbar at 1440 px: one line, every link whole, the workspace switcher readable.
    expect(page.viewportSize()?.width).toBe(1440);
    const switcher = page.getByRole('combobox', { name: 'Workspace' });
    await switcher.waitFor();
    const measure = () => page.evaluate<{ height: number; overflow: number; linkHeights: number[]; linksEnd: number; actionsStart: number; switcher: { width: number; right: number } }>(`(() => {
      const nav = document.querySelector('.navbar-inner');
      const links = [...document.querySelectorAll('.nav-link')];
      const sel = document.querySelector('.workspace-switcher select').getBoundingClientRect();
      return {
        height: nav.getBoundingClientRect().height,
        overflow: nav.scrollWidth - nav.clientWidth,
        linkHeights: links.map((a) => a.getBoundingClientRect().height),
        linksEnd: Math.max(...links.map((a) => a.getBoundingClientRect().right)),
        actionsStart: document.querySelector('.nav-actions').getBoundingClientRect().left,
        switcher: { width: sel.width, right: sel.right },
      };
    })()`);
    for (const width of [1440, 1200]) {
      await page.setViewportSize({ width, height: 900 });
      await expect.poll(async () => (await measure()).linksEnd <= (await measure()).actionsStart, { message: `links clear of the switcher at ${width} px` }).toBe(true);
      const bar = await measure();
      expect(bar.height).toBeLessThanOrEqual(64);
      expect(bar.overflow).toBeLessThanOrEqual(0);
      expect(Math.max(...bar.linkHeights)).toBeLessThan(40); // one line of text each
      expect(bar.switcher.width).toBeGreaterThan(120); // "Personal (you) · owner", not just its arrow
      expect(bar.switcher.right).toBeLessThanOrEqual(width);
    }
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.screenshot({ path: `${stack.dataDir}/navbar-1440.png`, clip: { x: 0, y: 0, width: 1440, height: 80 } });

    // Check-type radio cards: the radio sits just before its label, with a plain focus ring.
    await page.getByRole('button', { name: 'Add Endpoint' }).first().click();
    const dialog = page.getByRole('dialog', { name: 'Add Endpoint' });
    const gaps = await page.evaluate<Array<{ gap: number; radioWidth: number }>>(`[...document.querySelectorAll('[role=dialog] .option')]
      .filter((c) => c.querySelector('input[type=radio]'))
      .map((c) => {
        const radio = c.querySelector('input').getBoundingClientRect();
        const label = c.querySelector('.option-title').getBoundingClientRect();
        return { gap: label.left - radio.right, radioWidth: radio.width };
      })`);
    expect(gaps.length).toBeGreaterThanOrEqual(4);
    for (const g of gaps) {
      expect(g.radioWidth).toBeLessThan(30);
      expect(g.gap).toBeGreaterThanOrEqual(0);
      expect(g.gap).toBeLessThan(24);
    }
    await dialog.getByRole('radio', { name: /HTTP/ }).focus();
    await page.keyboard.press('ArrowRight'); // keyboard focus: :focus-visible
    const ring = await page.evaluate<{ outline: string; shadow: string }>(`(() => {
      const s = getComputedStyle(document.activeElement);
      return { outline: s.outlineStyle + ' ' + s.outlineWidth, shadow: s.boxShadow };
    })()`);
    expect(ring.outline).toBe('solid 2px');
    expect(ring.shadow).toBe('none');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
  });

  it('shows the Profile with one subscription state and no failing call on load', async () => {
    const { page, stack } = env;
    const failed = await failingCalls(page, async () => {
      await page.goto(`${stack.baseUrl}/profile`);
      await page.getByText('No active subscription', { exact: true }).waitFor();
      await page.getByText('€0/month').waitFor();
      await page.getByRole('heading', { name: 'Two-Factor Authentication' }).waitFor();
    });
    expect(failed).toEqual([]);
    const account = page.getByRole('region', { name: 'Account Information' });
    await account.getByText('No subscription').waitFor();
    expect(await account.getByText('active', { exact: true }).count()).toBe(0);
  });

  it('offers a viewer no form or button the server would refuse, on any page', async () => {
    const { stack } = env;
    const base = stack.baseUrl;
    const owner = await api('POST', '/api/auth/signup', { username: 'acmeowner', email: 'acmeowner@example.com', password });
    const acme = (await api('POST', '/api/workspaces', { name: 'Acme' }, owner.accessToken)).id as number;
    const ws = (await api('GET', '/api/admin/workspaces', undefined, stack.adminToken)).find((w: { id: number }) => w.id === acme);
    await api('POST', '/api/admin/users/set-package', { email: ws.account_email, package: 'Pro' }, stack.adminToken);
    const inAcme = { 'X-Workspace-Id': String(acme) };
    const ep = await api('POST', '/api/users/endpoints', { name: 'Shop', url: `${base}/pricing`, regions: ['EU-Germany'], response_code: true }, owner.accessToken, inAcme);
    const sp = await api('POST', '/api/users/status-pages', { slug: 'acme-shop', title: 'Acme', description: '', components: [{ name: 'Shop', endpoint_id: ep.url_id }] }, owner.accessToken, inAcme);
    await api('POST', `/api/users/status-pages/${sp.id}/reports`, { title: 'Slow checkout', status: 'investigating', message: 'Looking', affected: [] }, owner.accessToken, inAcme);
    await api('POST', '/api/users/maintenance-windows', { title: 'Upgrade', endpoint_ids: [ep.url_id], starts_at: new Date(Date.now() + 86_400_000).toISOString(), ends_at: new Date(Date.now() + 90_000_000).toISOString() }, owner.accessToken, inAcme);
    await api('POST', '/api/users/alert-methods', { platform: 'email', platform_config: { email_address: 'ops@example.com' } }, owner.accessToken, inAcme);
    const viewer = await api('POST', '/api/auth/signup', { username: 'watcher', email: 'watcher@example.com', password });
    const link = (await api('POST', `/api/workspaces/${acme}/invitations`, { email: 'watcher@example.com', role: 'viewer' }, owner.accessToken)).link as string;
    await api('POST', `/api/invitations/${/\/invitations\/([A-Za-z0-9_-]+)$/.exec(link)![1]}/accept`, undefined, viewer.accessToken);

    const viewerBrowser = await launchBrowser();
    const v = await viewerBrowser.context.newPage();
    v.setDefaultTimeout(20_000);
    try {
      await v.goto(`${base}/`);
      await v.evaluate(`localStorage.setItem('accessToken', ${JSON.stringify(viewer.accessToken)});
        localStorage.setItem('refreshToken', ${JSON.stringify(viewer.refreshToken)});
        localStorage.setItem('upfleetWorkspace', '${acme}');`);
      const refused = /^(Add|New|Edit|Delete|Remove|Revoke|Dismiss|Schedule|Open report|Post update|Send invitation|Rename|Create|Disable|Enable|Save)/;
      const offered = async () => (await v.locator('main button:visible, main [role=button]:visible').allInnerTexts()).filter((t) => refused.test(t.trim()));

      await v.goto(`${base}/dashboard`);
      await v.getByRole('heading', { name: 'Shop', exact: true }).waitFor();
      expect(await v.locator('main form').count()).toBe(0);
      expect(await offered()).toEqual([]);
      expect(await v.getByRole('button', { name: /^(Edit|Delete|Disable monitoring|Alert thresholds)/ }).count()).toBe(0);

      await v.goto(`${base}/status-pages`);
      await v.getByText('Upgrade', { exact: true }).waitFor();
      await v.getByRole('button', { name: 'Reports & subscribers' }).click();
      await v.getByText('Slow checkout').waitFor();
      await v.getByText('An editor of this workspace schedules maintenance.').waitFor();
      expect(await v.locator('main form').count()).toBe(0);
      expect(await offered()).toEqual([]);

      await v.goto(`${base}/alert-settings`);
      await v.getByTestId('alert-method-row').waitFor();
      expect(await v.getByRole('button', { name: /Edit|Delete|Send test/ }).count()).toBe(0);
      expect(await v.getByRole('checkbox').count()).toBe(0);
      expect(await v.locator('main form').count()).toBe(0);
      expect(await offered()).toEqual([]);

      await v.goto(`${base}/members`);
      await v.getByRole('heading', { name: 'Members of Acme' }).waitFor();
      expect(await v.locator('main form').count()).toBe(0);
      expect(await offered()).toEqual([]);

      // The audit log is an admin's: a deep link says so and makes no refused call.
      const auditCalls = await failingCalls(v, async () => {
        await v.goto(`${base}/audit-log`);
        await v.getByText('The admins and the owner of this workspace read its audit log.').waitFor();
      });
      expect(auditCalls).toEqual([]);

      // The Profile's own forms are the viewer's (name, password, 2FA); the workspace's API keys are not.
      await v.goto(`${base}/profile`);
      await v.getByRole('heading', { name: 'API Keys' }).waitFor();
      await v.getByText('An admin of this workspace creates and revokes its API keys.').waitFor();
      expect(await v.getByRole('button', { name: /Create API Key|Revoke/ }).count()).toBe(0);
    } finally {
      await viewerBrowser.close();
    }
  });
});
