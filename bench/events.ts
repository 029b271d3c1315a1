// Event fan-out: N open Server-Sent-Event streams over loopback HTTP receiving R results/s, p50/p99
// delivery time from the moment a stored result reaches the live state (the call the gRPC ingest
// makes after its ClickHouse insert; the insert itself is bench:ingest's figure) to the moment a
// client has read and parsed the event. Real parts: SQLite (users, endpoints, endpoint_live),
// services/live-state.ts, services/events.ts, node:http streams; clients run in a child process.
// Run: npx tsx bench/events.ts [--streams 1000] [--rate 2000] [--seconds 20] [--streams-per-user 1]
//   --streams-per-user 20 puts 20 streams on each account (the most one account may open): each
//   result then goes to 20 streams.
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createEventHub } from '../control-plane/src/services/events';
import { createLiveState } from '../control-plane/src/services/live-state';
import { openDatabase } from '../control-plane/src/store/db';
import { createEndpointsRepo } from '../control-plane/src/store/endpoints-repo';
import { seedDatabase } from '../control-plane/src/store/seed';
import { httpResult } from '../control-plane/src/testing/alerting';

const { values } = parseArgs({
  options: {
    streams: { type: 'string', default: '1000' },
    rate: { type: 'string', default: '2000' },
    seconds: { type: 'string', default: '20' },
    'streams-per-user': { type: 'string', default: '1' },
    'endpoints-per-user': { type: 'string', default: '10' },
    clients: { type: 'string' }, // internal: run as the client process against this URL
  },
});

if (values.clients) await runClients(values.clients, Number(values.streams), Number(values['streams-per-user']));
else await runServer();

async function runServer(): Promise<void> {
  const streams = Number(values.streams);
  const perUser = Number(values['streams-per-user']);
  const users = Math.ceil(streams / perUser);
  const perUserEndpoints = Number(values['endpoints-per-user']);
  const rate = Number(values.rate);
  const seconds = Number(values.seconds);

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'upfleet-bench-events-'));
  const db = openDatabase(path.join(dir, 'upfleet.db'));
  seedDatabase(db);
  // Inside one better-sqlite3 transaction below: the accounts are inserted directly, not through the (async) users repo.
  const insertUser = db.prepare('INSERT INTO users (username, email, password_hash, package_id) VALUES (?, ?, ?, ?)');
  const endpoints = createEndpointsRepo(db);
  const pkg = db.prepare("SELECT package_id FROM packages WHERE package_name = 'Business'").pluck().get() as number;
  const ids: number[] = [];
  const userIds: number[] = [];
  db.transaction(() => {
    for (let u = 0; u < users; u++) {
      const userId = Number(insertUser.run(`bench${u}`, `bench${u}@example.com`, 'x', pkg).lastInsertRowid);
      userIds.push(userId);
      for (let e = 0; e < perUserEndpoints; e++) {
        ids.push(endpoints.insert(userId, crypto.randomUUID(), {
          name: `Site ${u}-${e}`, url: `https://site${u}-${e}.example.com/`, description: '', regions: ['EU-Germany'],
          ping_host: false, cert_expiry: false, response_code: true, response_time: true,
        }));
      }
    }
  })();

  const hub = createEventHub();
  const live = createLiveState({ db, regionLabel: (k) => k, publish: (userId, type, data) => hub.publish(userId, type, data) });
  // The route's stream handling (routes/users.ts) with the user named in the path instead of a token.
  const server = http.createServer((req, res) => {
    const userId = Number(/\/events\/(\d+)/.exec(req.url ?? '')?.[1]);
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
    res.flushHeaders();
    req.socket.setNoDelay(true);
    const close = hub.subscribe(userId, res, null);
    res.on('close', close);
  });
  server.maxConnections = streams + 100;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/events/`;
  console.log(`${streams.toLocaleString('en-US')} streams (${perUser} per account, ${users.toLocaleString('en-US')} accounts, ${ids.length.toLocaleString('en-US')} endpoints), ${rate.toLocaleString('en-US')} results/s for ${seconds} s`);

  // Clients: a child process opens every stream, then reports each event's delivery time.
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--clients', url, '--streams', String(streams), '--streams-per-user', String(perUser)], {
    stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, BENCH_USER_IDS: userIds.join(',') },
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  const ready = () => out.includes('ready');
  while (!ready()) await new Promise((r) => setTimeout(r, 100));

  // Results at the rate, in 10 ms ticks (each tick makes up what the clock says is due), each
  // stamped with the time it reaches the live state.
  const tickMs = 10;
  let sent = 0;
  let next = 0;
  const started = performance.now();
  const end = started + seconds * 1000;
  const cpu0 = process.cpuUsage();
  await new Promise<void>((resolve) => {
    const tick = () => {
      const now = performance.now();
      if (now >= end) return resolve();
      const n = Math.floor(((now - started) / 1000) * rate) - sent;
      const at = Date.now();
      const batch = Array.from({ length: Math.max(0, n) }, () => httpResult(ids[next++ % ids.length], at));
      sent += batch.length;
      live.onResults(batch);
      setTimeout(tick, Math.max(0, tickMs - (performance.now() - now)));
    };
    tick();
  });
  const elapsed = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpu0);
  await new Promise((r) => setTimeout(r, 2000)); // the last events' way through
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  const report = JSON.parse(out.slice(out.indexOf('{'))) as { events: number; p50: number; p99: number; max: number; streamsOpen: number };
  console.log(`results published ${sent.toLocaleString('en-US')} (${Math.round(sent / elapsed).toLocaleString('en-US')}/s); events delivered ${report.events.toLocaleString('en-US')} to ${report.streamsOpen.toLocaleString('en-US')} open streams (expected ${(sent * perUser).toLocaleString('en-US')})`);
  console.log(`delivery p50 ${report.p50.toFixed(1)} ms  p99 ${report.p99.toFixed(1)} ms  max ${report.max.toFixed(1)} ms   server CPU ${(((cpu.user + cpu.system) / 1000 / (elapsed * 1000)) * 100).toFixed(0)} % of one core`);
  hub.close();
  live.close();
  server.closeAllConnections();
  server.close();
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
}

async function runClients(url: string, streams: number, perUser: number): Promise<void> {
  const userIds = (process.env.BENCH_USER_IDS ?? '').split(',').map(Number);
  const lat: number[] = [];
  let open = 0;
  const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
  await Promise.all(Array.from({ length: streams }, (_, i) => new Promise<void>((resolve, reject) => {
    const req = http.get(`${url}${userIds[Math.floor(i / perUser)]}`, { agent }, (res) => {
      open++;
      res.setEncoding('utf8');
      let buf = '';
      res.on('data', (chunk: string) => {
        buf += chunk;
        let cut: number;
        while ((cut = buf.indexOf('\n\n')) >= 0) {
          const block = buf.slice(0, cut);
          buf = buf.slice(cut + 2);
          const data = block.split('\n').find((l) => l.startsWith('data: '));
          if (!data) continue;
          const e = JSON.parse(data.slice(6)) as { recent?: { at: number } };
          if (e.recent) lat.push(Date.now() - Math.floor(e.recent.at));
        }
      });
      resolve();
    });
    req.on('error', reject);
  })));
  process.stdout.write('ready\n');
  process.on('SIGTERM', () => {
    lat.sort((a, b) => a - b);
    const q = (p: number) => lat[Math.min(lat.length - 1, Math.floor(p * lat.length))] ?? 0;
    process.stdout.write(JSON.stringify({ events: lat.length, p50: q(0.5), p99: q(0.99), max: lat[lat.length - 1] ?? 0, streamsOpen: open }));
    process.exit(0);
  });
}
