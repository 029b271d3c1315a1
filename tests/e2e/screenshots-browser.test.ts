// A browser check that fails against a real page on loopback, seen in Debian's chromium: the
// agent's own prober runs the steps in Chromium (its screenshot is a real PNG), the result goes to
// a real control plane over gRPC as an agent sends it, and the graphs modal shows the failing step,
// the page's console error and the screenshot, which opens full size. The check runs here rather
// than on the agent's schedule (a browser check's first slot can be 5 minutes away).
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { grpc, loadAgentService, type AgentServiceClient, type AssignmentUpdate, type BatchAck, type CheckResult, type RegisterResponse } from '@upfleet/proto';
import { runBrowserCheck } from '../../agent/src/probers/browser/run-browser';
import { createHostResolver } from '../../agent/src/probers/resolve';
import { REPO_ROOT, startStack, type Stack } from '../helpers/start-stack';
import { CHROMIUM, ensureWebBuild, hasChromium, launchBrowser, signUp } from './screenshots';

const browserOk = hasChromium();
const d = browserOk ? describe : describe.skip;
const title = browserOk ? 'browser-check screenshots in chromium' : 'browser-check screenshots in chromium (skipped: /usr/bin/chromium is missing)';
const SHOTS = path.join(REPO_ROOT, 'docs', 'screenshots');

// The shop's page: its bundle throws, and it says "Out of stock" where the check expects "Checkout".
const PAGE = `<!doctype html><html><head><title>Shop</title></head><body style="font-family:sans-serif;background:#fff7ed">
<h1 style="color:#b91c1c">Out of stock</h1><p>Our shop is closed for maintenance.</p>
<script>window.cart.items.push(1)</script></body></html>`;

d(title, () => {
  let stack: Stack;
  let site: http.Server;
  let siteUrl: string;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let page: Page;
  let auth: Record<string, string>;
  const cspViolations: string[] = [];
  const account = { username: 'shopper', email: 'shopper@example.com', password: 'correct-horse-1' };

  beforeAll(async () => {
    ensureWebBuild();
    site = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE));
    await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
    siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}/`;
    stack = await startStack({ env: { ALLOW_PRIVATE_TARGETS: '1' } });
    browser = await launchBrowser();
    page = await browser.context.newPage();
    page.setDefaultTimeout(20_000);
    page.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) cspViolations.push(m.text());
    });
    await signUp(page, stack.baseUrl, account);
    await fetch(`${stack.baseUrl}/api/admin/users/set-package`, {
      method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${stack.adminToken}` },
      body: JSON.stringify({ email: account.email, package: 'Pro' }),
    });
    const token = await page.evaluate<string>("localStorage.getItem('accessToken') ?? ''");
    auth = { 'content-type': 'application/json', authorization: `Bearer ${token}` };
  }, 240_000);
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
    await new Promise((r) => site?.close(r));
  });

  /** An agent that can run browser checks, as the agent binary speaks to the control plane. */
  async function agent() {
    const admin = { 'content-type': 'application/json', authorization: `Bearer ${stack.adminToken}` };
    const t = ((await (await fetch(`${stack.baseUrl}/api/admin/agent-tokens`, { method: 'POST', headers: admin, body: JSON.stringify({ region: 'EU-Germany' }) })).json()) as { data: { token: string } }).data.token;
    const Ctor = loadAgentService();
    const c = new Ctor(`localhost:${stack.grpcPort}`, grpc.credentials.createSsl(fs.readFileSync(path.join(stack.dataDir, 'grpc-tls', 'ca.pem')))) as unknown as AgentServiceClient;
    const reg = await new Promise<RegisterResponse>((resolve, reject) =>
      c.Register({ bootstrap_token: t, region: 'EU-Germany', hostname: 'e2e', version: 't' }, (err, r) => (err ? reject(err) : resolve(r!))));
    const md = new grpc.Metadata();
    md.set('authorization', `Bearer ${reg.agent_id}.${reg.agent_secret}`);
    await new Promise<void>((resolve, reject) => c.Heartbeat({
      checks_owned: 0, checks_per_minute: 0, outbox_depth: 0, scheduling_lag_ms_p99: 0, outbox_dropped: 0, browser_checks: true,
    }, md, {}, (e) => (e ? reject(e) : resolve())));
    const updates: AssignmentUpdate[] = [];
    const watch = c.WatchAssignments({ known_version: 0, browser_checks: true }, md);
    watch.on('data', (u: AssignmentUpdate) => updates.push(u));
    watch.on('error', () => undefined);
    return {
      assignment: (checkId: string) => updates.flatMap((u) => u.snapshot?.assignments ?? u.delta?.upserts ?? []).find((a) => a.check_id === checkId),
      async send(results: CheckResult[]): Promise<BatchAck> {
        const stream = c.ReportResults(md);
        const ack = new Promise<BatchAck>((resolve, reject) => {
          stream.on('data', resolve);
          stream.on('error', reject);
        });
        stream.write({ batch_id: `e2e-${Date.now()}`, results });
        const a = await ack;
        stream.end();
        return a;
      },
      close() {
        watch.cancel();
        c.close();
      },
    };
  }

  it('the graphs modal shows the failing step, the console error and the real screenshot, which opens full size', async () => {
    const steps = [{ action: 'expect_text', selector: 'h1', contains: 'Checkout' }];
    const r = await fetch(`${stack.baseUrl}/api/users/endpoints`, { method: 'POST', headers: auth, body: JSON.stringify({ name: 'Shop checkout', kind: 'browser', url: siteUrl, regions: ['EU-Germany'], steps }) });
    expect(r.status).toBe(201);
    const id = ((await r.json()) as { data: { url_id: number } }).data.url_id;
    const a = await agent();
    try {
      const checkId = `${id}:browser:EU-Germany`;
      const deadline = Date.now() + 20_000;
      while (!a.assignment(checkId)) {
        if (Date.now() > deadline) throw new Error('the browser check was not assigned');
        await new Promise((res) => setTimeout(res, 100));
      }
      const assignment = a.assignment(checkId)!;
      const t = Date.now();
      const probed = await runBrowserCheck({
        url: assignment.url, steps: assignment.steps ?? [], timeoutMs: 20_000, chromiumPath: CHROMIUM, resolver: createHostResolver(), allowPrivateTargets: true,
      });
      expect(probed).toMatchObject({ ok: false, failed_step: 1, failed_action: 'expect_text' });
      expect(probed.screenshots?.[0]?.data.subarray(1, 4).toString()).toBe('PNG');
      const result = {
        check_id: checkId, endpoint_id: id, kind: 'CHECK_KIND_BROWSER', region: 'EU-Germany', ts_ms: t, result_id: `e2e-${t}`, retention_days: 30,
        phase: '', error: '', status_code: 0, dns_ms: 0, connect_ms: 0, tls_ms: 0, ttfb_ms: 0, total_ms: 0, cert_days_left: 0, cert_not_after_ms: 0,
        cert_issuer: '', cert_subject: '', ping_method: '', redirects: 0, ...probed,
      } as CheckResult;
      expect(await a.send([result])).toMatchObject({ ok: true });

      await page.goto(`${stack.baseUrl}/dashboard`);
      await page.getByRole('button', { name: 'View graphs for Shop checkout' }).click();
      const failure = page.getByTestId('browser-failure');
      await failure.waitFor();
      expect(await failure.textContent()).toContain('Step 1 (expect_text)');
      await page.getByRole('list', { name: 'Console errors' }).getByText(/Cannot read properties of undefined/).waitFor();
      const thumb = failure.getByRole('button', { name: /Open Screenshot "failure" at step 1/ });
      await thumb.waitFor();
      const img = thumb.locator('img');
      expect(await img.getAttribute('src')).toMatch(/^blob:/);
      // the image decoded: the CSP lets blob: images in, and the bytes are a picture of the page
      await expect.poll(async () => img.evaluate((el) => (el as unknown as { naturalWidth: number }).naturalWidth), { timeout: 10_000 }).toBeGreaterThan(100);
      await page.getByTestId('browser-failure').scrollIntoViewIfNeeded();
      await page.screenshot({ path: path.join(SHOTS, 'graphs-browser-desktop.png'), fullPage: false });
      await thumb.click();
      const full = page.getByTestId('screenshot-full');
      await full.waitFor();
      await expect.poll(async () => full.evaluate((el) => (el as unknown as { naturalWidth: number }).naturalWidth), { timeout: 10_000 }).toBeGreaterThan(100);
      expect(cspViolations).toEqual([]);
    } finally {
      a.close();
    }
  }, 120_000);
});
