// REST latency and throughput for dashboard and endpoints-with-uptime with N endpoints (default
// 1,000) in one account, against the real control plane (child process, embedded chDB, no agent).
// Every endpoint has its live state (status, last check, 30 recent checks, a tenth of
// them down), written to the stack's SQLite between a stop and a restart, as results would leave it.
// Run: npx tsx bench/rest.ts [--endpoints 1000] [--seconds 10] [--concurrency 16]
// Above the Business plan's 1,000 endpoints the bench raises that plan's limit in the stack's
// SQLite between a stop and a restart (no API changes a plan), then creates the endpoints through the API.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Pool } from 'undici';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { startStack } from '../tests/helpers/start-stack';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '10' },
    concurrency: { type: 'string', default: '16' },
    endpoints: { type: 'string', default: '1000' },
  },
});
const seconds = Number(values.seconds);
const concurrency = Number(values.concurrency);
const N = Number(values.endpoints);

/** CPU time the control-plane process has used (ms): a cost per request that a busy machine does not inflate as much as latency. */
function serverCpuMs(): number {
  const fields = fs.readFileSync(`/proc/${stack.process.pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime + stime, in 100 Hz ticks
}

let stack = await startStack();
let pool = new Pool(stack.baseUrl, { connections: concurrency });

/** Stops the stack, gives every endpoint the live state 30 checks leave (1 in 10 down), starts it again on the same data. */
async function withLiveState(): Promise<void> {
  await pool.close();
  await stack.stop();
  const db = new Database(path.join(stack.dataDir, 'upfleet.db'));
  const ids = db.prepare('SELECT url_id FROM endpoints').pluck().all() as number[];
  const now = Date.now();
  const save = db.prepare('INSERT OR REPLACE INTO endpoint_live (url_id, state) VALUES (?, ?)');
  db.transaction(() => {
    for (const id of ids) {
      const down = id % 10 === 0;
      const recent = Array.from({ length: 30 }, (_, i) => ({ at: now - (30 - i) * 10_000 - id, ok: !(down && i > 26), ms: 80 + ((id * 7 + i) % 200), code: down && i > 26 ? 503 : 200 }));
      const last = recent[29];
      save.run(id, JSON.stringify({ kind: 'http', regions: { 'EU-Germany': { at: last.at, ok: last.ok, ms: last.ms, code: last.code, error: last.ok ? null : 'HTTP 503 from EU - Germany' } }, recent }));
    }
  })();
  db.close();
  stack = await startStack({ dataDir: stack.dataDir });
  pool = new Pool(stack.baseUrl, { connections: concurrency });
}
async function call(method: string, path: string, body?: unknown, token?: string, parse = true, encoding = 'identity') {
  const res = await pool.request({
    method: method, path,
    headers: { 'content-type': 'application/json', 'accept-encoding': encoding, ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!parse && res.statusCode < 400) return res.body.arrayBuffer(); // the client's own JSON parsing is not the server's time
  const text = await res.body.text();
  if (res.statusCode >= 400) throw new Error(`${method} ${path}: ${res.statusCode} ${text}`);
  return JSON.parse(text);
}

try {
  const signup = await call('POST', '/api/auth/signup', { username: 'benchuser', email: 'bench@example.com', password: 'benchmark pw' });
  const token = signup.data.accessToken as string;
  await call('POST', '/api/admin/users/set-package', { email: 'bench@example.com', package: 'Business' }, stack.adminToken);
  if (N > 1000) {
    // Between a stop and a restart: the control plane reads plans from a snapshot loaded at start.
    await pool.close();
    await stack.stop();
    const db = new Database(path.join(stack.dataDir, 'upfleet.db'));
    db.pragma('busy_timeout = 5000');
    db.prepare("UPDATE packages SET max_endpoints = ? WHERE package_name = 'Business'").run(N);
    db.close();
    stack = await startStack({ dataDir: stack.dataDir });
    pool = new Pool(stack.baseUrl, { connections: concurrency });
  }
  const t0 = performance.now();
  let made = 0;
  await Promise.all(Array.from({ length: 4 }, async () => {
    while (made < N) {
      const i = made++;
      await call('POST', '/api/users/endpoints', { name: `Endpoint ${i}`, url: `https://site${i}.example.com/`, regions: ['EU-Germany'], response_code: true, response_time: true }, token);
    }
  }));
  console.log(`created ${N.toLocaleString('en-US')} endpoints in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  await withLiveState();

  // the whole list, one page of 100 from the middle of it (?limit=&offset=), and the dashboard's
  // own requests: the first page down first, a status filter, a search
  for (const path of [
    '/api/users/dashboard', '/api/users/endpoints-with-uptime', `/api/users/endpoints-with-uptime?limit=100&offset=${Math.floor(N / 2)}`,
    '/api/users/endpoints-with-uptime?sort=status&limit=100&offset=0', '/api/users/endpoints-with-uptime?status=down&sort=-last_checked&limit=100&offset=0',
    '/api/users/endpoints-with-uptime?q=endpoint%2012&sort=status&limit=100&offset=0',
  ]) {
    for (let i = 0; i < 20; i++) await call('GET', path, undefined, token); // warm-up
    const one: number[] = [];
    let bytes = 0;
    for (let i = 0; i < 20; i++) {
      const s = performance.now();
      bytes = ((await call('GET', path, undefined, token, false)) as ArrayBuffer).byteLength;
      one.push(performance.now() - s);
    }
    one.sort((a, b) => a - b);
    const median = one[10];
    const zipped = ((await call('GET', path, undefined, token, false, 'gzip')) as ArrayBuffer).byteLength;
    console.log(`${path.padEnd(34)} alone: ${median.toFixed(2)} ms median, ${(bytes / 1000).toFixed(0)} kB (${(zipped / 1000).toFixed(0)} kB gzipped)${path.endsWith('uptime') ? ` = ${((median * 1000) / N).toFixed(2)} µs and ${Math.round(bytes / N)} B per endpoint` : ''}`);
    const lat: number[] = [];
    const end = performance.now() + seconds * 1000;
    const worker = async () => {
      while (performance.now() < end) {
        const s = performance.now();
        await call('GET', path, undefined, token, false, 'gzip, deflate, br'); // as a browser asks
        lat.push(performance.now() - s);
      }
    };
    const start = performance.now();
    const cpu0 = serverCpuMs();
    await Promise.all(Array.from({ length: concurrency }, worker));
    const elapsed = (performance.now() - start) / 1000;
    const cpuPerReq = (serverCpuMs() - cpu0) / lat.length;
    lat.sort((a, b) => a - b);
    const q = (p: number) => lat[Math.min(lat.length - 1, Math.floor(p * lat.length))].toFixed(2);
    console.log(`${path.padEnd(34)} ${String(lat.length).padStart(6)} req  ${(lat.length / elapsed).toFixed(0).padStart(6)} req/s  p50 ${q(0.5)} ms  p99 ${q(0.99)} ms  (concurrency ${concurrency})  server CPU ${cpuPerReq.toFixed(2)} ms/req  load ${os.loadavg()[0].toFixed(1)}`);
  }
} finally {
  await pool.close();
  await stack.stop();
}
