// Ingest benchmark: results/s from a gRPC ReportResults stream (grpc-js client on loopback → handler →
// embedded chDB), and the store alone. Run: npx tsx bench/ingest.ts [totalResults] [batchSize] [window]
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { grpc, loadAgentService, type AgentServiceClient, type BatchAck, type CheckResult, type ResultBatch } from '@upfleet/proto';
import { createResultStore } from '../control-plane/src/results/clickhouse-store';
import { createReportResultsHandler } from '../control-plane/src/grpc/report-results';

const TOTAL = Number(process.argv[2] ?? 200_000);
const BATCH = Number(process.argv[3] ?? 1000);
const WINDOW = Number(process.argv[4] ?? 4);
const logger = pino({ level: 'warn' });
const HOUR = 3_600_000;
const T0 = Math.floor(Date.now() / HOUR) * HOUR - 6 * HOUR;
const KINDS = ['CHECK_KIND_HTTP', 'CHECK_KIND_PING', 'CHECK_KIND_TLS'] as const;
const REGIONS = ['EU-Germany', 'US-Virginia', 'AP-Singapore'];

function makeBatches(prefix: string, total: number, size: number): ResultBatch[] {
  const out: ResultBatch[] = [];
  for (let b = 0; b * size < total; b++) {
    const results: CheckResult[] = [];
    for (let j = 0; j < size; j++) {
      const i = b * size + j;
      const kind = KINDS[i % 3]!;
      results.push({
        check_id: `${i % 2000}:${kind}`, endpoint_id: 1 + (i % 2000), kind, region: REGIONS[i % 3]!,
        ts_ms: T0 + Math.floor(i / 10) * 10, ok: i % 17 !== 0, phase: i % 17 === 0 ? 'http' : '',
        error: i % 17 === 0 ? 'HTTP 503' : '', status_code: i % 17 === 0 ? 503 : 200, dns_ms: 1.2, connect_ms: 3.4,
        tls_ms: 8.1, ttfb_ms: 40.5, total_ms: 50 + (i % 100), cert_days_left: kind === 'CHECK_KIND_TLS' ? 80 : 0,
        cert_not_after_ms: kind === 'CHECK_KIND_TLS' ? T0 + 80 * 24 * HOUR : 0, cert_issuer: 'R11', cert_subject: 'CN=example.com',
        ping_method: kind === 'CHECK_KIND_PING' ? 'icmp' : '', redirects: 0, retention_days: 30,
        result_id: `${prefix}-${i}`,
      });
    }
    out.push({ batch_id: `${prefix}-${b}`, results });
  }
  return out;
}

const rate = (n: number, ms: number) => Math.round((n * 1000) / ms).toLocaleString('en-US');

// Top-level await would need an ESM marker in bench/; a main() keeps the script standalone.
async function main(): Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'upfleet-bench-ingest-'));
  const LANES = Number(process.env.INSERT_LANES ?? 2);
  const store = createResultStore({ clickhouseUrl: null, dataDir: dir, logger, insertLanes: LANES });
  await store.init();
  console.log(`ingest benchmark: ${TOTAL.toLocaleString('en-US')} results per run, batches of ${BATCH}, ${WINDOW} in flight, ${LANES} insert connections, chDB at ${dir}`);

  // 1. Store alone: insertBatch with WINDOW concurrent calls.
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

  // 2. gRPC ReportResults on loopback: client keeps WINDOW batches un-acked.
  {
    const AgentService = loadAgentService();
    const server = new grpc.Server({ 'grpc.max_receive_message_length': 64 * 1024 * 1024 });
    server.addService(AgentService.service, {
      ReportResults: createReportResultsHandler({
        store, logger, maxInFlight: WINDOW, authenticate: () => ({ agentId: 'bench', region: 'EU-Germany' }),
      }),
    });
    const port = await new Promise<number>((res, rej) =>
      server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (e, p) => (e ? rej(e) : res(p))));
    const client = new AgentService(`127.0.0.1:${port}`, grpc.credentials.createInsecure()) as unknown as AgentServiceClient;
    const batches = makeBatches('grpc', TOTAL, BATCH);
    const stream = client.ReportResults(new grpc.Metadata());
    const started = performance.now();
    let sent = 0;
    let acked = 0;
    let failed = 0;
    await new Promise<void>((resolve, reject) => {
      const pump = () => {
        while (sent < batches.length && sent - acked < WINDOW) stream.write(batches[sent++]);
        if (sent === batches.length && acked === batches.length) stream.end();
      };
      stream.on('data', (a: BatchAck) => {
        acked++;
        if (!a.ok) failed++;
        pump();
      });
      stream.on('status', () => resolve());
      stream.on('error', reject);
      pump();
    });
    const ms = performance.now() - started;
    console.log(`gRPC ReportResults → chDB   : ${rate(TOTAL, ms)} results/s (${batches.length} batches, ${failed} acked ok=false, ${(ms / 1000).toFixed(2)} s)`);
    client.close();
    server.forceShutdown();
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
