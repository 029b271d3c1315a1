import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { Registry } from 'prom-client';
import { grpc, loadAgentService, type AgentServiceClient, type BatchAck, type CheckResult, type ResultBatch } from '@upfleet/proto';
import { createResultStore, type ClickHouseResultStore, type ResultStore } from '../results/clickhouse-store';
import { admitAnyCheck } from '../testing/admit-any-check';
import { createReportResultsHandler, type AuthenticatedAgent } from './report-results';
import { agentServiceDefinition } from './server';

const logger = pino({ level: 'silent' });
const HOUR = 3_600_000;
const T0 = Math.floor(Date.now() / HOUR) * HOUR - 2 * HOUR;
let nextEndpoint = 5000;

function result(endpointId: number, i: number, over: Partial<CheckResult> = {}): CheckResult {
  return {
    check_id: `${endpointId}:http:EU-Germany`, endpoint_id: endpointId, kind: 'CHECK_KIND_HTTP', region: 'EU-Germany',
    ts_ms: T0 + i * 1000, ok: true, phase: '', error: '', status_code: 200, dns_ms: 1, connect_ms: 1, tls_ms: 0,
    ttfb_ms: 5, total_ms: 10, cert_days_left: 0, cert_not_after_ms: 0, cert_issuer: '', cert_subject: '',
    ping_method: '', redirects: 0, retention_days: 30, result_id: `${endpointId}-${i}`, ...over,
  };
}

/** A store whose inserts can be made to fail, or observed, around the real one. */
class ObservedStore implements Pick<ResultStore, 'insertBatch'> {
  failNext = 0;
  active = 0;
  maxActive = 0;
  delayMs = 0;
  constructor(private readonly inner: ResultStore) {}
  async insertBatch(batchId: string, agentId: string, results: CheckResult[]): Promise<void> {
    this.active++;
    this.maxActive = Math.max(this.maxActive, this.active);
    try {
      if (this.delayMs) await new Promise((r) => setTimeout(r, this.delayMs));
      if (this.failNext > 0) {
        this.failNext--;
        throw new Error('disk full');
      }
      await this.inner.insertBatch(batchId, agentId, results);
    } finally {
      this.active--;
    }
  }
}

describe('ReportResults over gRPC on loopback', () => {
  let dir: string;
  let store: ClickHouseResultStore;
  let observed: ObservedStore;
  let server: grpc.Server;
  let client: AgentServiceClient;
  const metrics = new Registry();
  /** A sample's value in the Prometheus text GET /metrics serves; 0 when absent. */
  const sample = async (line: string) => Number((await metrics.metrics()).split('\n').find((l) => l.startsWith(`${line} `))?.split(' ')[1] ?? 0);
  const agents = new Map<string, AuthenticatedAgent>([['good', { agentId: 'agent-1', region: 'EU-Germany' }]]);
  let onStored: (results: CheckResult[]) => void = () => {};

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'upfleet-report-'));
    store = createResultStore({ clickhouseUrl: null, dataDir: dir, logger });
    await store.init();
    observed = new ObservedStore(store);
    const AgentService = loadAgentService();
    server = new grpc.Server();
    server.addService(agentServiceDefinition(), {
      ReportResults: createReportResultsHandler({
        store: observed,
        logger,
        maxInFlight: 2,
        maxBatchResults: 100,
        onStored: (results) => onStored(results),
        metrics,
        admit: admitAnyCheck(),
        authenticate: (call) => {
          const token = String(call.metadata.get('authorization')[0] ?? '').replace(/^Bearer /, '');
          const agent = agents.get(token);
          if (!agent) throw Object.assign(new Error('unknown agent'), { code: grpc.status.UNAUTHENTICATED });
          return agent;
        },
      }),
    });
    const port = await new Promise<number>((resolve, reject) =>
      server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))),
    );
    client = new AgentService(`127.0.0.1:${port}`, grpc.credentials.createInsecure()) as unknown as AgentServiceClient;
  });

  afterAll(async () => {
    client?.close();
    await new Promise<void>((r) => server.tryShutdown(() => r()));
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  function open(token = 'good') {
    const md = new grpc.Metadata();
    md.set('authorization', `Bearer ${token}`);
    const stream = client.ReportResults(md);
    const acks: BatchAck[] = [];
    const waiters: Array<() => void> = [];
    stream.on('data', (a: BatchAck) => {
      acks.push(a);
      waiters.splice(0).forEach((w) => w());
    });
    const until = async (n: number) => {
      while (acks.length < n) await new Promise<void>((r) => waiters.push(r));
      return acks.slice(0, n);
    };
    const closed = new Promise<grpc.StatusObject | grpc.ServiceError>((resolve) => {
      stream.on('status', resolve);
      stream.on('error', resolve);
    });
    return { stream, acks, until, closed };
  }

  it('acks a batch only once its results are stored', async () => {
    const ep = nextEndpoint++;
    const s = open();
    s.stream.write({ batch_id: 'b-stored', results: [result(ep, 0), result(ep, 1), result(ep, 2)] } satisfies ResultBatch);
    const [ack] = await s.until(1);
    expect(ack).toEqual({ batch_id: 'b-stored', ok: true, error: '' });
    // Counted at the moment of the ack: the ack followed the insert.
    expect(await store.countResults({ endpointId: ep })).toBe(3);
    s.stream.end();
    expect((await s.closed).code).toBe(grpc.status.OK);
  });

  it('acks a re-sent batch again and stores it once', async () => {
    const ep = nextEndpoint++;
    const s = open();
    const batch = { batch_id: 'b-resend', results: [result(ep, 0), result(ep, 1)] };
    s.stream.write(batch);
    s.stream.write(batch);
    const acks = await s.until(2);
    expect(acks.map((a) => a.ok)).toEqual([true, true]);
    expect(await store.countResults({ endpointId: ep })).toBe(2);
    expect(await store.countResults({ endpointId: ep, table: '1h' })).toBe(2);
    s.stream.end();
  });

  it('acks in order of arrival while several batches are stored concurrently, never more than the bound', async () => {
    const ep = nextEndpoint++;
    observed.delayMs = 20;
    observed.maxActive = 0;
    const s = open();
    const ids = Array.from({ length: 12 }, (_, i) => `b-order-${i}`);
    ids.forEach((id, i) => s.stream.write({ batch_id: id, results: [result(ep, i)] }));
    const acks = await s.until(12);
    observed.delayMs = 0;
    expect(acks.map((a) => a.batch_id)).toEqual(ids);
    expect(acks.every((a) => a.ok)).toBe(true);
    expect(observed.maxActive).toBe(2);
    expect(await store.countResults({ endpointId: ep })).toBe(12);
    s.stream.end();
  });

  it('acks ok=false when the store fails, keeps the stream open, and stores the re-sent batch', async () => {
    const ep = nextEndpoint++;
    const s = open();
    observed.failNext = 1;
    const batch = { batch_id: 'b-fail', results: [result(ep, 0)] };
    s.stream.write(batch);
    const [failed] = await s.until(1);
    expect(failed.ok).toBe(false);
    expect(failed.batch_id).toBe('b-fail');
    expect(failed.error).toMatch(/re-send/);
    expect(await store.countResults({ endpointId: ep })).toBe(0);
    s.stream.write(batch);
    const [, retried] = await s.until(2);
    expect(retried.ok).toBe(true);
    expect(await store.countResults({ endpointId: ep })).toBe(1);
    s.stream.end();
    expect((await s.closed).code).toBe(grpc.status.OK);
  });

  it('counts stored results, batches by outcome and store time on the registry it is given', async () => {
    const ep = nextEndpoint++;
    const before = {
      results: await sample('upfleet_ingest_results_total'),
      ok: await sample('upfleet_ingest_batches_total{result="ok"}'),
      failed: await sample('upfleet_ingest_batches_total{result="failed"}'),
      timed: await sample('upfleet_ingest_batch_duration_seconds_count'),
    };
    const s = open();
    observed.failNext = 1;
    s.stream.write({ batch_id: 'b-metrics-1', results: [result(ep, 0)] });
    s.stream.write({ batch_id: 'b-metrics-2', results: [result(ep, 1), result(ep, 2), result(ep, 3, { kind: 'CHECK_KIND_UNSPECIFIED' })] });
    const acks = await s.until(2);
    expect(acks.map((a) => a.ok)).toEqual([false, true]);
    expect(await sample('upfleet_ingest_results_total')).toBe(before.results + 2);
    expect(await sample('upfleet_ingest_batches_total{result="ok"}')).toBe(before.ok + 1);
    expect(await sample('upfleet_ingest_batches_total{result="failed"}')).toBe(before.failed + 1);
    expect(await sample('upfleet_ingest_batch_duration_seconds_count')).toBe(before.timed + 2);
    s.stream.end();
  });

  it('refuses invalid batches with ok=false and drops results of unknown kind', async () => {
    const ep = nextEndpoint++;
    const s = open();
    s.stream.write({ batch_id: '', results: [result(ep, 0)] });
    s.stream.write({ batch_id: 'b-huge', results: Array.from({ length: 101 }, (_, i) => result(ep, i)) });
    s.stream.write({ batch_id: 'b-mixed', results: [result(ep, 0), result(ep, 1, { kind: 'CHECK_KIND_UNSPECIFIED' }), result(ep, 2, { region: '' })] });
    const acks = await s.until(3);
    expect(acks[0]).toMatchObject({ ok: false, error: expect.stringMatching(/batch_id/) });
    expect(acks[1]).toMatchObject({ batch_id: 'b-huge', ok: false, error: expect.stringMatching(/at most 100/) });
    expect(acks[2]).toMatchObject({ batch_id: 'b-mixed', ok: true, error: expect.stringMatching(/1 results/) });
    expect(await store.countResults({ endpointId: ep })).toBe(2);
    // A result without a region takes the agent's.
    const series = await store.graphs(ep, { fromMs: T0 - HOUR, toMs: T0 + HOUR, functions: ['response_code'] });
    expect(series.map((x) => x.location)).toEqual(['EU-Germany']);
    s.stream.end();
  });

  it('ends the stream with UNAUTHENTICATED when authentication fails, storing nothing', async () => {
    const ep = nextEndpoint++;
    const s = open('stranger');
    s.stream.write({ batch_id: 'b-anon', results: [result(ep, 0)] });
    const status = await s.closed;
    expect(status.code).toBe(grpc.status.UNAUTHENTICATED);
    expect(s.acks).toEqual([]);
    expect(await store.countResults({ endpointId: ep })).toBe(0);
  });

  it('hands stored results to the alert hook, never for a failed insert, and acks ok when the hook throws', async () => {
    const ep = nextEndpoint++;
    const seen: string[][] = [];
    const s = open();
    onStored = (results) => {
      seen.push(results.map((r) => r.result_id));
      throw new Error('alerting is broken');
    };
    observed.failNext = 1;
    s.stream.write({ batch_id: 'b-hook-fail', results: [result(ep, 0)] });
    s.stream.write({ batch_id: 'b-hook', results: [result(ep, 1), result(ep, 2)] });
    const acks = await s.until(2);
    expect(acks.map((a) => a.ok)).toEqual([false, true]);
    await new Promise((r) => setTimeout(r, 50));
    expect(seen).toEqual([[`${ep}-1`, `${ep}-2`]]);
    onStored = () => {};
    s.stream.end();
    expect((await s.closed).code).toBe(grpc.status.OK);
  });
});

describe('ReportResults across streams after a restart (every agent sends its backlog at once)', () => {
  let dir: string;
  let store: ClickHouseResultStore;
  let observed: ObservedStore;
  let server: grpc.Server;
  let client: AgentServiceClient;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'upfleet-report-budget-'));
    store = createResultStore({ clickhouseUrl: null, dataDir: dir, logger });
    await store.init();
    observed = new ObservedStore(store);
    const AgentService = loadAgentService();
    server = new grpc.Server();
    server.addService(agentServiceDefinition(), {
      ReportResults: createReportResultsHandler({
        store: observed, logger, maxInFlight: 8, inFlightLimits: { results: 5, batches: 2 }, admit: admitAnyCheck(),
        authenticate: (call) => ({ agentId: String(call.metadata.get('authorization')[0] ?? ''), region: 'EU-Germany' }),
      }),
    });
    const port = await new Promise<number>((resolve, reject) =>
      server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))),
    );
    client = new AgentService(`127.0.0.1:${port}`, grpc.credentials.createInsecure()) as unknown as AgentServiceClient;
  });

  afterAll(async () => {
    client?.close();
    await new Promise<void>((r) => server.tryShutdown(() => r()));
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('stores at most the shared budget at once across all agents, and acks every batch of every agent in order', async () => {
    observed.delayMs = 10;
    const streams = ['agent-a', 'agent-b', 'agent-c'].map((agentId) => {
      const md = new grpc.Metadata();
      md.set('authorization', agentId);
      const stream = client.ReportResults(md);
      const acks: BatchAck[] = [];
      const done = new Promise<void>((resolve) => {
        stream.on('data', (a: BatchAck) => {
          acks.push(a);
          if (acks.length === 6) resolve();
        });
      });
      const ep = nextEndpoint++;
      // a batch of 4 results and five of 1: the big one fits only beside one small one
      const ids = Array.from({ length: 6 }, (_, i) => `${agentId}-${i}`);
      ids.forEach((id, i) => stream.write({ batch_id: id, results: i === 0 ? [0, 1, 2, 3].map((k) => result(ep, 10 + k)) : [result(ep, i)] }));
      return { stream, acks, done, ids, ep };
    });
    await Promise.all(streams.map((s) => s.done));
    observed.delayMs = 0;
    expect(observed.maxActive).toBe(2);
    for (const s of streams) {
      expect(s.acks.map((a) => a.batch_id)).toEqual(s.ids);
      expect(s.acks.every((a) => a.ok)).toBe(true);
      expect(await store.countResults({ endpointId: s.ep })).toBe(9);
      s.stream.end();
    }
  });
});
