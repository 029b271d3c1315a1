// The agent's side of ingest: results written to the SQLite outbox as checks finish, taken out in
// batches, serialized for the ReportResults stream exactly as the agent's gRPC client does, and
// acked. Prints results/s and CPU microseconds per result.
// Run: npm run bench:ingest-agent [-- results=200000] [batchSize=2000] [addChunk=50]
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadAgentService, type CheckResult } from '@upfleet/proto';
import { openAgentDb } from '../agent/src/buffer/agent-db';
import { createOutbox } from '../agent/src/buffer/sqlite-outbox';

const TOTAL = Number(process.argv[2] ?? 200_000);
const BATCH = Number(process.argv[3] ?? 2000);
const CHUNK = Number(process.argv[4] ?? 50);

const serialize = loadAgentService().service.ReportResults.requestSerialize as (v: unknown) => Buffer;

function result(i: number): CheckResult {
  return {
    check_id: `${i % 5000}:http:EU-Germany`, endpoint_id: i % 5000, kind: 'CHECK_KIND_HTTP', region: 'EU-Germany',
    ts_ms: 1_760_000_000_000 + i, ok: i % 50 !== 0, phase: i % 50 === 0 ? 'connect' : '', error: i % 50 === 0 ? 'connect ECONNREFUSED 203.0.113.7:443' : '',
    status_code: i % 50 === 0 ? 0 : 200, dns_ms: 1.25, connect_ms: 12.5, tls_ms: 20.75, ttfb_ms: 80.125, total_ms: 114.5,
    cert_days_left: 0, cert_not_after_ms: 0, cert_issuer: '', cert_subject: '', ping_method: '', redirects: 0,
    retention_days: 90, result_id: `4f1c9a2e-7b3d-4e8a-9c1f-${String(i).padStart(12, '0')}`,
  };
}

function run(): { ms: number; cpuUs: number; bytes: number } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'upfleet-outbox-bench-'));
  const db = openAgentDb({ dataDir: dir });
  const outbox = createOutbox(db, { cap: TOTAL * 2 });
  const rows = Array.from({ length: TOTAL }, (_, i) => result(i));
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  let bytes = 0;
  for (let i = 0; i < TOTAL; i += CHUNK) outbox.add(rows.slice(i, i + CHUNK));
  for (;;) {
    const b = outbox.takeBatch(BATCH);
    if (!b) break;
    bytes += serialize(b).length;
    outbox.ack(b.batch_id);
  }
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  db.close();
  rmSync(dir, { recursive: true, force: true });
  return { ms, cpuUs: cpu.user + cpu.system, bytes };
}

run(); // warm-up (JIT, page cache)
const figures = [run(), run(), run()].sort((a, b) => a.ms - b.ms);
const best = figures[0];
console.log(`agent outbox: ${TOTAL.toLocaleString('en-US')} results, batches of ${BATCH}, added ${CHUNK} at a time`);
console.log(`  ${Math.round((TOTAL * 1000) / best.ms).toLocaleString('en-US')} results/s (best of 3), ${(best.cpuUs / TOTAL).toFixed(2)} us CPU per result, ${(best.bytes / TOTAL).toFixed(1)} wire bytes per result`);
console.log(`  all runs: ${figures.map((f) => `${Math.round((TOTAL * 1000) / f.ms).toLocaleString('en-US')}/s`).join(', ')}`);
