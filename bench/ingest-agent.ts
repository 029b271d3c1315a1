// One simulated agent for bench/ingest.ts: its own process (as real agents are), streaming
// pre-built result batches on ReportResults with a window of un-acked batches, then printing
// {"sent":N,"failed":M,"ms":T,"cpuMs":C} on stdout. Args: address prefix total batchSize window
// Batches are protobuf-encoded before the run (INGEST_AGENT_ENCODE=live encodes them while
// sending): real agents encode on their own machines, so this machine's cores measure the
// control plane.
import { grpc, loadAgentService, type BatchAck, type ResultBatch } from '@upfleet/proto';
import { makeBatches } from './ingest-data';

const [address, prefix, total, size, window] = process.argv.slice(2);
const live = process.env.INGEST_AGENT_ENCODE === 'live';
const method = loadAgentService().service.ReportResults;
const batches = makeBatches(prefix, Number(total), Number(size));
const payloads: Array<ResultBatch | Buffer> = live ? batches : batches.map((b) => method.requestSerialize(b));
const Client = grpc.makeGenericClientConstructor(
  { ReportResults: { ...method, requestSerialize: (v: ResultBatch | Buffer) => (Buffer.isBuffer(v) ? v : method.requestSerialize(v)) } },
  'AgentService',
);
const client = new Client(address, grpc.credentials.createInsecure(), { 'grpc.max_send_message_length': 64 * 1024 * 1024 });
const report = (client as unknown as Record<string, (md: grpc.Metadata) => grpc.ClientDuplexStream<ResultBatch | Buffer, BatchAck>>).ReportResults.bind(client);
process.stdout.write('ready\n');
process.stdin.once('data', () => {
  const stream = report(new grpc.Metadata());
  const started = performance.now();
  const cpu0 = process.cpuUsage();
  let sent = 0;
  let acked = 0;
  let failed = 0;
  const pump = () => {
    while (sent < payloads.length && sent - acked < Number(window)) stream.write(payloads[sent++]);
    if (sent === payloads.length && acked === payloads.length) stream.end();
  };
  stream.on('data', (a: BatchAck) => {
    acked++;
    if (!a.ok) failed++;
    pump();
  });
  stream.on('status', () => {
    const cpu = process.cpuUsage(cpu0);
    process.stdout.write(`${JSON.stringify({ sent: Number(total), failed, ms: performance.now() - started, cpuMs: (cpu.user + cpu.system) / 1000 })}\n`);
    client.close();
    process.exit(0);
  });
  stream.on('error', (e) => {
    process.stderr.write(`${e.message}\n`);
    process.exit(1);
  });
  pump();
});
