// Browser checks against real pages on loopback with Debian's Chromium: a login form, a page whose
// bundle throws, a page that never finishes loading, a page that loads a private address, and a
// page that remembers a visitor by cookie.
import { readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserStepSpec } from '@upfleet/proto';
import { createHostResolver } from '../resolve';
import { browserSupport } from './support';
import { runBrowserCheck, type BrowserRunOptions } from './run-browser';

const CHROMIUM = '/usr/bin/chromium';
const PAGES: Record<string, string> = {
  '/login': `<!doctype html><title>Sign in</title><form action="/welcome" method="post">
    <input id="user" name="user"><input id="password" name="password" type="password"><button type="submit">Sign in</button></form>`,
  '/throws': `<!doctype html><title>Shop</title><p id="cart">Cart</p><script>throw new Error('bundle exploded')</script>`,
  // random pixels: a PNG of the viewport is far over 300 kB
  '/noise': `<!doctype html><title>Noise</title><body style="margin:0"><canvas id="c" width="1280" height="800"></canvas><script>
    const c = document.getElementById('c').getContext('2d'); const img = c.createImageData(1280, 800);
    for (let i = 0; i < img.data.length; i++) img.data[i] = (i % 4 === 3) ? 255 : Math.floor(Math.random() * 256);
    c.putImageData(img, 0, 0);</script>`,
  '/private': `<!doctype html><title>Public</title><p>hello</p><img src="http://169.254.169.254/latest/meta-data/">`,
};

let server: http.Server;
let base: string;
const posted: string[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/welcome' && req.method === 'POST') {
      let body = '';
      req.on('data', (c) => { body += c; });
      req.on('end', () => {
        posted.push(body);
        const ok = body.includes('password=hunter2');
        res.writeHead(ok ? 303 : 401, ok ? { location: '/home' } : { 'content-type': 'text/html' }).end(ok ? '' : '<p>Wrong password</p>');
      });
      return;
    }
    if (path === '/home') return void res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>Dashboard</title><h1 id="hi">Welcome back, ada</h1>');
    if (path === '/slow') {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.write('<!doctype html><title>Slow</title><p>loading'); // never ends: the load event never fires
      return;
    }
    if (path === '/visit') {
      const seen = /visited=1/.test(req.headers.cookie ?? '');
      return void res.writeHead(200, { 'content-type': 'text/html', 'set-cookie': 'visited=1; Max-Age=3600' })
        .end(`<!doctype html><title>Visit</title><p id="v">${seen ? 'returning visitor' : 'first visit'}</p>`);
    }
    const page = PAGES[path];
    if (!page) return void res.writeHead(404).end('not found');
    res.writeHead(200, { 'content-type': 'text/html' }).end(page);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});

const step = (s: Partial<BrowserStepSpec> & { action: string }): BrowserStepSpec => ({
  url: '', selector: '', value: '', secret: false, key: '', text: '', state: '', contains: '', equals: '', name: '', ...s,
});
const run = (path: string, steps: Array<Partial<BrowserStepSpec> & { action: string }>, o: Partial<BrowserRunOptions> = {}) => runBrowserCheck({
  url: `${base}${path}`, steps: steps.map(step), timeoutMs: 20_000, chromiumPath: CHROMIUM, resolver: createHostResolver(),
  // loopback is the lab here; the metadata address stays private
  allowPrivateTargets: false, isPrivate: (a) => a.startsWith('169.254.'), ...o,
});

/** Processes whose process group is `pgid` (the browser's own group, as Playwright starts it). */
function groupMembers(pgid: number): number[] {
  const out: number[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[2]) === pgid && fields[0] !== 'Z') out.push(Number(d));
    } catch { /* gone meanwhile */ }
  }
  return out;
}

describe.skipIf(!browserSupport(CHROMIUM).ok)('browser checks with Chromium', () => {
  it('signs in through a login form with a secret password: every step passes, timings and a screenshot come back, the secret never does', async () => {
    const r = await run('/login', [
      { action: 'expect_title', contains: 'Sign in' },
      { action: 'fill', selector: '#user', value: 'ada' },
      { action: 'fill', selector: '#password', value: 'hunter2', secret: true },
      { action: 'click', selector: 'role=button[name="Sign in"]' },
      { action: 'wait_for', selector: '#hi', state: 'visible' },
      { action: 'expect_text', selector: '#hi', contains: 'Welcome back' },
      { action: 'expect_text', equals: 'Welcome back, ada' },
      { action: 'expect_url', contains: '/home' },
      { action: 'press', key: 'Tab' },
      { action: 'wait_for', text: 'Welcome back' },
      { action: 'expect_no_console_errors' },
      { action: 'screenshot', name: 'dashboard' },
      { action: 'goto', url: `${base}/login` },
      { action: 'click', selector: 'text=Sign in' },
    ]);
    expect(r.error).toBe('');
    expect(r).toMatchObject({ ok: true, phase: '', status_code: 200 });
    expect(r.step_ms).toHaveLength(14);
    expect(r.load_ms).toBeGreaterThan(0);
    expect(r.dom_content_loaded_ms).toBeGreaterThan(0);
    expect(r.total_ms).toBeGreaterThan(0);
    expect(posted.some((b) => b.includes('password=hunter2'))).toBe(true);
    expect(r.screenshots).toHaveLength(1);
    const shot = r.screenshots![0];
    expect(shot).toMatchObject({ name: 'dashboard', mime: 'image/png', step: 12 });
    expect(shot.data.subarray(1, 4).toString()).toBe('PNG');
    expect(shot.data.length).toBeLessThanOrEqual(300 * 1024);
    expect(JSON.stringify({ ...r, screenshots: [] })).not.toContain('hunter2');
  }, 90_000);

  it.each([
    ['click', { action: 'click', selector: '#missing' }, /step 1 \(click #missing\): .*Timeout/],
    ['expect_title', { action: 'expect_title', contains: 'Checkout' }, /step 1 \(expect_title Checkout\): title "Sign in" does not contain "Checkout"/],
    ['expect_url', { action: 'expect_url', contains: '/done' }, /step 1 \(expect_url \/done\): URL ".*\/login" does not contain "\/done"/],
    ['expect_text', { action: 'expect_text', selector: 'button', equals: 'Log in' }, /step 1 \(expect_text button\): text "Sign in" does not equal "Log in"/],
    ['goto', { action: 'goto', url: 'http://127.0.0.1:1/nothing' }, /step 1 \(goto http:\/\/127\.0\.0\.1:1\/nothing\): net::ERR_/],
  ] as const)('a failing %s step fails the check, names the step and its reason, with a failure screenshot', async (_name, s, reason) => {
    const r = await run('/login', [s], { timeoutMs: 8000 });
    expect(r).toMatchObject({ ok: false, phase: 'step', failed_step: 1, failed_action: s.action });
    expect(r.error).toMatch(reason);
    expect(r.screenshots?.map((x) => x.name)).toEqual(['failure']);
  }, 60_000);

  it('a screenshot too large as PNG comes as a WebP within 300 kB', async () => {
    const r = await run('/noise', [{ action: 'screenshot', name: 'noise' }]);
    expect(r.error).toBe('');
    const shot = r.screenshots![0];
    expect(shot.mime).toBe('image/webp');
    expect(shot.data.subarray(8, 12).toString()).toBe('WEBP');
    expect(shot.data.length).toBeLessThanOrEqual(300 * 1024);
  }, 60_000);

  it('a page whose bundle throws passes a text check but fails expect_no_console_errors, with the error listed', async () => {
    const r = await run('/throws', [{ action: 'expect_text', contains: 'Cart' }, { action: 'expect_no_console_errors' }]);
    expect(r).toMatchObject({ ok: false, failed_step: 2, failed_action: 'expect_no_console_errors' });
    expect(r.error).toMatch(/^step 2 \(expect_no_console_errors\): 1 console error, first: .*bundle exploded/);
    expect(r.console_errors).toEqual([expect.stringContaining('bundle exploded')]);
  }, 60_000);

  it('refuses a request the page makes to a private address and fails the page load with that reason', async () => {
    const r = await run('/private', [{ action: 'expect_text', contains: 'hello' }]);
    expect(r).toMatchObject({ ok: false, phase: 'connect', failed_step: 0, failed_action: 'goto' });
    expect(r.error).toMatch(/^page load \(goto .*\/private\): request to http:\/\/169\.254\.169\.254\/latest\/meta-data\/ refused: target address not allowed/);
    expect(r.failed_requests?.join('\n')).toMatch(/169\.254\.169\.254.*ERR_BLOCKED_BY_CLIENT/);
    // allowed when private targets are
    const allowed = await run('/private', [{ action: 'expect_text', contains: 'hello' }], { allowPrivateTargets: true, timeoutMs: 15_000 });
    expect(allowed.error).not.toMatch(/refused/);
  }, 90_000);

  it('kills a run that hangs at its timeout, leaving no browser process behind', async () => {
    let pid = 0;
    const started = Date.now();
    const r = await run('/slow', [], { timeoutMs: 4000, onBrowserPid: (p) => { pid = p; } });
    expect(r).toMatchObject({ ok: false, phase: 'timeout', failed_step: 0, failed_action: 'goto' });
    expect(r.error).toMatch(/^page load \(goto .*\/slow\): timeout after 4000 ms/);
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(pid).toBeGreaterThan(0);
    expect(groupMembers(pid)).toEqual([]);
  }, 60_000);

  it('two runs share no cookies: each is a first visit', async () => {
    const a = await run('/visit', [{ action: 'expect_text', selector: '#v', equals: 'first visit' }, { action: 'goto', url: `${base}/visit` }, { action: 'expect_text', selector: '#v', equals: 'returning visitor' }]);
    expect(a.error).toBe('');
    const b = await run('/visit', [{ action: 'expect_text', selector: '#v', equals: 'first visit' }]);
    expect(b.error).toBe('');
    expect(b.ok).toBe(true);
  }, 90_000);
});
