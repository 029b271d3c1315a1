// Status page benchmark: a page of 50 components whose endpoints have 90 days of 1-minute
// HTTP results in 3 regions (19.4 M rows, generated inside chDB with numbers(); the materialized
// views fill the rollups), served by the real control plane in a child process. Prints p50/p99 and
// requests/s of GET /api/public/status/{slug} (JSON) and GET /status/{slug} (HTML):
//   cold: every request after a change to the page (a report update), so nothing is cached;
//   warm: the cached view, `--concurrency` clients for `--seconds`.
// Run: npm run bench:status-page -- [--components 50] [--days 90] [--cold 100] [--seconds 10] [--concurrency 16]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { Pool } from 'undici';
import { createResultStore } from '../control-plane/src/results/clickhouse-store';
import { dailyUptimeFrom } from '../control-plane/src/results/status-queries';
import { startStack } from '../tests/helpers/start-stack';

const { values } = parseArgs({
  options: {
    components: { type: 'string', default: '50' },
    days: { type: 'string', default: '90' },
    cold: { type: 'string', default: '100' },
    seconds: { type: 'string', default: '10' },
    concurrency: { type: 'string', default: '16' },
  },
});
const COMPONENTS = Number(values.components);
const DAYS = Number(values.days);
const COLD = Number(values.cold);
const SECONDS = Number(values.seconds);
const CONCURRENCY = Number(values.concurrency);
const MIN = 60_000;
const DAY = 86_400_000;
const REGIONS = ['EU-Germany', 'US-Virginia', 'AP-Singapore'];

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
};

// 1. Seed chDB in this process under the data dir the control plane will open (endpoint ids 1..N:
//    a fresh SQLite gives the endpoints created below exactly these ids).
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'upfleet-bench-status-'));
const store = createResultStore({ clickhouseUrl: null, dataDir, logger: pino({ level: 'warn' }) });
await store.init();
const now = Math.floor(Date.now() / MIN) * MIN;
const seedStarted = performance.now();
const CHUNK_DAYS = 9; // an insert may touch at most 10 daily partitions
for (let ep = 1; ep <= COMPONENTS; ep++) {
  for (let d = 0; d < DAYS; d += CHUNK_DAYS) {
    const minutes = Math.min(CHUNK_DAYS, DAYS - d) * 1440;
    await store.command(
      `INSERT INTO ${store.database}.check_results
         (ts, endpoint_id, kind, region, ok, phase, status_code, dns_ms, connect_ms, tls_ms, ttfb_ms, total_ms, error, retention_days, result_id, agent_id)
       SELECT
         fromUnixTimestamp64Milli({from:Int64} + intDiv(number, 3) * 60000 + 137, 'UTC') AS ts,
         {ep:UInt64}, 'http', {regions:Array(String)}[(number % 3) + 1],
         (cityHash64(number, {ep:UInt64}) % 500) != 0 AS ok, if(ok, '', 'http'), if(ok, 200, 503),
         1.5, 4.2, 9.8, 60.1, toFloat32(80 + (cityHash64(number, 1) % 400) / 10), if(ok, '', 'HTTP 503'), 365, '', 'bench'
       FROM numbers({rows:UInt64})`,
      { from: now - DAYS * DAY + d * DAY, ep, rows: minutes * 3, regions: REGIONS },
    );
  }
}
const rows = await store.countResults();
// The page's one ClickHouse query alone (what a cold request waits for), 90 days in UTC+2.
{
  const source = dailyUptimeFrom(store);
  const ids = Array.from({ length: COMPONENTS }, (_, i) => i + 1);
  const times: number[] = [];
  for (let i = 0; i < 23; i++) {
    const t = performance.now();
    await source.dailyUptime(ids, now - DAYS * DAY, now, 'Europe/Berlin');
    if (i >= 3) times.push(performance.now() - t);
  }
  console.log(`daily-uptime query alone (${COMPONENTS} endpoints, ${DAYS} days, hour rollup): p50 ${pct(times, 50).toFixed(1)} ms, p99 ${pct(times, 99).toFixed(1)} ms`);
}
console.log(`seeded ${rows.toLocaleString('en-US')} results (${COMPONENTS} endpoints x ${DAYS} days x 1-minute x ${REGIONS.length} regions) in ${((performance.now() - seedStarted) / 1000).toFixed(1)} s`);
await store.close();

// 2. The control plane on that data dir; one Business account, N endpoints, a page with them.
// NODE_ENV=production as the systemd unit and the Dockerfile run it (React's production build renders ~3x faster).
const stack = await startStack({ dataDir, env: { NODE_ENV: 'production' } });
const pool = new Pool(stack.baseUrl, { connections: CONCURRENCY });
async function call(method: string, p: string, body?: unknown, token?: string): Promise<any> {
  const res = await pool.request({
    method: method, path: p,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.body.text();
  if (res.statusCode >= 400) throw new Error(`${method} ${p}: ${res.statusCode} ${text}`);
  return JSON.parse(text);
}
/** As a browser asks (gzip accepted); the body is counted, not decompressed. */
async function get(p: string): Promise<number> {
  const res = await pool.request({ method: 'GET', path: p, headers: { 'accept-encoding': 'gzip, deflate, br' } });
  const buf = await res.body.arrayBuffer();
  if (res.statusCode !== 200) throw new Error(`GET ${p}: ${res.statusCode}`);
  return buf.byteLength;
}

try {
  const signup = await call('POST', '/api/auth/signup', { username: 'benchuser', email: 'bench@example.com', password: 'benchmark pw' });
  const token = signup.data.accessToken as string;
  await call('POST', '/api/admin/users/set-package', { email: 'bench@example.com', package: 'Business' }, stack.adminToken);
  const ids: number[] = [];
  for (let i = 0; i < COMPONENTS; i++) {
    ids.push((await call('POST', '/api/users/endpoints', { name: `Service ${i + 1}`, url: `https://svc${i + 1}.example.com/`, regions: ['EU-Germany'], response_code: true }, token)).data.url_id);
  }
  if (ids[0] !== 1 || ids.at(-1) !== COMPONENTS) throw new Error(`endpoint ids ${ids[0]}..${ids.at(-1)} do not match the seeded 1..${COMPONENTS}`);
  const page = (await call('POST', '/api/users/status-pages', {
    slug: 'bench', title: 'Bench status', timezone: 'UTC+2',
    components: ids.map((id, i) => ({ name: `Service ${i + 1}`, endpoint_id: id, group: `Group ${Math.floor(i / 10) + 1}` })),
  }, token)).data;
  const report = (await call('POST', `/api/users/status-pages/${page.id}/reports`, { title: 'Bench report', message: 'Seeded', affected: [{ component_id: page.components[0].component_id, impact: 'degraded' }] }, token)).data;
  const check = await call('GET', '/api/public/status/bench');
  const withData = check.data.components[0].days.filter((d: { uptime: number | null }) => d.uptime !== null).length;
  console.log(`page: ${check.data.components.length} components, ${check.data.components[0].days.length} days each (${withData} with data), uptime_90d of the first ${check.data.components[0].uptime_90d} %`);

  for (const [label, p] of [['JSON /api/public/status/bench', '/api/public/status/bench'], ['HTML /status/bench', '/status/bench']] as const) {
    // Cold: a report update before each request makes the cached view stale (the update is not timed).
    const cold: number[] = [];
    let bytes = 0;
    for (let i = 0; i < COLD; i++) {
      await call('PUT', `/api/users/status-pages/${page.id}/reports/${report.report_id}`, { title: `Bench report ${i}` }, token);
      const t = performance.now();
      bytes = await get(p);
      cold.push(performance.now() - t);
    }
    console.log(`${label.padEnd(32)} cold: ${COLD} requests, p50 ${pct(cold, 50).toFixed(1)} ms, p99 ${pct(cold, 99).toFixed(1)} ms, max ${Math.max(...cold).toFixed(1)} ms, ${(1000 / (cold.reduce((a, b) => a + b, 0) / COLD)).toFixed(0)} req/s one at a time; ${(bytes / 1000).toFixed(0)} kB gzipped`);
    // Warm: the cached view.
    for (let i = 0; i < 50; i++) await get(p);
    const lat: number[] = [];
    const end = performance.now() + SECONDS * 1000;
    const started = performance.now();
    await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < end) {
        const t = performance.now();
        await get(p);
        lat.push(performance.now() - t);
      }
    }));
    const elapsed = (performance.now() - started) / 1000;
    console.log(`${label.padEnd(32)} warm: ${lat.length} requests in ${elapsed.toFixed(1)} s = ${(lat.length / elapsed).toFixed(0)} req/s, p50 ${pct(lat, 50).toFixed(2)} ms, p99 ${pct(lat, 99).toFixed(2)} ms (concurrency ${CONCURRENCY})`);
  }
} finally {
  await pool.close();
  await stack.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
