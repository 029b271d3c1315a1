// One simulated agent for bench/ingest.ts: its own process (as real agents are), streaming
// pre-built result batches on ReportResults with a window of un-acked batches, then printing
// {"sent":N,"failed":M,"ms":T,"cpuMs":C} on stdout. Args: address prefix total batchSize window
import { grpc, loadAgentService, type AgentServiceClient, type BatchAck } from '@upfleet/proto';
import { makeBatches } from './ingest-data';

const [address, prefix, total, size, window] = process.argv.slice(2);
const batches = makeBatches(prefix!, Number(total), Number(size));
const AgentService = loadAgentService();
const client = new AgentService(address!, grpc.credentials.createInsecure(), {
  'grpc.max_send_message_length': 64 * 1024 * 1024,
}) as unknown as AgentServiceClient;
process.stdout.write('ready\n');
process.stdin.once('data', () => {
  const stream = client.ReportResults(new grpc.Metadata());
  const started = performance.now();
  const cpu0 = process.cpuUsage();
  let sent = 0;
  let acked = 0;
  let failed = 0;
  const pump = () => {
    while (sent < batches.length && sent - acked < Number(window)) stream.write(batches[sent++]);
    if (sent === batches.length && acked === batches.length) stream.end();
  };
  stream.on('data', (a: BatchAck) => {
    acked++;
    if (!a.ok) failed++;
    pump();
  });
  stream.on('status', () => {
    process.stdout.write(`${JSON.stringify({ sent: Number(total), failed, ms: performance.now() - started, cpuMs: ((c) => (c.user + c.system) / 1000)(process.cpuUsage(cpu0)) })}\n`);
    client.close();
    process.exit(0);
  });
  stream.on('error', (e) => {
    process.stderr.write(`${e.message}\n`);
    process.exit(1);
  });
  pump();
});
