// Ingest benchmark: results/s from a gRPC ReportResults stream (grpc-js client on loopback → handler →
// ClickHouse) from agent processes, and the store alone; embedded chDB, and a ClickHouse server side by side.
// Run: npx tsx bench/ingest.ts [totalResults=1000000] [batchSize=2000] [window=8] [--server] [--clickhouse-url URL]
//   window: batches each agent keeps un-acked (the agent's --max-batches-in-flight; its default is 4)
//   --server              also run against a local ClickHouse server (clickhouse-local from libchdb,
//                         tests/helpers/clickhouse-server.ts) after chDB, same data, same settings
//   --clickhouse-url URL  run against that server instead of chDB (a database of its own, dropped after)
// Env: INGEST_AGENTS (8), INGEST_ENDPOINTS (2000: series per insert, see ingest-data.ts), INSERT_LANES (store default),
// MAX_INSERT_ROWS (rows per merged insert at most, store default 50,000), MERGE_INSERTS=0 (one insert per batch; server
// mode always inserts per batch), INGEST_AGENT_ENCODE=live (agents encode protobuf during the run,
// on this machine's cores).
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { grpc } from '@upfleet/proto';
import { createResultStore } from '../control-plane/src/results/clickhouse-store';
import { createReportResultsHandler } from '../control-plane/src/grpc/report-results';
import { agentServiceDefinition } from '../control-plane/src/grpc/server';
import { admitAnyCheck } from '../control-plane/src/testing/admit-any-check';
import { startClickHouseServer } from '../tests/helpers/clickhouse-server';
import { insertConcurrently, makeBatches } from './ingest-data';
import { spawn } from 'node:child_process';

const args = parseArgs({
  allowPositionals: true,
  options: { server: { type: 'boolean', default: false }, 'clickhouse-url': { type: 'string' } },
});
const TOTAL = Number(args.positionals[0] ?? 1_000_000);
const BATCH = Number(args.positionals[1] ?? 2000);
// Batches each agent keeps un-acked (its --max-batches-in-flight); the control plane's own per-stream
// limit is its production default (MAX_BATCHES_IN_FLIGHT_PER_STREAM).
const WINDOW = Number(args.positionals[2] ?? 8);
const logger = pino({ level: 'warn' });
const rate = (n: number, ms: number) => Math.round((n * 1000) / ms).toLocaleString('en-US');

/** Where one run stores its results: chDB in a temp dir (url null) or a server. */
interface Target { name: string; url: string | null; database?: string; cleanup?: () => Promise<void> }
interface Figures { grpc: string; store: string }

/**
 * CPU milliseconds of this process's threads by name (Linux /proc; empty elsewhere): 'main' is the
 * event loop (gRPC, decoding, admission, row encoding, the ledger); 'libuv' the worker pool where
 * chDB runs each insert query; the rest are chDB's own pools (merges in MergeMutate).
 */
function threadCpuMs(): Map<string, number> {
  const out = new Map<string, number>();
  if (!existsSync('/proc/self/task')) return out;
  for (const tid of readdirSync('/proc/self/task')) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    } catch {
      continue; // the thread ended
    }
    const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const name = Number(tid) === process.pid ? 'main' : comm === 'node' ? 'libuv' : comm.replace(/[0-9]+$/, '');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(f[11]) + Number(f[12]); // utime + stime, in clock ticks (100 per second on Linux)
    out.set(name, (out.get(name) ?? 0) + ticks * 10);
  }
  return out;
}

// Top-level await would need an ESM marker in bench/; a main() keeps the script standalone.
async function main(): Promise<void> {
  const url = args.values['clickhouse-url'];
  const targets: Target[] = url
    ? [{ name: `server ${new URL(url).host}`, url, database: `upfleet_bench_${process.pid}` }]
    : [{ name: 'chDB (embedded)', url: null }];
  if (args.values.server && !url) {
    const server = await startClickHouseServer();
    console.log(`local ClickHouse server at ${server.url} answered ${server.startMs} ms after spawn`);
    targets.push({ name: 'local ClickHouse server', url: server.url, cleanup: () => server.stop() });
  }
  const figures = new Map<string, Figures>();
  try {
    for (const t of targets) figures.set(t.name, await benchTarget(t));
  } finally {
    for (const t of targets) await t.cleanup?.();
  }
  if (figures.size > 1) {
    console.log('\nside by side (results/s)        gRPC ReportResults   store.insertBatch only');
    for (const [name, f] of figures) console.log(`${name.padEnd(32)}${f.grpc.padStart(19)}${f.store.padStart(25)}`);
  }
}

async function benchTarget(target: Target): Promise<Figures> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'upfleet-bench-ingest-'));
  const LANES = process.env.INSERT_LANES ? Number(process.env.INSERT_LANES) : undefined;
  const MERGE = process.env.MERGE_INSERTS === '0' ? false : undefined;
  const MAX_ROWS = process.env.MAX_INSERT_ROWS ? Number(process.env.MAX_INSERT_ROWS) : undefined;
  const store = createResultStore({ clickhouseUrl: target.url, dataDir: dir, logger, insertLanes: LANES, mergeInserts: MERGE, maxInsertRows: MAX_ROWS, database: target.database });
  await store.init();
  const merging = store.mergeStats !== null;
  const where = target.url ? `${target.name} at ${target.url}` : `${LANES ?? 'default'} insert connections, chDB at ${dir}`;
  console.log(`\ningest benchmark: ${TOTAL.toLocaleString('en-US')} results per run, batches of ${BATCH}, ${WINDOW} in flight, ${merging ? 'merged inserts' : 'one insert per batch'}, ${where}`);
  const figures: Figures = { grpc: '', store: '' };

  // 1. gRPC ReportResults on loopback from agent processes (as in production: the agents' own
  //    encoding runs outside the control plane), each keeping WINDOW batches un-acked.
  {
    const AGENTS = Number(process.env.INGEST_AGENTS ?? 8);
    const server = new grpc.Server({ 'grpc.max_receive_message_length': 64 * 1024 * 1024 });
    server.addService(agentServiceDefinition(), {
      ReportResults: createReportResultsHandler({
        store, logger, authenticate: () => ({ agentId: 'bench', region: 'EU-Germany' }), admit: admitAnyCheck(),
      }),
    });
    const port = await new Promise<number>((res, rej) =>
      server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (e, p) => (e ? rej(e) : res(p))));
    const per = Math.ceil(TOTAL / AGENTS);
    const agents = Array.from({ length: AGENTS }, (_, i) =>
      spawn(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, 'ingest-agent.ts'), `127.0.0.1:${port}`, `grpc${i}`, String(per), String(BATCH), String(WINDOW)], {
        stdio: ['pipe', 'pipe', 'inherit'],
      }));
    const lines = agents.map((a) => {
      let buf = '';
      const waiters: Array<(l: string) => void> = [];
      a.stdout.on('data', (d) => {
        buf += d;
        let i;
        while ((i = buf.indexOf('\n')) >= 0) {
          const line = buf.slice(0, i);
          buf = buf.slice(i + 1);
          waiters.shift()?.(line);
        }
      });
      return () => new Promise<string>((r) => waiters.push(r));
    });
    const ready = lines.map((next) => next());
    await Promise.all(ready);
    const done = lines.map((next) => next());
    const th0 = threadCpuMs();
    const started = performance.now();
    const cpu0 = process.cpuUsage();
    const merged0 = store.mergeStats;
    for (const a of agents) a.stdin.write('go\n');
    const reports = (await Promise.all(done)).map((l) => JSON.parse(l) as { sent: number; failed: number; cpuMs: number });
    const ms = performance.now() - started;
    const cpu = process.cpuUsage(cpu0);
    const failed = reports.reduce((n, r) => n + r.failed, 0);
    figures.grpc = rate(per * AGENTS, ms);
    console.log(`gRPC ReportResults → store  : ${figures.grpc} results/s (${AGENTS} agent processes, ${Math.ceil(per / BATCH) * AGENTS} batches, ${failed} acked ok=false, ${(ms / 1000).toFixed(2)} s)`);
    // CPU time holds on a busy machine where wall time does not: results per CPU-second of the
    // control plane (gRPC, encoding, and with chDB the engine and its merges, all threads) is its capacity per core.
    const cpMs = (cpu.user + cpu.system) / 1000;
    const agentMs = reports.reduce((n, r) => n + r.cpuMs, 0);
    const merged = store.mergeStats;
    if (merged && merged0) console.log(`  merged inserts             : ${merged.inserts - merged0.inserts} for ${merged.batches - merged0.batches} batches (${Math.round((merged.rows - merged0.rows) / Math.max(1, merged.inserts - merged0.inserts)).toLocaleString('en-US')} rows each)`);
    const th1 = threadCpuMs();
    if (th0.size > 0) {
      const perThread = [...th1].map(([name, ms]) => [name, (ms - (th0.get(name) ?? 0)) * 1000 / (per * AGENTS)] as const)
        .filter(([, us]) => us >= 0.05).sort((a, b) => b[1] - a[1]);
      console.log(`  by thread, µs per result   : ${perThread.map(([name, us]) => `${name} ${us.toFixed(1)}`).join(', ')}`);
    }
    console.log(`  control plane CPU          : ${((cpMs * 1000) / (per * AGENTS)).toFixed(1)} µs per result = ${rate(per * AGENTS, cpMs)} results per CPU-second${target.url ? ' (this process only, not the server)' : ''}; agents ${((agentMs * 1000) / (per * AGENTS)).toFixed(1)} µs per result`);
    server.forceShutdown();
  }

  // 2. Store alone: insertBatch with WINDOW concurrent calls.
  {
    const batches = makeBatches('store', TOTAL, BATCH);
    const started = performance.now();
    await insertConcurrently(store, batches, WINDOW);
    const ms = performance.now() - started;
    figures.store = rate(TOTAL, ms);
    console.log(`store.insertBatch only      : ${figures.store} results/s (${(ms / batches.length).toFixed(1)} ms per batch of ${BATCH})`);
  }

  const stored = await store.countResults();
  console.log(`rows stored: ${stored.toLocaleString('en-US')} (expected ${(2 * TOTAL).toLocaleString('en-US')}); rss ${Math.round(process.memoryUsage().rss / 1e6)} MB`);
  if (target.database) await store.command(`DROP DATABASE IF EXISTS ${target.database}`);
  await store.close();
  rmSync(dir, { recursive: true, force: true });
  return figures;
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
