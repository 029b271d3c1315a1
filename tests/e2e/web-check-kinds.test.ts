// In Debian's chromium against the real control plane with its embedded agent: the
// endpoint form refuses a kind outside the plan with the SPEC message, then (Pro) creates a TCP
// check and an HTTP check with request options and an assertion, which the agent runs against
// local servers (the TCP server sees connections, the HTTP server sees the form's POST and header).
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startStack, type Stack } from '../helpers/start-stack';
import { ensureWebBuild, hasChromium, launchBrowser, signUp } from './screenshots';

const browserOk = hasChromium();
const d = browserOk ? describe : describe.skip;
const title = browserOk ? 'endpoint form check kinds in chromium' : 'endpoint form check kinds in chromium (skipped: /usr/bin/chromium is missing)';

const until = async (what: string, fn: () => boolean, ms = 45_000) => {
  const end = Date.now() + ms;
  while (!fn()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
};

d(title, () => {
  let stack: Stack;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let page: Page;
  let tcp: net.Server;
  let web: http.Server;
  let tcpConnections = 0;
  const posts: Array<{ method: string; key: string | undefined; body: string }> = [];

  beforeAll(async () => {
    ensureWebBuild();
    tcp = net.createServer((s) => {
      tcpConnections++;
      s.end();
    });
    await new Promise<void>((r) => tcp.listen(0, '127.0.0.1', r));
    web = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        posts.push({ method: req.method!, key: req.headers['x-api-key'] as string | undefined, body });
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
      });
    });
    await new Promise<void>((r) => web.listen(0, '127.0.0.1', r));
    stack = await startStack({ embeddedAgent: true, env: { ALLOW_PRIVATE_TARGETS: '1' } });
    browser = await launchBrowser();
    page = await browser.context.newPage();
    page.setDefaultTimeout(20_000);
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
    tcp?.close();
    web?.close();
  });

  it('Free refuses TCP with the SPEC message; Pro creates TCP and HTTP-with-options checks the agent runs', async () => {
    const base = stack.baseUrl;
    await signUp(page, base, { username: 'kinds', email: 'kinds@example.com', password: 'correct-horse-1' });
    await page.getByRole('button', { name: 'Add Endpoint' }).first().click();
    let dialog = page.getByRole('dialog', { name: 'Add Endpoint' });
    await dialog.getByRole('radio', { name: /TCP Port/ }).click();
    await dialog.getByText('The TCP Port monitoring feature is not available in your current plan. Please upgrade to enable this feature.').waitFor();
    expect(await dialog.getByRole('radio', { name: /HTTP/ }).isChecked()).toBe(true);
    await dialog.getByRole('button', { name: 'Cancel' }).click();

    const r = await fetch(`${base}/api/admin/users/set-package`, {
      method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${stack.adminToken}` },
      body: JSON.stringify({ email: 'kinds@example.com', package: 'Pro' }),
    });
    expect(r.status).toBe(200);
    await page.reload();

    // TCP
    await page.getByRole('button', { name: 'Add Endpoint' }).first().click();
    dialog = page.getByRole('dialog', { name: 'Add Endpoint' });
    await dialog.getByRole('radio', { name: /TCP Port/ }).click();
    await dialog.getByLabel('Name').fill('Database');
    await dialog.getByLabel('Host and port').fill(`127.0.0.1:${(tcp.address() as AddressInfo).port}`);
    await dialog.getByRole('button', { name: 'Add Endpoint' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByRole('heading', { name: 'Database', exact: true }).waitFor();
    await until('the agent to connect to the TCP target', () => tcpConnections > 0);

    // HTTP with a POST, a secret header, a body and an assertion
    await page.getByRole('button', { name: 'Add Endpoint' }).first().click();
    dialog = page.getByRole('dialog', { name: 'Add Endpoint' });
    await dialog.getByLabel('Name').fill('Search API');
    await dialog.getByLabel('URL').fill(`http://127.0.0.1:${(web.address() as AddressInfo).port}/search`);
    await dialog.getByText('Request options').click();
    await dialog.getByLabel('Method').selectOption('POST');
    await dialog.getByRole('button', { name: 'Add header' }).click();
    await dialog.getByLabel('Header 1 name').fill('X-Api-Key');
    await dialog.getByLabel('Header 1 value').fill('k-secret');
    await dialog.getByRole('checkbox', { name: 'Secret' }).check();
    await dialog.getByLabel(/Request body/).fill('{"q":"uptime"}');
    await dialog.getByRole('button', { name: 'Add assertion' }).click();
    await dialog.getByLabel('Assertion 1 source').selectOption('json_body');
    await dialog.getByLabel('Assertion 1 property').fill('status');
    await dialog.getByLabel('Assertion 1 target').fill('ok');
    await dialog.getByRole('button', { name: 'Add Endpoint' }).click();
    await dialog.getByText('A json_body assertion needs a JSON path such as $.status or $.items[0].id').waitFor();
    await dialog.getByLabel('Assertion 1 property').fill('$.status');
    await dialog.getByRole('button', { name: 'Add Endpoint' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByRole('heading', { name: 'Search API', exact: true }).waitFor();
    await until('the agent to POST the check', () => posts.some((p) => p.method === 'POST'));
    expect(posts.find((p) => p.method === 'POST')).toEqual({ method: 'POST', key: 'k-secret', body: '{"q":"uptime"}' });
  }, 180_000);
});
