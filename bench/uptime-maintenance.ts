// 7-day uptime of 10,000 endpoints with and without maintenance windows: the query the
// dashboard list runs (results/queries.ts queryUptime) on embedded chDB, one HTTP check per endpoint
// every 30 minutes for 7 days (generated inside the engine; the views fill the rollups). Prints
// p50/p99 for: no window at all (the plain query), windows on 10 endpoints, windows on 1,000.
// Run: npx tsx bench/uptime-maintenance.ts [runs] [endpoints]
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { createResultStore } from '../control-plane/src/results/clickhouse-store';
import type { MaintenanceSpan } from '../control-plane/src/maintenance';

const RUNS = Number(process.argv[2] ?? 20);
const N = Number(process.argv[3] ?? 10_000);
const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
const STEP = 30 * MIN;

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
};

async function main(): Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'upfleet-bench-uptime-'));
  const store = createResultStore({ clickhouseUrl: null, dataDir: dir, logger: pino({ level: 'warn' }) });
  await store.init();
  const db = store.database;
  const now = Math.floor(Date.now() / MIN) * MIN;
  const start = now - 7 * DAY;
  const seedStarted = performance.now();
  // A day at a time (the rollups' views aggregate each insert block in memory).
  const perDay = DAY / STEP;
  for (let d = 0; d < 7; d++) await store.command(
    `INSERT INTO ${db}.check_results
       (ts, endpoint_id, kind, region, ok, phase, status_code, dns_ms, connect_ms, tls_ms, ttfb_ms, total_ms,
        ping_method, error, retention_days, result_id, agent_id)
     SELECT
       fromUnixTimestamp64Milli({from:Int64} + intDiv(number, {n:UInt64}) * {step:Int64} + 137, 'UTC') AS ts,
       number % {n:UInt64} + 1, 'http', 'EU-Germany',
       (cityHash64(number) % 50) != 0 AS ok, if(ok, '', 'http'), if(ok, 200, 503),
       1.5, 4.2, 9.8, 60.1, 80, '', if(ok, '', 'HTTP 503'), 365, toString(generateUUIDv4(number)), 'bench'
     FROM numbers({rows:UInt64})
     SETTINGS max_partitions_per_insert_block = 0`,
    { from: start + d * DAY, n: N, step: STEP, rows: N * perDay },
  );
  const raw = await store.countResults({});
  console.log(`seeded ${raw.toLocaleString('en-US')} raw rows (${N.toLocaleString('en-US')} endpoints, 7 days, one check per 30 min) in ${((performance.now() - seedStarted) / 1000).toFixed(1)} s`);

  const ids = Array.from({ length: N }, (_, i) => i + 1);
  // A 2-hour window two days ago on every k-th endpoint, starting off the hour (the minute rollup is read).
  const windows = (count: number): MaintenanceSpan[] => Array.from({ length: count }, (_, i) => ({
    endpointId: Math.floor((i * N) / count) + 1, startsAt: now - 2 * DAY + 17 * MIN, endsAt: now - 2 * DAY + 2 * HOUR + 17 * MIN,
  }));
  const cases: Array<[string, MaintenanceSpan[]]> = [['no windows', []], ['windows on 10 endpoints', windows(10)], ['windows on 1,000 endpoints', windows(1000)]];
  console.log(`uptime() of ${N.toLocaleString('en-US')} endpoints over 7 days; ${RUNS} runs per case after 3 warm-up runs`);
  for (const [label, maintenance] of cases) {
    const w = { sinceMs: now - 7 * DAY, untilMs: now, maintenance };
    for (let i = 0; i < 3; i++) await store.uptime(ids, w);
    const times: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const t = performance.now();
      await store.uptime(ids, w);
      times.push(performance.now() - t);
    }
    console.log(`  ${label.padEnd(28)} p50 ${pct(times, 50).toFixed(1)} ms   p99 ${pct(times, 99).toFixed(1)} ms`);
  }
  await store.close();
  rmSync(dir, { recursive: true, force: true });
}

await main();
