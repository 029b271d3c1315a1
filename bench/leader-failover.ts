// Leader fail-over: two real control-plane processes on one Postgres (DATABASE_URL), kill -9 the
// lease holder, and time until the other process holds the lease (GET /api/admin/cluster, polled
// every 100 ms). The once-only work (alert outbox, deadlines) starts on the new holder then; the
// goal for the next alert is p99 < 15 s with the default LEADER_LEASE_SECONDS=10.
// Run: npm run bench:failover [-- rounds leaseSeconds]
import fs from 'node:fs';
import { startPostgres } from '../control-plane/src/testing/postgres';
import { startStack, type Stack } from '../tests/helpers/start-stack';

const ROUNDS = Number(process.argv[2] ?? 5);
const LEASE_SECONDS = process.argv[3] ?? '10';

interface Status { lease: { holder: string; epoch: number } | null; processes: Array<{ id: string; this_process: boolean }> }
async function status(s: Stack): Promise<Status> {
  const r = await fetch(`${s.baseUrl}/api/admin/cluster`, { headers: { authorization: `Bearer ${s.adminToken}` } });
  return ((await r.json()) as { data: Status }).data;
}
const selfId = async (s: Stack) => (await status(s)).processes.find((p) => p.this_process)!.id;

const pg = await startPostgres();
const url = await pg.createDatabase();
const env = { DATABASE_URL: url, LEADER_LEASE_SECONDS: LEASE_SECONDS, LOG_LEVEL: 'warn' };
const stacks: Stack[] = [await startStack({ env }), await startStack({ env })];
const times: number[] = [];
try {
  for (let round = 0; round < ROUNDS; round++) {
    // Whoever holds the lease now is killed without a chance to hand it over.
    const ids = await Promise.all(stacks.map(selfId));
    let lease = (await status(stacks[0])).lease;
    while (!lease || !ids.includes(lease.holder)) {
      await new Promise((r) => setTimeout(r, 100));
      lease = (await status(stacks[0])).lease;
    }
    const i = ids.indexOf(lease.holder);
    const [victim, survivor] = [stacks[i], stacks[1 - i]];
    const t0 = performance.now();
    await victim.kill();
    const survivorId = ids[1 - i];
    while ((await status(survivor)).lease?.holder !== survivorId) await new Promise((r) => setTimeout(r, 100));
    const ms = performance.now() - t0;
    times.push(ms);
    console.log(`round ${round + 1}: lease taken over ${(ms / 1000).toFixed(2)} s after kill -9 (epoch ${(await status(survivor)).lease?.epoch})`);
    // The killed process comes back on its own data (its lock died with it) as the next contender.
    fs.rmSync(`${victim.dataDir}/runtime.json`, { force: true });
    stacks[i] = await startStack({ env, dataDir: victim.dataDir });
  }
  const sorted = [...times].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] / 1000;
  console.log(`LEADER_LEASE_SECONDS=${LEASE_SECONDS}, ${ROUNDS} rounds: take-over p50 ${at(50).toFixed(2)} s, max ${at(100).toFixed(2)} s (bound: lease + a third of it = ${(Number(LEASE_SECONDS) * 4 / 3).toFixed(1)} s)`);
} finally {
  for (const s of stacks) await s.stop();
  for (const s of stacks) fs.rmSync(s.dataDir, { recursive: true, force: true });
  await pg.stop();
}
