// A tiny real AgentService (grpc-js on loopback) for the agent's own tests and benchmarks: it
// registers, serves assignments, stores batches once per batch id and acks them, or holds acks.
import { randomUUID } from 'node:crypto';
import {
  grpc, loadAgentService,
  type AgentServiceHandlers, type Assignment, type AssignmentUpdate, type BatchAck, type CheckResult,
  type HeartbeatRequest, type RegisterRequest, type ResultBatch, type WatchAssignmentsRequest,
} from '@upfleet/proto';

export type AckMode = 'ack' | 'hold' | 'nack';

export interface TestControlPlaneOptions {
  port?: number;
  tls?: { cert: string; key: string };
  bootstrapToken?: string;
  assignments?: Assignment[];
  heartbeatIntervalSeconds?: number;
  /** agent credentials (id → secret) of an earlier instance, to play a restarted control plane */
  agents?: Map<string, string>;
  /** to agents that accept chunks, snapshots leave in chunks of this many assignments */
  snapshotChunk?: number;
}

export interface TestControlPlane {
  address: string;
  port: number;
  registrations: RegisterRequest[];
  heartbeats: { agentId: string; req: HeartbeatRequest }[];
  /** every batch received, re-sends included */
  batches: ResultBatch[];
  /** results stored once per batch id, by result_id */
  stored: Map<string, CheckResult>;
  ackMode: AckMode;
  revoked: Set<string>;
  /** issued credentials, id → secret */
  agents: Map<string, string>;
  watchers(): number;
  /** every WatchAssignments request, reconnects included */
  watchRequests: WatchAssignmentsRequest[];
  /** the next snapshot sent stops after this many chunks and the stream ends (UNAVAILABLE) */
  breakAfterChunks: number | null;
  /** new watch streams get no snapshot on connect (only what setAssignments sends later) */
  quietWatch: boolean;
  setAssignments(list: Assignment[]): void;
  pushDelta(upserts: Assignment[], removed: string[]): void;
  close(): Promise<void>;
}

export function waitFor(pred: () => boolean, timeoutMs = 10_000, what = 'condition'): Promise<void> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const tick = (): void => {
      if (pred()) return resolve();
      if (Date.now() - started > timeoutMs) return reject(new Error(`timed out waiting for ${what}`));
      setTimeout(tick, 20);
    };
    tick();
  });
}

export async function startTestControlPlane(opts: TestControlPlaneOptions = {}): Promise<TestControlPlane> {
  const token = opts.bootstrapToken ?? 'bootstrap-token';
  const secrets = opts.agents ?? new Map<string, string>();
  const storedBatches = new Set<string>();
  const streams = new Set<grpc.ServerWritableStream<unknown, AssignmentUpdate>>();
  let assignments = opts.assignments ?? [];
  let version = 1;
  const chunked = new WeakSet<object>();
  /** a snapshot in chunks (to agents that accept them), or cut short when breakAfterChunks says so */
  const sendSnapshot = (s: grpc.ServerWritableStream<unknown, AssignmentUpdate>): void => {
    const size = opts.snapshotChunk && chunked.has(s) ? opts.snapshotChunk : Math.max(1, assignments.length);
    const chunks: Assignment[][] = [];
    for (let i = 0; i < assignments.length; i += size) chunks.push(assignments.slice(i, i + size));
    if (chunks.length === 0) chunks.push([]);
    const cut = cp.breakAfterChunks;
    for (let i = 0; i < chunks.length; i++) {
      if (cut !== null && i >= cut) {
        cp.breakAfterChunks = null;
        streams.delete(s);
        s.emit('error', { code: grpc.status.UNAVAILABLE, details: 'control plane going away', metadata: new grpc.Metadata() });
        return;
      }
      s.write({ version, snapshot: { assignments: chunks[i], more: i < chunks.length - 1 } });
    }
  };

  const cp: TestControlPlane = {
    address: '',
    port: 0,
    registrations: [],
    heartbeats: [],
    batches: [],
    stored: new Map(),
    ackMode: 'ack',
    revoked: new Set(),
    agents: secrets,
    watchers: () => streams.size,
    watchRequests: [],
    breakAfterChunks: null,
    quietWatch: false,
    setAssignments(list) {
      assignments = list;
      version++;
      for (const s of [...streams]) sendSnapshot(s);
    },
    pushDelta(upserts, removed) {
      const ids = new Set(removed);
      const up = new Map(upserts.map((a) => [a.check_id, a]));
      assignments = [...assignments.filter((a) => !ids.has(a.check_id) && !up.has(a.check_id)), ...upserts];
      version++;
      for (const s of streams) s.write({ version, delta: { upserts, removed_check_ids: removed } });
    },
    close: async () => {},
  };

  const authorize = (md: grpc.Metadata): string | grpc.StatusObject => {
    const m = /^Bearer ([^.]+)\.(.+)$/.exec(String(md.get('authorization')[0] ?? ''));
    if (!m || secrets.get(m[1]) !== m[2]) {
      return { code: grpc.status.UNAUTHENTICATED, details: 'unknown agent credential', metadata: new grpc.Metadata() };
    }
    if (cp.revoked.has(m[1])) {
      return { code: grpc.status.UNAUTHENTICATED, details: 'agent revoked', metadata: new grpc.Metadata() };
    }
    return m[1];
  };

  const handlers: AgentServiceHandlers = {
    Register(call, cb) {
      cp.registrations.push(call.request);
      if (call.request.bootstrap_token !== token) {
        return cb({ code: grpc.status.UNAUTHENTICATED, details: 'invalid or revoked bootstrap token' });
      }
      const id = randomUUID();
      const secret = randomUUID();
      secrets.set(id, secret);
      cb(null, {
        agent_id: id, agent_secret: secret, region: call.request.region, lease_seconds: 30,
        heartbeat_interval_seconds: opts.heartbeatIntervalSeconds ?? 1,
      });
    },
    ReportRunNow(_call, cb) {
      cb(null, { accepted: false }); // this fake sends no RunNow
    },
    Heartbeat(call, cb) {
      const who = authorize(call.metadata);
      if (typeof who !== 'string') return cb(who);
      cp.heartbeats.push({ agentId: who, req: call.request });
      cb(null, { lease_seconds: 30 });
    },
    WatchAssignments(call) {
      const who = authorize(call.metadata);
      if (typeof who !== 'string') {
        call.emit('error', who);
        return;
      }
      cp.watchRequests.push(call.request);
      if ((call.request).accepts_snapshot_chunks) chunked.add(call);
      streams.add(call);
      call.on('cancelled', () => streams.delete(call));
      call.on('close', () => streams.delete(call));
      if (!cp.quietWatch) sendSnapshot(call);
    },
    ReportResults(call) {
      const who = authorize(call.metadata);
      if (typeof who !== 'string') {
        call.emit('error', who);
        return;
      }
      call.on('data', (b: ResultBatch) => {
        cp.batches.push(b);
        if (cp.ackMode === 'hold') return;
        if (cp.ackMode === 'nack') {
          call.write({ batch_id: b.batch_id, ok: false, error: 'store unavailable' } satisfies BatchAck);
          return;
        }
        // The batch id is the dedup token: a re-sent batch is acked but not stored twice.
        if (!storedBatches.has(b.batch_id)) {
          storedBatches.add(b.batch_id);
          for (const r of b.results) cp.stored.set(r.result_id, r);
        }
        call.write({ batch_id: b.batch_id, ok: true, error: '' } satisfies BatchAck);
      });
      call.on('end', () => call.end());
      call.on('error', () => {});
    },
  };

  const server = new grpc.Server();
  server.addService(loadAgentService().service, handlers);
  const creds = opts.tls
    ? grpc.ServerCredentials.createSsl(null, [{ cert_chain: Buffer.from(opts.tls.cert), private_key: Buffer.from(opts.tls.key) }])
    : grpc.ServerCredentials.createInsecure();
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`127.0.0.1:${opts.port ?? 0}`, creds, (err, p) => (err ? reject(err) : resolve(p))),
  );
  cp.port = port;
  cp.address = `127.0.0.1:${port}`;
  cp.close = () =>
    new Promise<void>((resolve) => {
      for (const s of streams) s.destroy();
      streams.clear();
      server.forceShutdown();
      resolve();
    });
  return cp;
}
