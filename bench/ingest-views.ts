// What the rollup views cost at ingest: store inserts of bench results into chDB with the views as
// they are, without one or both, or with another p95 state, counting the background merges that
// follow (it waits until no merge has run for 3 s). CPU time moves with the machine's load; for
// figures that hold, count instructions:
//   perf stat -e instructions:u npx tsx bench/ingest-views.ts [variant] [results=600000]
// and subtract a run with results=20000 (start-up: tsx, chDB, the batches).
// Variants: as-is | no-1h (the hour view dropped) | no-views | p95=<state function>, e.g.
// p95=quantileTDigest for the rollups as they were before schema step 2 (schema.ts).
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { createResultStore } from '../control-plane/src/results/clickhouse-store';
import { insertConcurrently, makeBatches } from './ingest-data';

const variant = process.argv[2] ?? 'as-is';
const TOTAL = Number(process.argv[3] ?? 600_000);
const logger = pino({ level: 'warn' });

async function main(): Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'upfleet-bench-views-'));
  const store = createResultStore({ clickhouseUrl: null, dataDir: dir, logger });
  await store.init();
  const db = store.database;
  if (variant === 'no-1h' || variant === 'no-views') await store.command(`DROP VIEW ${db}.check_results_1h_mv`);
  if (variant === 'no-views') await store.command(`DROP VIEW ${db}.check_results_1m_mv`);
  const p95 = /^p95=(\w+)$/.exec(variant)?.[1];
  if (p95) {
    for (const grain of ['1m', '1h']) {
      const [view] = await store.select<{ q: string }>(
        `SELECT as_select AS q FROM system.tables WHERE database = {db:String} AND name = {name:String}`, { db, name: `check_results_${grain}_mv` });
      await store.command(`DROP VIEW ${db}.check_results_${grain}_mv`);
      await store.command(`ALTER TABLE ${db}.check_results_${grain} DROP COLUMN total_p95`);
      await store.command(`ALTER TABLE ${db}.check_results_${grain} ADD COLUMN total_p95 AggregateFunction(${p95}(0.95), Float32) AFTER total_max`);
      await store.command(`CREATE MATERIALIZED VIEW ${db}.check_results_${grain}_mv TO ${db}.check_results_${grain} AS ${view.q.replace('quantileTimingStateIf', `${p95}StateIf`)}`);
    }
  }
  const batches = makeBatches('views', TOTAL, 2000);
  const cpu0 = process.cpuUsage();
  const started = performance.now();
  await insertConcurrently(store, batches, 8);
  const ms = performance.now() - started;
  const cpuInsert = process.cpuUsage(cpu0);
  for (let quiet = 0; quiet < 6; ) {
    const [m] = await store.select<{ c: string }>('SELECT count() AS c FROM system.merges');
    quiet = Number(m.c) === 0 ? quiet + 1 : 0;
    await new Promise((r) => setTimeout(r, 500));
  }
  const cpuAll = process.cpuUsage(cpu0);
  const perResult = (c: NodeJS.CpuUsage) => ((c.user + c.system) / TOTAL).toFixed(1);
  const parts = await store.select<{ table: string; c: string }>(
    `SELECT table, count() AS c FROM system.parts WHERE database = {db:String} AND active GROUP BY table ORDER BY table`, { db });
  console.log(`${variant}: ${TOTAL.toLocaleString('en-US')} results, ${Math.round((TOTAL * 1000) / ms).toLocaleString('en-US')} results/s; ` +
    `CPU ${perResult(cpuInsert)} µs per result while inserting, ${perResult(cpuAll)} with the merges after; ` +
    `active parts ${parts.map((p) => `${p.table} ${p.c}`).join(', ')}`);
  await store.close();
  rmSync(dir, { recursive: true, force: true });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
