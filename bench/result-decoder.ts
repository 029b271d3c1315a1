// Is the hand-tuned ResultBatch decoder (control-plane/src/grpc/result-batch-decoder.ts) still
// worth keeping over @grpc/proto-loader's own decode (the generated types' shape)? Prints CPU per
// result for both on the same bytes (bench:ingest's batches). Run: npx tsx bench/result-decoder.ts
import { loadAgentService } from '@upfleet/proto';
import { decodeResultBatch } from '../control-plane/src/grpc/result-batch-decoder';
import { makeBatches } from './ingest-data';

const method = loadAgentService().service.ReportResults;
const bufs = makeBatches('bench', 100_000, 2000).map((b) => method.requestSerialize(b));
const ROUNDS = 3;

function cpuPerResult(decode: (b: Buffer) => unknown): number {
  for (const b of bufs.slice(0, 10)) decode(b); // warm-up
  const c0 = process.cpuUsage();
  for (let k = 0; k < ROUNDS; k++) for (const b of bufs) decode(b);
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / (ROUNDS * 100_000);
}

for (let round = 0; round < 2; round++) {
  console.log(`proto-loader requestDeserialize: ${cpuPerResult((b) => method.requestDeserialize(b)).toFixed(2)} us CPU per result`);
  console.log(`grpc/result-batch-decoder:       ${cpuPerResult(decodeResultBatch).toFixed(2)} us CPU per result`);
}
