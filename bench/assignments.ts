// Assignment engine at connect time: how long an agent's WatchAssignments connect takes
// on the real schema in a temp dir, with which checks each agent holds persisted in SQLite
// (agent_held_checks), and how many checks are placed. A connect places only its own region's
// checks; the figures show it for a region with few checks next to one with many.
// Each connect prints its wall time, its CPU, and the longest turn of the event loop in CPU time.
// Run: npx tsx bench/assignments.ts [eu-endpoints] [us-endpoints] [--no-persist]  (--no-persist: without
// agent_held_checks, to see what persisting costs)
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { openDatabase } from '../control-plane/src/store/db';
import { seedDatabase } from '../control-plane/src/store/seed';
import { createCatalogRepo } from '../control-plane/src/store/catalog-repo';
import { sqliteSql } from '../control-plane/src/store/sql/open';
import { createEndpointsRepo } from '../control-plane/src/store/endpoints-repo';
import { createHeldChecksRepo } from '../control-plane/src/store/held-checks-repo';
import { createUsersRepo } from '../control-plane/src/store/users-repo';
import { createAssignmentEngine } from '../control-plane/src/services/assignments';

const args = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const persist = !process.argv.includes('--no-persist');
const EU = Number(args[0] ?? 50_000);
const US = Number(args[1] ?? 500);
const dir = mkdtempSync(path.join(os.tmpdir(), 'upfleet-bench-assign-'));
const db = openDatabase(path.join(dir, 'upfleet.db'));
seedDatabase(db);
const repo = createEndpointsRepo(db);
const userId = await createUsersRepo(sqliteSql(db).db).insert('bench', 'bench@example.com', 'x', 4);
const input = (n: number, region: string) => ({ name: `e${n}`, url: `https://e${n}.example.com/`, description: '', regions: [region], ping_host: false, cert_expiry: false, response_code: false, response_time: true });
db.transaction(() => {
  for (let i = 0; i < EU; i++) repo.insert(userId, `g${i}`, input(i, 'EU-Germany'));
  for (let i = EU; i < EU + US; i++) repo.insert(userId, `g${i}`, input(i, 'US-Virginia'));
})();
const live = new Map([['EU-Germany', new Set(['eu-1', 'eu-2', 'eu-3'])], ['US-Virginia', new Set(['us-1', 'us-2'])]]);
// The catalogue reads from a snapshot: load it first, as the control plane's start does.
const catalog = createCatalogRepo(sqliteSql(db).db);
await catalog.load();
const engine = createAssignmentEngine({ endpoints: repo, catalog, logger: pino({ level: 'silent' }), liveAgents: () => live, held: persist ? createHeldChecksRepo(db) : undefined });
const tick = () => new Promise((r) => setImmediate(r));
const cpuMs = () => {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1000;
};

/**
 * Until the agent has its snapshot and the engine is idle: wall time, CPU, and the longest turn of
 * the event loop in CPU time (what REST and gRPC wait for at most; CPU holds on a busy machine).
 */
async function connect(label: string, agentId: string, region: string): Promise<() => void> {
  const placed = engine.placedChecks();
  let got = false;
  const t0 = performance.now();
  const c0 = cpuMs();
  const stop = engine.watch({ agentId, region, send: (u) => void (u.snapshot && (got = true)) });
  let longest = 0;
  let quiet = 0;
  for (let last = c0; quiet < 3;) {
    await tick();
    const now = cpuMs();
    longest = Math.max(longest, now - last);
    last = now;
    quiet = got ? quiet + 1 : 0;
  }
  const ms = performance.now() - t0;
  console.log(`${label.padEnd(46)} ${ms.toFixed(1).padStart(8)} ms  ${(cpuMs() - c0).toFixed(0).padStart(6)} ms CPU, longest turn ${longest.toFixed(1).padStart(6)} ms CPU  ${(engine.placedChecks() - placed).toLocaleString('en-US').padStart(8)} checks placed, holds ${engine.ownedCount(agentId).toLocaleString('en-US')}`);
  return stop;
}

console.log(`${EU.toLocaleString('en-US')} EU checks, ${US.toLocaleString('en-US')} US checks (one response-time check per endpoint)${persist ? '' : ', held checks not persisted'}`);
const s0 = performance.now();
repo.listMonitored();
console.log(`${'one scan of the monitored endpoints (SQL)'.padEnd(46)} ${(performance.now() - s0).toFixed(1).padStart(8)} ms`);
await connect('eu-1 connects (first, all EU checks persisted)', 'eu-1', 'EU-Germany');
await connect('eu-2 connects (takes ~1/2 of EU)', 'eu-2', 'EU-Germany');
const stop3 = await connect('eu-3 connects (takes ~1/3 of EU)', 'eu-3', 'EU-Germany');
await connect('us-1 connects (US only: EU is not recomputed)', 'us-1', 'US-Virginia');
await connect('us-2 connects', 'us-2', 'US-Virginia');
stop3();
await tick();
await tick();
await connect('eu-3 leaves, then reconnects (takes them back)', 'eu-3', 'EU-Germany');
const rows = db.prepare('SELECT COUNT(*) FROM agent_held_checks').pluck().get() as number;
console.log(`agent_held_checks rows: ${rows.toLocaleString('en-US')} (one per check)`);
engine.close();
db.close();
rmSync(dir, { recursive: true, force: true });
