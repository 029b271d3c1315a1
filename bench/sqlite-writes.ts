// Control-plane SQLite write rate: agent heartbeats (one UPDATE each, as the gRPC Heartbeat does)
// and endpoint creates (one INSERT each), on the real schema in a temp dir (WAL, synchronous=NORMAL).
// Heartbeats go through Kysely (agents-repo.ts), as the control plane writes them.
// Run: npx tsx bench/sqlite-writes.ts [seconds]
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase } from '../control-plane/src/store/db';
import { seedDatabase } from '../control-plane/src/store/seed';
import { createAgentsRepo } from '../control-plane/src/store/agents-repo';
import { createEndpointsRepo } from '../control-plane/src/store/endpoints-repo';
import { sqliteSql } from '../control-plane/src/store/sql/open';
import { createUsersRepo } from '../control-plane/src/store/users-repo';

const SECONDS = Number(process.argv[2] ?? 3);
const dir = mkdtempSync(path.join(os.tmpdir(), 'upfleet-bench-sqlite-'));
const db = openDatabase(path.join(dir, 'upfleet.db'));
seedDatabase(db);
const agents = createAgentsRepo(sqliteSql(db).db);
const endpoints = createEndpointsRepo(db);
const users = createUsersRepo(sqliteSql(db).db);
const AGENTS = 1000;
await agents.insertToken('t', 'hash', 'EU-Germany', Date.now(), null, null);
for (let i = 0; i < AGENTS; i++) {
  await agents.registerAgent({ agentId: `a${i}`, secretHash: 'x', region: 'EU-Germany', hostname: 'h', version: '1', tokenId: 't' }, Date.now());
}
const userId = await users.insert('bench', 'bench@example.com', 'x', 1);

async function rate(label: string, op: (i: number) => unknown): Promise<void> {
  const end = performance.now() + SECONDS * 1000;
  const cpu0 = process.cpuUsage();
  let n = 0;
  while (performance.now() < end) for (let k = 0; k < 100; k++) await op(n++);
  const cpu = process.cpuUsage(cpu0);
  console.log(`${label.padEnd(34)} ${Math.round(n / SECONDS).toLocaleString('en-US').padStart(8)} /s  (${((cpu.user + cpu.system) / n).toFixed(1)} µs CPU each)`);
}

await rate('agent heartbeat (UPDATE agents)', (i) =>
  agents.heartbeat(`a${i % AGENTS}`, Date.now(), Date.now() + 30_000, { checks_owned: 100, checks_per_minute: 100, outbox_depth: 0, lag: 1 }));
await rate('endpoint create (INSERT endpoints)', (i) =>
  endpoints.insert(userId, `g${i}`, { name: `E${i}`, url: `https://e${i}.example.com/`, description: '', regions: ['EU-Germany'], ping_host: false, cert_expiry: false, response_code: true, response_time: false }));
db.close();
rmSync(dir, { recursive: true, force: true });
