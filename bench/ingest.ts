// Ingest benchmark: results/s from a gRPC ReportResults stream (grpc-js client on loopback → handler →
// embedded chDB) from agent processes, and the store alone.
// Run: npx tsx bench/ingest.ts [totalResults] [batchSize] [window]
// Env: INGEST_AGENTS (4), INSERT_LANES (store default), MERGE_INSERTS=0 (one insert per batch),
// INGEST_AGENT_ENCODE=live (agents encode protobuf during the run, on this machine's cores).
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { grpc } from '@upfleet/proto';
import { createResultStore } from '../control-plane/src/results/clickhouse-store';
import { createReportResultsHandler } from '../control-plane/src/grpc/report-results';
import { agentServiceDefinition } from '../control-plane/src/grpc/server';
import { makeBatches } from './ingest-data';
import { spawn } from 'node:child_process';

const TOTAL = Number(process.argv[2] ?? 200_000);
const BATCH = Number(process.argv[3] ?? 2000);
const WINDOW = Number(process.argv[4] ?? 4);
const logger = pino({ level: 'warn' });
const rate = (n: number, ms: number) => Math.round((n * 1000) / ms).toLocaleString('en-US');

// Top-level await would need an ESM marker in bench/; a main() keeps the script standalone.
async function main(): Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'upfleet-bench-ingest-'));
  const LANES = process.env.INSERT_LANES ? Number(process.env.INSERT_LANES) : undefined;
  const MERGE = process.env.MERGE_INSERTS !== '0';
  const store = createResultStore({ clickhouseUrl: null, dataDir: dir, logger, insertLanes: LANES, mergeInserts: MERGE });
  await store.init();
  console.log(`ingest benchmark: ${TOTAL.toLocaleString('en-US')} results per run, batches of ${BATCH}, ${WINDOW} in flight, ${LANES ?? 'default'} insert connections, ${MERGE ? 'merged inserts' : 'one insert per batch'}, chDB at ${dir}`);

  // 1. gRPC ReportResults on loopback from agent processes (as in production: the agents' own
  //    encoding runs outside the control plane), each keeping WINDOW batches un-acked.
  {
    const AGENTS = Number(process.env.INGEST_AGENTS ?? 4);
    const server = new grpc.Server({ 'grpc.max_receive_message_length': 64 * 1024 * 1024 });
    server.addService(agentServiceDefinition(), {
      ReportResults: createReportResultsHandler({
        store, logger, maxInFlight: WINDOW, authenticate: () => ({ agentId: 'bench', region: 'EU-Germany' }),
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
      a.stdout!.on('data', (d) => {
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
    const started = performance.now();
    const cpu0 = process.cpuUsage();
    const merged0 = store.mergeStats;
    for (const a of agents) a.stdin!.write('go\n');
    const reports = (await Promise.all(done)).map((l) => JSON.parse(l) as { sent: number; failed: number; cpuMs: number });
    const ms = performance.now() - started;
    const cpu = process.cpuUsage(cpu0);
    const failed = reports.reduce((n, r) => n + r.failed, 0);
    console.log(`gRPC ReportResults → chDB   : ${rate(per * AGENTS, ms)} results/s (${AGENTS} agent processes, ${Math.ceil(per / BATCH) * AGENTS} batches, ${failed} acked ok=false, ${(ms / 1000).toFixed(2)} s)`);
    // CPU time holds on a busy machine where wall time does not: results per CPU-second of the
    // control plane (gRPC, encoding, chDB and its merges, all threads) is its capacity per core.
    const cpMs = (cpu.user + cpu.system) / 1000;
    const agentMs = reports.reduce((n, r) => n + r.cpuMs, 0);
    const merged = store.mergeStats;
    if (merged && merged0) console.log(`  merged inserts             : ${merged.inserts - merged0.inserts} for ${merged.batches - merged0.batches} batches (${Math.round((merged.rows - merged0.rows) / Math.max(1, merged.inserts - merged0.inserts)).toLocaleString('en-US')} rows each)`);
    console.log(`  control plane CPU          : ${((cpMs * 1000) / (per * AGENTS)).toFixed(1)} µs per result = ${rate(per * AGENTS, cpMs)} results per CPU-second; agents ${((agentMs * 1000) / (per * AGENTS)).toFixed(1)} µs per result`);
    server.forceShutdown();
  }

  // 2. Store alone: insertBatch with WINDOW concurrent calls.
  {
    const batches = makeBatches('store', TOTAL, BATCH);
    const started = performance.now();
    let next = 0;
    await Promise.all(Array.from({ length: WINDOW }, async () => {
      while (next < batches.length) {
        const b = batches[next++]!;
        await store.insertBatch(b.batch_id, 'bench', b.results);
      }
    }));
    const ms = performance.now() - started;
    console.log(`store.insertBatch only      : ${rate(TOTAL, ms)} results/s (${(ms / batches.length).toFixed(1)} ms per batch of ${BATCH})`);
  }

  const stored = await store.countResults();
  console.log(`rows stored: ${stored.toLocaleString('en-US')} (expected ${(2 * TOTAL).toLocaleString('en-US')}); rss ${Math.round(process.memoryUsage().rss / 1e6)} MB`);
  await store.close();
  rmSync(dir, { recursive: true, force: true });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
