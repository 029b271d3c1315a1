// Where ingest time goes: CPU time per result (process.cpuUsage covers every thread of this
// process, chDB's included, so figures hold on a busy machine) for each stage a result passes:
// protobuf encode (agent), protobuf decode (control plane), row encoding, and the chDB insert
// with and without the rollup views. Run: npx tsx bench/ingest-profile.ts [batchSize] [batches]
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as protoLoader from '@grpc/proto-loader';
import pino from 'pino';
import { PROTO_PATH, LOADER_OPTIONS, type ResultBatch } from '@upfleet/proto';
import { createResultStore } from '../control-plane/src/results/clickhouse-store';
import { makeBatches } from './ingest-data';
import { encodeRows } from '../control-plane/src/results/row-encoding';
import { decodeResultBatch } from '../control-plane/src/grpc/result-batch-decoder';

const SIZE = Number(process.argv[2] ?? 1000);
const N = Number(process.argv[3] ?? 20);

function cpu<T>(label: string, rows: number, fn: () => T): T {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const out = fn();
  const c = process.cpuUsage(c0);
  console.log(`${label.padEnd(44)} ${(((c.user + c.system) / rows)).toFixed(2).padStart(7)} µs CPU/result  ${((performance.now() - t0) * 1000 / rows).toFixed(2).padStart(7)} µs wall/result`);
  return out;
}
async function cpuAsync(label: string, rows: number, fn: () => Promise<unknown>): Promise<void> {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  await fn();
  const c = process.cpuUsage(c0);
  console.log(`${label.padEnd(44)} ${(((c.user + c.system) / rows)).toFixed(2).padStart(7)} µs CPU/result  ${((performance.now() - t0) * 1000 / rows).toFixed(2).padStart(7)} µs wall/result`);
}

async function main(): Promise<void> {
  const def = protoLoader.loadSync(PROTO_PATH, LOADER_OPTIONS);
  const type = def['upfleet.agent.v1.ResultBatch'] as unknown as { serialize(v: unknown): Buffer; deserialize(b: Buffer): ResultBatch };
  const batches = makeBatches('p', SIZE * N, SIZE);
  const rows = SIZE * N;
  const bufs = cpu('protobuf serialize (agent side)', rows, () => batches.map((b) => type.serialize(b)));
  cpu('protobuf deserialize + toObject (proto-loader)', rows, () => bufs.map((b) => type.deserialize(b)));
  const decoded = cpu('protobuf decode (grpc/result-batch-decoder.ts)', rows, () => bufs.map((b) => decodeResultBatch(b)));

  cpu('row encoding (RowBinary payload)', rows, () => decoded.map((b) => encodeRows(b.results, 'bench')));

  const dir = mkdtempSync(path.join(os.tmpdir(), 'upfleet-ingest-profile-'));
  const store = createResultStore({ clickhouseUrl: null, dataDir: dir, logger: pino({ level: 'warn' }), insertLanes: 1 });
  await store.init();
  for (let w = 0; w < 3; w++) await store.insertBatch(`warm${w}`, 'bench', decoded[w].results);
  let i = 0;
  await cpuAsync('insertBatch (raw + 2 rollup views)', rows, async () => {
    for (const b of decoded) await store.insertBatch(`a${i++}`, 'bench', b.results);
  });
  await cpuAsync('insertBatch again (all deduplicated)', rows, async () => {
    i = 0;
    for (const b of decoded) await store.insertBatch(`a${i++}`, 'bench', b.results);
  });
  console.log(`rows stored: ${await store.countResults()} (expected ${rows + 3 * SIZE})`);
  await store.close();
  rmSync(dir, { recursive: true, force: true });
}
main().catch((e) => { console.error(e); process.exit(1); });
