// One browser check run: a Chromium of its own (fresh temporary profile, a fresh context: no cookies,
// cache or storage shared with any other check), downloads off, every request the page makes held
// to the private-target rule, and a hard deadline that kills the browser's whole process group.
// Returns result fields; never throws.
import type { BrowserStepSpec, Screenshot } from '@upfleet/proto';
import { LIMITS_BROWSER, describeStep, stepLabel } from '@upfleet/proto/browser-steps';
import type { BrowserContext, BrowserServer, Page } from 'playwright-core';
import { refusedTarget, type HostResolver } from '../resolve';
import type { ProbedFields } from '../prober';
import { round } from '../types';
import { loadPlaywright } from './playwright';
import { takeScreenshot } from './screenshot';

export interface BrowserRunOptions {
  url: string;
  steps: BrowserStepSpec[];
  timeoutMs: number;
  chromiumPath: string;
  resolver: HostResolver;
  allowPrivateTargets: boolean;
  /** which addresses count as private (tests on loopback); isPrivateAddress by default */
  isPrivate?: (address: string) => boolean;
  userAgent?: string;
  /** told the browser's process id once it runs (tests check the process table with it) */
  onBrowserPid?: (pid: number) => void;
}

/** A step that failed: its 0-based index (-1: the page load), action and reason. */
class StepFailure extends Error {
  constructor(readonly index: number, readonly action: string, reason: string, readonly phase: 'step' | 'connect' | 'http' = 'step') {
    super(reason);
  }
}

const clip = (s: string, n: number = LIMITS_BROWSER.listedChars) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/** Playwright's errors carry a call log after the first line; a user needs the first line, without the API name. */
function reasonOf(err: unknown): string {
  const first = String((err as Error)?.message ?? err).split('\n')[0].replace(/^[a-zA-Z]+\.[a-zA-Z]+: /, '').trim();
  return clip(first || 'failed');
}

export async function runBrowserCheck(o: BrowserRunOptions): Promise<ProbedFields> {
  const started = performance.now();
  const elapsed = () => performance.now() - started;
  const remaining = () => Math.max(1, o.timeoutMs - elapsed());
  const secrets = o.steps.filter((s) => s.action === 'fill' && s.secret && s.value).map((s) => s.value);
  // A secret typed into a form can come back in a URL, a console line or an error: never report it.
  const mask = (s: string) => secrets.reduce((acc, v) => acc.split(v).join('****'), s);

  const consoleErrors: string[] = [];
  const failedRequests: string[] = [];
  const blocked: string[] = [];
  const screenshots: Screenshot[] = [];
  const stepMs: number[] = [];
  const fields: ProbedFields = { ok: false, phase: '', error: '', status_code: 0, ttfb_ms: 0, total_ms: 0 };
  let server: BrowserServer | undefined;
  let timedOut = false;
  let page: Page | undefined;
  let context: BrowserContext | undefined;

  const kill = async () => {
    try { await server?.kill(); } catch { /* already gone */ }
  };
  const deadline = setTimeout(() => { timedOut = true; void kill(); }, o.timeoutMs);

  /** The private-target rule on one request URL: the refusal, or null when it may go. */
  const refusal = async (raw: string): Promise<string | null> => {
    let u: URL;
    try { u = new URL(raw); } catch { return `refused ${clip(raw, 100)}: not a URL`; }
    if (u.protocol === 'data:' || u.protocol === 'blob:' || u.protocol === 'about:') return null;
    if (u.protocol !== 'http:' && u.protocol !== 'https:' && u.protocol !== 'ws:' && u.protocol !== 'wss:') return `refused ${clip(raw, 100)}: only http and https`;
    if (o.allowPrivateTargets) return null;
    const r = await o.resolver.resolve(u.hostname);
    if (!r.ok) return null; // the browser meets the same DNS failure and reports it
    const why = refusedTarget({ allowPrivateTargets: false, isPrivate: o.isPrivate }, u.hostname, r.address);
    return why ? `request to ${clip(raw, 120)} refused: ${why}` : null;
  };
  const throwIfBlocked = (index: number, action: string) => {
    if (blocked.length) throw new StepFailure(index, action, blocked[0], 'connect');
  };

  try {
    const { chromium } = await loadPlaywright();
    server = await chromium.launchServer({
      executablePath: o.chromiumPath, headless: true, timeout: remaining(), handleSIGINT: false, handleSIGTERM: false, handleSIGHUP: false,
      // A check runs no user code and loads public pages; --no-sandbox only because agents often run in containers without user namespaces.
      args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-sync', '--metrics-recording-only', '--mute-audio'],
    });
    if (timedOut) await kill();
    const pid = server.process().pid;
    if (pid) o.onBrowserPid?.(pid);
    const browser = await chromium.connect(server.wsEndpoint(), { timeout: remaining() });
    context = await browser.newContext({
      acceptDownloads: false, serviceWorkers: 'block', viewport: { width: 1280, height: 800 }, ignoreHTTPSErrors: false,
      ...(o.userAgent ? { userAgent: o.userAgent } : {}),
    });
    await context.route('**/*', async (route) => {
      const why = await refusal(route.request().url());
      if (why) {
        blocked.push(mask(why));
        return route.abort('blockedbyclient').catch(() => {});
      }
      return route.continue().catch(() => {});
    });
    await context.routeWebSocket(() => true, async (ws) => {
      const why = await refusal(ws.url());
      if (why) {
        blocked.push(mask(why));
        return ws.close({ code: 1008, reason: 'refused' });
      }
      ws.connectToServer();
    });
    page = await context.newPage();
    const p = page;
    p.on('console', (m) => { if (m.type() === 'error' && consoleErrors.length < LIMITS_BROWSER.listed) consoleErrors.push(clip(mask(m.text()))); });
    p.on('pageerror', (e) => { if (consoleErrors.length < LIMITS_BROWSER.listed) consoleErrors.push(clip(mask(e.message.split('\n')[0]))); });
    p.on('requestfailed', (r) => {
      if (failedRequests.length < LIMITS_BROWSER.listed) failedRequests.push(clip(mask(`${r.method()} ${r.url()} ${r.failure()?.errorText ?? 'failed'}`)));
    });
    // Route handlers see only a redirect chain's first request: the hops are checked here.
    p.on('request', (r) => {
      if (!r.redirectedFrom()) return;
      void refusal(r.url()).then((why) => { if (why) blocked.push(mask(why)); });
    });

    // The page load is the run's first step (index -1: "page load").
    const t0 = performance.now();
    let response;
    try {
      response = await p.goto(o.url, { waitUntil: 'load', timeout: remaining() });
    } catch (err) {
      throwIfBlocked(-1, 'goto');
      throw new StepFailure(-1, 'goto', reasonOf(err), 'http');
    }
    throwIfBlocked(-1, 'goto');
    fields.status_code = response?.status() ?? 0;
    if (fields.status_code >= 400) throw new StepFailure(-1, 'goto', `HTTP ${fields.status_code}`, 'http');
    const nav = await p.evaluate<{ ttfb: number; dcl: number; load: number; lcp: number }>(NAVIGATION_TIMINGS);
    Object.assign(fields, { ttfb_ms: round(nav.ttfb), dom_content_loaded_ms: round(nav.dcl), load_ms: round(nav.load), lcp_ms: round(nav.lcp) });
    void t0;

    for (const [i, step] of o.steps.entries()) {
      const s0 = performance.now();
      try {
        // A step gives up before the run's deadline, so it fails as itself (with a screenshot), not as a timeout.
        await runStep(p, step, { timeout: Math.max(500, remaining() - 1500), consoleErrors, screenshots, index: i, secretSelectors: secretSelectors(o.steps) });
      } catch (err) {
        stepMs.push(round(performance.now() - s0));
        throwIfBlocked(i, step.action);
        if (err instanceof StepFailure) throw err;
        throw new StepFailure(i, step.action, mask(reasonOf(err)));
      }
      stepMs.push(round(performance.now() - s0));
      throwIfBlocked(i, step.action);
    }
    fields.ok = true;
  } catch (err) {
    const f = err instanceof StepFailure ? err : new StepFailure(-1, 'goto', mask(reasonOf(err)), 'http');
    const step = f.index >= 0 ? o.steps[f.index] : { action: 'goto', url: o.url } as BrowserStepSpec;
    const where = f.index >= 0 ? `${stepLabel(f.index, describeStep(step))}` : `page load (${describeStep(step)})`;
    fields.failed_step = f.index + 1;
    fields.failed_action = f.action;
    if (timedOut) {
      fields.phase = 'timeout';
      fields.error = `${where}: timeout after ${o.timeoutMs} ms`;
    } else {
      fields.phase = f.phase;
      fields.error = `${where}: ${f.message}`;
      if (page) {
        // A page still settling on its error document can refuse the first capture: one more try.
        const capture = () => takeScreenshot(page!, 'failure', f.index + 1, secretSelectors(o.steps), Math.min(5000, remaining()));
        const shot = await capture().catch(async () => {
          await new Promise((r) => setTimeout(r, 300));
          return capture().catch(() => null);
        });
        if (shot) screenshots.push(shot);
      }
    }
  } finally {
    clearTimeout(deadline);
    await context?.close().catch(() => {});
    await kill();
  }
  fields.total_ms = round(elapsed());
  return { ...fields, step_ms: stepMs, console_errors: consoleErrors, failed_requests: failedRequests, screenshots };
}

const secretSelectors = (steps: BrowserStepSpec[]) => steps.filter((s) => s.action === 'fill' && s.secret).map((s) => s.selector);

/**
 * Runs in the page: navigation timings (ms from the navigation's start) and LCP (0 when none). A
 * string, so the agent's TypeScript need not know the DOM's types.
 */
const NAVIGATION_TIMINGS = `(async () => {
  const n = performance.getEntriesByType('navigation')[0];
  const lcp = await new Promise((resolve) => {
    try {
      new PerformanceObserver((list) => { const e = list.getEntries(); resolve(e.length ? e[e.length - 1].startTime : 0); })
        .observe({ type: 'largest-contentful-paint', buffered: true });
    } catch { resolve(0); }
    setTimeout(() => resolve(0), 200);
  });
  return n ? { ttfb: Math.max(0, n.responseStart - n.requestStart), dcl: n.domContentLoadedEventEnd, load: n.loadEventEnd, lcp } : { ttfb: 0, dcl: 0, load: 0, lcp };
})()`;

interface StepContext {
  timeout: number;
  consoleErrors: string[];
  screenshots: Screenshot[];
  index: number;
  secretSelectors: string[];
}

const normalise = (s: string) => s.replace(/\s+/g, ' ').trim();

/** Polls `read` until `ok` holds or the step's time (at most 5 s) is up; the last value read. */
async function until(read: () => Promise<string>, ok: (v: string) => boolean, timeout: number): Promise<{ ok: boolean; value: string }> {
  const end = Date.now() + Math.min(timeout, 5000);
  let value = '';
  for (;;) {
    value = await read();
    if (ok(value)) return { ok: true, value };
    if (Date.now() >= end) return { ok: false, value };
    await new Promise((r) => setTimeout(r, 100));
  }
}

const quote = (s: string) => JSON.stringify(clip(s, 80));

async function runStep(page: Page, s: BrowserStepSpec, c: StepContext): Promise<void> {
  const fail = (reason: string) => { throw new StepFailure(c.index, s.action, reason); };
  const timeout = c.timeout;
  switch (s.action) {
    case 'goto': {
      const r = await page.goto(s.url, { waitUntil: 'load', timeout });
      if (r && r.status() >= 400) fail(`HTTP ${r.status()}`);
      return;
    }
    case 'click':
      await page.locator(s.selector).first().click({ timeout });
      return;
    case 'fill':
      await page.locator(s.selector).first().fill(s.value, { timeout });
      return;
    case 'press':
      if (s.selector) await page.locator(s.selector).first().press(s.key, { timeout });
      else await page.keyboard.press(s.key);
      return;
    case 'wait_for': {
      const state = (s.state || 'visible') as 'visible' | 'hidden' | 'attached' | 'detached';
      const target = s.selector ? page.locator(s.selector) : page.getByText(s.text);
      await target.first().waitFor({ state, timeout });
      return;
    }
    case 'expect_text': {
      const read = async () => normalise(s.selector ? (await page.locator(s.selector).first().innerText({ timeout })) : await page.locator('body').innerText({ timeout }));
      const want = normalise(s.equals || s.contains);
      const r = await until(read, (v) => (s.equals ? v === want : v.includes(want)), timeout);
      if (!r.ok) fail(`text ${quote(r.value)} ${s.equals ? 'does not equal' : 'does not contain'} ${quote(want)}`);
      return;
    }
    case 'expect_title': {
      const r = await until(() => page.title(), (v) => v.includes(s.contains), timeout);
      if (!r.ok) fail(`title ${quote(r.value)} does not contain ${quote(s.contains)}`);
      return;
    }
    case 'expect_url': {
      const r = await until(() => Promise.resolve(page.url()), (v) => v.includes(s.contains), timeout);
      if (!r.ok) fail(`URL ${quote(r.value)} does not contain ${quote(s.contains)}`);
      return;
    }
    case 'expect_no_console_errors':
      if (c.consoleErrors.length) fail(`${c.consoleErrors.length} console error${c.consoleErrors.length === 1 ? '' : 's'}, first: ${c.consoleErrors[0]}`);
      return;
    case 'screenshot': {
      const shot = await takeScreenshot(page, s.name, c.index + 1, c.secretSelectors, timeout);
      if (!shot) fail(`screenshot larger than ${LIMITS_BROWSER.screenshotBytes / 1024} kB even as a small WebP`);
      c.screenshots.push(shot!);
      return;
    }
    default:
      fail(`unknown action ${s.action}`);
  }
}
