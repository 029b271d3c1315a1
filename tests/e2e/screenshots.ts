// Browser helpers for the web app's e2e tests, and a script that takes the README screenshots:
//   npx tsx tests/e2e/screenshots.ts   → docs/screenshots/{page}-{desktop|phone}.png
// Debian's chromium driven by playwright-core, against the real control plane (start-stack).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { authenticator } from 'otplib';
import { REPO_ROOT, startStack } from '../helpers/start-stack';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const hasChromium = (): boolean => fs.existsSync(CHROMIUM);
const WEB = path.join(REPO_ROOT, 'web');

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    const m = entry.isDirectory() ? newestMtime(p) : fs.statSync(p).mtimeMs;
    if (m > newest) newest = m;
  }
  return newest;
}

/** Builds web/dist when it is missing or older than web/src. */
export function ensureWebBuild(): void {
  const index = path.join(WEB, 'dist', 'index.html');
  const srcNewest = Math.max(newestMtime(path.join(WEB, 'src')), fs.statSync(path.join(WEB, 'index.html')).mtimeMs);
  if (fs.existsSync(index) && fs.statSync(index).mtimeMs >= srcNewest) return;
  // Built beside dist and swapped in whole: building into dist empties it first, and a control
  // plane serving it meanwhile (another test run) would find no index.html for a page load.
  const fresh = path.join(WEB, `dist.build-${process.pid}`);
  execFileSync(process.execPath, [path.join(REPO_ROOT, 'node_modules/vite/bin/vite.js'), 'build', '--outDir', fresh, '--emptyOutDir'], {
    cwd: WEB,
    stdio: 'inherit',
    // vitest sets NODE_ENV=test, which would make Vite bundle React's development build.
    env: { ...process.env, NODE_ENV: 'production' },
  });
  const old = path.join(WEB, `dist.old-${process.pid}`);
  const dist = path.join(WEB, 'dist');
  if (fs.existsSync(dist)) fs.renameSync(dist, old);
  fs.renameSync(fresh, dist);
  fs.rmSync(old, { recursive: true, force: true });
}

export async function launchBrowser(viewport = { width: 1440, height: 900 }): Promise<{ context: BrowserContext; close(): Promise<void> }> {
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'upfleet-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    viewport,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  return {
    context,
    async close() {
      await context.close();
      fs.rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

export interface Account { username: string; email: string; password: string }

export async function signUp(page: Page, baseUrl: string, a: Account): Promise<void> {
  await page.goto(`${baseUrl}/signup`);
  await page.getByLabel('Username').fill(a.username);
  await page.getByLabel('Email').fill(a.email);
  await page.getByLabel('Password', { exact: true }).fill(a.password);
  await page.getByLabel('Confirm Password').fill(a.password);
  await page.getByRole('button', { name: 'Create Account' }).click();
  await page.waitForURL(`${baseUrl}/dashboard`);
}

export async function addEndpoint(page: Page, name: string, url: string, description = ''): Promise<void> {
  await page.getByRole('button', { name: 'Add Endpoint' }).first().click();
  const dialog = page.getByRole('dialog', { name: 'Add Endpoint' });
  await dialog.getByLabel('Name').fill(name);
  await dialog.getByLabel('URL').fill(url);
  if (description) await dialog.getByLabel(/Description/).fill(description);
  await dialog.getByRole('button', { name: 'Add Endpoint' }).click();
  await dialog.waitFor({ state: 'detached' });
  await page.getByRole('heading', { name, exact: true }).waitFor();
}

/** Opens the graphs modal and refreshes until a card with data shows (the first check runs at once). */
export async function openGraphsWithData(page: Page, name: string, timeoutMs = 45_000): Promise<boolean> {
  await page.getByRole('button', { name: `View graphs for ${name}` }).click();
  await page.getByText('Pinch to zoom • Drag to pan').waitFor();
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await page.locator('.graph-card .stats-row').count()) return true;
    await page.waitForTimeout(1500);
    await page.getByRole('button', { name: 'Refresh graphs' }).click();
  }
  return false;
}

/** The code for now, or for a later 30 s step: a code is accepted once, so a second sign-in in
 *  the same step needs the next one (the server accepts one step either side). */
export const totp = (secret: string, stepsAhead = 0): string => authenticator.clone({ epoch: Date.now() + stepsAhead * 30_000 }).generate(secret);

async function main(): Promise<void> {
  ensureWebBuild();
  const out = path.join(REPO_ROOT, 'docs', 'screenshots');
  fs.mkdirSync(out, { recursive: true });
  const stack = await startStack({ embeddedAgent: true });
  const browser = await launchBrowser();
  try {
    const page = await browser.context.newPage();
    const base = stack.baseUrl;
    await signUp(page, base, { username: 'alice', email: 'alice@example.com', password: 'correct-horse-1' });
    // Business plan: 10-second checks with response time and ping, so the graphs have a shape.
    await fetch(`${base}/api/admin/users/set-package`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${stack.adminToken}` },
      body: JSON.stringify({ email: 'alice@example.com', package: 'Business' }),
    });
    await page.reload();
    await addEndpoint(page, 'Upfleet app', `${base}/`, 'The web app itself, served by the control plane');
    await addEndpoint(page, 'Status API', `${base}/api/public/packages`, 'Public packages endpoint');
    await addEndpoint(page, 'Docs site', `${base}/about`);
    await addEndpoint(page, 'Payments API', `${base}/api/users/payments`, 'Answers 401 without a key: shows a down row'); // the dashboard's red row
    const token = await page.evaluate<string>('localStorage.getItem("accessToken")');
    const list = (await (await fetch(`${base}/api/users/endpoints-with-uptime`, { headers: { authorization: `Bearer ${token}` } })).json()) as {
      data: Array<Record<string, unknown>>;
    };
    for (const e of list.data) {
      await fetch(`${base}/api/users/endpoints/${String(e.url_id)}`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ ...e, response_time: true, ping_host: true }),
      });
    }
    await page.goto(`${base}/alert-settings`);
    for (const [platform, field, value] of [
      ['email', 'Email Address', 'ops@example.com'],
      ['slack', 'Bot Token', 'xoxb-demo-token'],
      ['webhook', 'Webhook URL', 'https://hooks.example.com/upfleet'],
    ] as const) {
      await page.getByRole('button', { name: 'Add Alert Method' }).click();
      const d = page.getByRole('dialog', { name: 'Add Alert Method' });
      await d.getByLabel('Platform').selectOption(platform);
      await d.getByLabel(field).fill(value);
      if (platform === 'slack') await d.getByLabel('Channel').fill('#alerts');
      await d.getByRole('button', { name: 'Add Alert Method' }).click();
      await d.waitFor({ state: 'detached' });
    }
    await page.waitForTimeout(60_000); // let the embedded agent record a few checks (every 10 s)

    const shots: Array<[string, string, (p: Page) => Promise<void>]> = [
      ['home', '/', async () => undefined],
      ['pricing', '/pricing', async (p) => void (await p.locator('.pricing-card').first().waitFor())],
      ['dashboard', '/dashboard', async (p) => void (await p.getByTestId('endpoint-row').first().waitFor())],
      ['graphs', '/dashboard', async (p) => {
        await p.getByTestId('endpoint-row').first().waitFor();
        await openGraphsWithData(p, 'Upfleet app');
        await p.waitForTimeout(800);
      }],
      ['alert-settings', '/alert-settings', async (p) => void (await p.getByTestId('alert-method-row').first().waitFor())],
      ['profile', '/profile', async (p) => {
        await p.getByLabel('Username').waitFor();
        await p.getByText('No active subscription found').waitFor();
      }],
    ];
    for (const [size, viewport] of [['desktop', { width: 1440, height: 900 }], ['phone', { width: 375, height: 812 }]] as const) {
      await page.setViewportSize(viewport);
      for (const [name, route, ready] of shots) {
        await page.goto(`${base}${route}`);
        await ready(page);
        await page.waitForTimeout(300);
        const file = path.join(out, `${name}-${size}.png`);
        await page.screenshot({ path: file, fullPage: name !== 'graphs' });
        console.log(`wrote ${path.relative(REPO_ROOT, file)}`);
      }
    }
  } finally {
    await browser.close();
    await stack.stop();
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
