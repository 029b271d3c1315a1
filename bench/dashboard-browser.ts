// Time to a usable dashboard in Chromium with N endpoints (default 10,000) in one account: from
// navigation start to the first page of rows drawn with their live state, the summary counts and
// the search box ready. Real control plane (child process), endpoints and their live state
// (30 recent checks, 1 in 10 down) written to its SQLite between a stop and a restart.
// Run: npx tsx bench/dashboard-browser.ts [--endpoints 10000] [--runs 7]
import crypto from 'node:crypto';
import path from 'node:path';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { startStack } from '../tests/helpers/start-stack';
import { ensureWebBuild, launchBrowser, signUp } from '../tests/e2e/screenshots';

const { values } = parseArgs({ options: { endpoints: { type: 'string', default: '10000' }, runs: { type: 'string', default: '7' } } });
const N = Number(values.endpoints);
const RUNS = Number(values.runs);

ensureWebBuild();
let stack = await startStack();
const browser = await launchBrowser();
try {
  const page = await browser.context.newPage();
  const account = { username: 'benchview', email: 'benchview@example.com', password: 'correct-horse-1' };
  await signUp(page, stack.baseUrl, account);
  await fetch(`${stack.baseUrl}/api/admin/users/set-package`, {
    method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${stack.adminToken}` },
    body: JSON.stringify({ email: account.email, package: 'Business' }),
  });
  await page.goto('about:blank');
  await stack.stop();

  const db = new Database(path.join(stack.dataDir, 'upfleet.db'));
  const userId = db.prepare('SELECT id FROM users WHERE email = ?').pluck().get(account.email) as number;
  const insert = db.prepare(`INSERT INTO endpoints (guid, user_id, name, url, description, regions, ping_host, cert_expiry, response_code, response_time)
    VALUES (?, ?, ?, ?, '', '["EU-Germany"]', 0, 0, 1, 1)`);
  const save = db.prepare('INSERT INTO endpoint_live (url_id, state) VALUES (?, ?)');
  const now = Date.now();
  db.transaction(() => {
    for (let i = 0; i < N; i++) {
      const id = Number(insert.run(crypto.randomUUID(), userId, `Endpoint ${i}`, `https://site${i}.example.com/`).lastInsertRowid);
      const down = i % 10 === 0;
      const recent = Array.from({ length: 30 }, (_, k) => ({ at: now - (30 - k) * 10_000 - i, ok: !(down && k > 26), ms: 80 + ((i * 7 + k) % 200), code: down && k > 26 ? 503 : 200 }));
      const last = recent[29];
      save.run(id, JSON.stringify({ kind: 'http', regions: { 'EU-Germany': { at: last.at, ok: last.ok, ms: last.ms, code: last.code, error: last.ok ? null : 'HTTP 503 from EU - Germany' } }, recent }));
    }
  })();
  db.close();
  stack = await startStack({ dataDir: stack.dataDir });

  // A new port is a new origin: sign in once, then load the dashboard once to warm caches
  // (server rendering, the browser's code cache), then measure.
  const base = stack.baseUrl;
  await page.goto(`${base}/login`);
  await page.getByLabel('Email').fill(account.email);
  await page.getByLabel('Password', { exact: true }).fill(account.password);
  await page.getByRole('button', { name: 'Sign In' }).click();
  await page.waitForURL(`${base}/dashboard`);
  const times: number[] = [];
  for (let run = 0; run <= RUNS; run++) {
    await page.goto('about:blank');
    const t0 = Date.now();
    await page.goto(`${base}/dashboard`);
    await page.getByTestId('endpoint-row').first().waitFor({ timeout: 60_000 });
    await page.getByTestId('count-down').waitFor();
    await page.getByLabel('Filter endpoints').waitFor();
    if (run > 0) times.push(Date.now() - t0);
  }
  const rows = await page.getByTestId('endpoint-row').count();
  const counts = await page.getByTestId('count-down').textContent();
  // Scrolling: frames over a full scroll of the drawn rows.
  const scroll = await page.evaluate<{ frames: number; p50: number; worst: number }>(`(async () => {
    const frames = [];
    let last = performance.now();
    for (let y = 0; y < document.body.scrollHeight; y += 200) {
      window.scrollTo(0, y);
      await new Promise((r) => requestAnimationFrame(r));
      const t = performance.now();
      frames.push(t - last);
      last = t;
    }
    frames.sort((a, b) => a - b);
    return { frames: frames.length, p50: frames[Math.floor(frames.length / 2)] ?? 0, worst: frames[frames.length - 1] ?? 0 };
  })()`);
  times.sort((a, b) => a - b);
  console.log(`${N.toLocaleString('en-US')} endpoints: ${rows} rows drawn, summary "${counts}"`);
  console.log(`time to usable dashboard over ${times.length} loads: median ${times[Math.floor(times.length / 2)]} ms, best ${times[0]} ms, worst ${times[times.length - 1]} ms (goal < 1,500 ms)`);
  console.log(`scrolling the page: ${scroll.frames} frames, median ${scroll.p50.toFixed(1)} ms, worst ${scroll.worst.toFixed(1)} ms per frame`);
} finally {
  await browser.close();
  await stack.stop();
}
