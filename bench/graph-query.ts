// Graph query benchmark: one endpoint with 6 months of 1-minute HTTP and ping results in 3 regions
// (generated inside the engine with numbers(); the materialized views fill the rollups on the way),
// then p50/p99 of graphs() for 1 h, 24 h, 7 days and 6 months: read from ClickHouse (the cache
// emptied before each read: what a range costs the first time, or after a result landed in it)
// and repeated (from the store's graph cache). Run: npx tsx bench/graph-query.ts [runs] [--server]
// --server: the same on a local ClickHouse server (tests/helpers/clickhouse-server.ts) after chDB.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import type { GraphFunction } from '@upfleet/proto/rest';
import { createResultStore } from '../control-plane/src/results/clickhouse-store';
import { planGraphQuery } from '../control-plane/src/results/graph-plan';
import { startClickHouseServer } from '../tests/helpers/clickhouse-server';

const args = process.argv.slice(2);
const RUNS = Number(args.find((a) => /^\d+$/.test(a)) ?? 50);
const SERVER = args.includes('--server');
const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
const ENDPOINT = 42;
const DAYS = 182;
const FUNCTIONS: GraphFunction[] = ['response_time', 'response_code', 'ping', 'cert_expiry'];

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
};

async function main(): Promise<void> {
  console.log(`load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')} (${os.cpus().length} cores)`);
  console.log('--- embedded chDB');
  await run(null);
  if (!SERVER) return;
  const server = await startClickHouseServer();
  try {
    console.log(`--- local ClickHouse server ${server.url}; load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
    await run(server.url);
  } finally {
    await server.stop();
  }
}

async function run(clickhouseUrl: string | null): Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'upfleet-bench-graph-'));
  const store = createResultStore({ clickhouseUrl, dataDir: dir, logger: pino({ level: 'warn' }), database: `upfleet_bench_${process.pid}` });
  await store.init();
  const db = store.database;
  const now = Math.floor(Date.now() / MIN) * MIN;
  const start = now - DAYS * DAY;

  // Per minute: http and ping in each of 3 regions = 6 rows. Inserted a month at a time to bound memory.
  const seedStarted = performance.now();
  const CHUNK_DAYS = 31;
  for (let d = 0; d < DAYS; d += CHUNK_DAYS) {
    const minutes = Math.min(CHUNK_DAYS, DAYS - d) * 24 * 60;
    await store.command(
      `INSERT INTO ${db}.check_results
         (ts, endpoint_id, kind, region, ok, phase, status_code, dns_ms, connect_ms, tls_ms, ttfb_ms, total_ms,
          ping_method, error, retention_days, result_id, agent_id)
       SELECT
         fromUnixTimestamp64Milli({from:Int64} + intDiv(number, 6) * 60000 + 137, 'UTC') AS ts,
         {ep:UInt64},
         if(number % 2 = 0, 'http', 'ping') AS kind,
         ['EU-Germany', 'US-Virginia', 'AP-Singapore'][intDiv(number % 6, 2) + 1] AS region,
         (cityHash64(number) % 50) != 0 AS ok,
         if(ok, '', if(kind = 'http', 'http', 'timeout')) AS phase,
         if(kind = 'http', if(ok, 200, 503), 0) AS status_code,
         1.5, 4.2, 9.8, 60.1,
         toFloat32(if(kind = 'http', 80, 20) + (cityHash64(number, 1) % 400) / 10) AS total_ms,
         if(kind = 'ping', 'icmp', ''),
         if(ok, '', 'failed'),
         365,
         toString(generateUUIDv4(number)),
         'bench'
       FROM numbers({rows:UInt64})
       SETTINGS max_partitions_per_insert_block = 0`,
      { from: start + d * DAY, ep: ENDPOINT, rows: minutes * 6 },
    );
  }
  const seedMs = performance.now() - seedStarted;
  const raw = await store.countResults({ endpointId: ENDPOINT });
  const m1 = await store.countResults({ endpointId: ENDPOINT, table: '1m' });
  const h1 = await store.countResults({ endpointId: ENDPOINT, table: '1h' });
  console.log(`seeded ${raw.toLocaleString('en-US')} raw rows in ${(seedMs / 1000).toFixed(1)} s; rollups count ${m1.toLocaleString('en-US')} (1m, kept ${32} days) and ${h1.toLocaleString('en-US')} (1h)`);

  const ranges: Array<[string, number]> = [['1 h', HOUR], ['24 h', DAY], ['7 days', 7 * DAY], ['6 months', 180 * DAY]];
  console.log(`graphs() for endpoint ${ENDPOINT}, functions ${FUNCTIONS.join(', ')}; ${RUNS} runs per range after 3 warm-up runs`);
  for (const [label, range] of ranges) {
    const q = { fromMs: now - range, toMs: now, functions: FUNCTIONS };
    const plan = planGraphQuery(q.fromMs, q.toMs, Date.now());
    for (let i = 0; i < 3; i++) {
      store.graphCache?.clear();
      await store.graphs(ENDPOINT, q);
    }
    const times: number[] = [];
    const cached: number[] = [];
    let series = await store.graphs(ENDPOINT, q);
    // read from ClickHouse and repeated, interleaved so both meet the same load
    for (let i = 0; i < RUNS; i++) {
      store.graphCache?.clear();
      let t = performance.now();
      series = await store.graphs(ENDPOINT, q);
      times.push(performance.now() - t);
      t = performance.now();
      await store.graphs(ENDPOINT, q);
      cached.push(performance.now() - t);
    }
    const maxPoints = Math.max(...series.map((s) => s.data.length));
    console.log(
      `${label.padEnd(9)} source ${plan.source.padEnd(3)} bucket ${String(plan.stepMs / 1000).padStart(5)} s: ` +
        `${series.length} series, ≤${maxPoints} points; from ClickHouse p50 ${pct(times, 50).toFixed(1)} ms, p99 ${pct(times, 99).toFixed(1)} ms; ` +
        `repeated (cache) p50 ${pct(cached, 50).toFixed(2)} ms, p99 ${pct(cached, 99).toFixed(2)} ms`,
    );
  }
  // The 7-day uptime of the endpoint list: first call, then RUNS warm calls.
  const window = { sinceMs: now - 7 * DAY, untilMs: now };
  let t = performance.now();
  await store.uptime([ENDPOINT], window);
  const first = performance.now() - t;
  const uptimes: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    t = performance.now();
    await store.uptime([ENDPOINT], window);
    uptimes.push(performance.now() - t);
  }
  console.log(`uptime(7 days) first call ${first.toFixed(1)} ms, then p50 ${pct(uptimes, 50).toFixed(1)} ms, p99 ${pct(uptimes, 99).toFixed(1)} ms; rss ${Math.round(process.memoryUsage().rss / 1e6)} MB`);
  if (clickhouseUrl) await store.command(`DROP DATABASE IF EXISTS ${db}`);
  await store.close();
  rmSync(dir, { recursive: true, force: true });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
