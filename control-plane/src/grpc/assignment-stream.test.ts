// The WatchAssignments writer over real gRPC on loopback: a long snapshot reaches an agent that
// accepts chunks in chunks of at most K, every check once, before what follows it; an older agent
// gets it in one message.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grpc, loadAgentService, type AgentServiceClient, type Assignment, type AssignmentUpdate } from '@upfleet/proto';
import { createAssignmentSender } from './assignment-stream';

const K = 100;
const N = 1_050;
const assignment = (i: number): Assignment => ({
  check_id: `${i}:http:EU-Germany`, endpoint_id: i, kind: 'CHECK_KIND_HTTP', url: `https://e${i}.example.com/`,
  interval_seconds: 60, timeout_ms: 10_000, region: 'EU-Germany', retention_days: 30, private_targets_denied: false,
});

let server: grpc.Server;
let client: AgentServiceClient;

beforeAll(async () => {
  server = new grpc.Server();
  server.addService(loadAgentService().service, {
    WatchAssignments(call: grpc.ServerWritableStream<{ accepts_snapshot_chunks?: boolean }, AssignmentUpdate>) {
      const sender = createAssignmentSender(call, { chunks: call.request.accepts_snapshot_chunks === true, chunkSize: K });
      sender.send({ version: 7, snapshot: { assignments: Array.from({ length: N }, (_, i) => assignment(i)) } });
      sender.send({ version: 8, delta: { upserts: [assignment(N)], removed_check_ids: ['0:http:EU-Germany'] } });
      // a short snapshot afterwards goes whole, after the delta
      sender.send({ version: 9, snapshot: { assignments: [assignment(1)] } });
      setImmediate(function end() {
        if (sender.queued() > 0) setImmediate(end);
        else call.end();
      });
    },
  });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))));
  const Ctor = loadAgentService();
  client = new Ctor(`127.0.0.1:${port}`, grpc.credentials.createInsecure(), { 'grpc.max_receive_message_length': 64 * 1024 * 1024 }) as unknown as AgentServiceClient;
});
afterAll(() => {
  client?.close();
  server?.forceShutdown();
});

function receive(acceptsChunks: boolean | undefined): Promise<AssignmentUpdate[]> {
  return new Promise((resolve, reject) => {
    const got: AssignmentUpdate[] = [];
    const stream = client.WatchAssignments(acceptsChunks === undefined ? { known_version: 0 } : { known_version: 0, accepts_snapshot_chunks: acceptsChunks });
    stream.on('data', (u: AssignmentUpdate) => got.push(u));
    stream.on('end', () => resolve(got));
    stream.on('error', reject);
  });
}

describe('the assignment stream', () => {
  it('sends an agent that accepts chunks every check of a long snapshot once, in chunks of at most K, then what followed it', async () => {
    const got = await receive(true);
    const chunks = got.filter((u) => u.version === 7);
    expect(chunks).toHaveLength(Math.ceil(N / K));
    expect(chunks.every((u) => u.snapshot && u.snapshot.assignments.length <= K)).toBe(true);
    expect(chunks.map((u) => u.snapshot!.more)).toEqual([...Array<boolean>(chunks.length - 1).fill(true), false]);
    const ids = chunks.flatMap((u) => u.snapshot!.assignments.map((a) => a.check_id));
    expect(ids).toHaveLength(N);
    expect(new Set(ids).size).toBe(N);
    expect(ids).toEqual(Array.from({ length: N }, (_, i) => `${i}:http:EU-Germany`));
    // in order: the whole snapshot, then the delta, then the next (short, unchunked) snapshot
    expect(got.slice(chunks.length).map((u) => [u.version, u.delta ? 'delta' : u.snapshot ? 'snapshot' : 'none'])).toEqual([[8, 'delta'], [9, 'snapshot']]);
    expect(got[chunks.length + 1].snapshot).toMatchObject({ more: false, assignments: [{ check_id: '1:http:EU-Germany' }] });
  });

  it('sends an older agent (no accepts_snapshot_chunks) each snapshot in one message, as before', async () => {
    for (const flag of [undefined, false]) {
      const got = await receive(flag);
      expect(got.map((u) => u.version)).toEqual([7, 8, 9]);
      expect(got[0].snapshot!.assignments).toHaveLength(N);
      expect(got[0].snapshot!.more).toBe(false);
    }
  });
});
