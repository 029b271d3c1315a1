// Scale benchmark: the real control plane (child process, SQLite, a ClickHouse server from the tests'
// launcher) holding N endpoints in 3 regions at one-minute intervals, with A simulated agents: real
// gRPC clients (the proto's loaded client) that register, heartbeat, watch assignments and report one
// synthetic result per held check per minute, keeping an outbox of un-acked batches as real agents do.
// It runs a steady phase, restarts the control plane (same data, same ports), makes every agent
// reconnect at once, and runs a second phase. Printed: time until every check is placed again,
// event-loop delay inside the control plane (bench/scale-probe.ts), the dashboard list's REST p99
// during the reconnect storm, RSS, CPU per 1,000 results, and results lost or doubled (ClickHouse).
// Run: npm run bench:scale -- [--endpoints 100000] [--agents 30] [--seconds 60] [--json]
//   --seconds: length of each phase (steady before the restart, and after it)
//   --place-timeout S: give up waiting for every check to be placed after S seconds (900)
//   --cpu-prof DIR: V8 CPU profiles of the control-plane processes
//   --drain-timeout S: how long the agents may take to send their outboxes at the end (600)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { Pool } from 'undici';
import { grpc, loadAgentService, type AgentServiceClient, type Assignment, type AssignmentUpdate, type BatchAck, type CheckResult } from '@upfleet/proto';
import { CONTROL_PLANE_VERSION } from '../control-plane/src/version';
import { startClickHouseServer } from '../tests/helpers/clickhouse-server';
import { startStack, type Stack } from '../tests/helpers/start-stack';

const { values } = parseArgs({
  options: {
    endpoints: { type: 'string', default: '100000' },
    agents: { type: 'string', default: '30' },
    seconds: { type: 'string', default: '60' },
    'place-timeout': { type: 'string', default: '900' },
    'cpu-prof': { type: 'string' },
    'drain-timeout': { type: 'string', default: '600' },
    json: { type: 'boolean', default: false },
  },
});
const N = Number(values.endpoints);
const AGENTS = Number(values.agents);
const PHASE_S = Number(values.seconds);
const PLACE_TIMEOUT_MS = Number(values['place-timeout']) * 1000;
const REGIONS = ['EU-Germany', 'US-Virginia', 'AP-Singapore'];
const INTERVAL_S = 60;
const WINDOW = 4; // batches un-acked per agent: the agent's default (--max-batches-in-flight)
const BATCH_MAX = 2000;
const log = (s: string) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${s}`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const loadavg = () => os.loadavg().map((l) => l.toFixed(2)).join(' ');

interface ProbeFigures { p99_ms: number; max_ms: number; samples: number; rss_mb: number; max_rss_mb: number; cpu_ms: number }
const quantile = (sorted: number[], p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] : 0);

/** Which second of the minute a check runs in: spread evenly, stable per check. */
function slotOf(checkId: string): number {
  let h = 2166136261;
  for (let i = 0; i < checkId.length; i++) h = Math.imul(h ^ checkId.charCodeAt(i), 16777619);
  return (h >>> 0) % INTERVAL_S;
}

/** One simulated agent: register once, then watch + report over streams that a restart cuts. */
class SimAgent {
  agentId = '';
  secret = '';
  client: AgentServiceClient | null = null;
  held = new Map<string, Assignment & { slot: number }>();
  /** Set when a snapshot from the current connection has been applied in full. */
  snapshotAt = 0;
  partial: { version: number; list: Assignment[] } | null = null;
  outbox: Array<{ batch_id: string; results: CheckResult[] }> = [];
  sent = 0; // outbox[0..sent) are on the current report stream, un-acked
  report: grpc.ClientDuplexStream<unknown, BatchAck> | null = null;
  watch: grpc.ClientReadableStream<AssignmentUpdate> | null = null;
  heartbeat: NodeJS.Timeout | null = null;
  seq = 0;
  generated = 0;
  acked = 0;
  ackedNotOk = 0;

  constructor(readonly name: string, readonly region: string) {}

  private md(): grpc.Metadata {
    const m = new grpc.Metadata();
    m.set('authorization', `Bearer ${this.agentId}.${this.secret}`);
    return m;
  }

  async register(address: string, ca: Buffer, token: string): Promise<void> {
    this.client = makeClient(address, ca);
    const res = await new Promise<{ agent_id: string; agent_secret: string }>((resolve, reject) =>
      this.client!.Register({ bootstrap_token: token, region: this.region, hostname: this.name, version: CONTROL_PLANE_VERSION }, (e, r) => (e ? reject(e) : resolve(r as { agent_id: string; agent_secret: string }))));
    this.agentId = res.agent_id;
    this.secret = res.agent_secret;
  }

  connect(address: string, ca: Buffer): void {
    this.client?.close();
    this.client = makeClient(address, ca);
    this.snapshotAt = 0;
    this.partial = null;
    const watch = this.client.WatchAssignments({ known_version: 0, agent_version: CONTROL_PLANE_VERSION, accepts_snapshot_chunks: true }, this.md()) as grpc.ClientReadableStream<AssignmentUpdate>;
    this.watch = watch;
    watch.on('data', (u: AssignmentUpdate) => this.apply(u));
    watch.on('error', () => undefined);
    const report = this.client.ReportResults(this.md()) as unknown as grpc.ClientDuplexStream<unknown, BatchAck>;
    this.report = report;
    this.sent = 0;
    report.on('data', (ack: BatchAck) => {
      const b = this.outbox[0];
      if (!b || b.batch_id !== ack.batch_id) return;
      if (ack.ok) {
        this.outbox.shift();
        this.sent--;
        this.acked += b.results.length;
      } else this.ackedNotOk++; // re-sent on the next connect, as a real agent does
      this.pump();
    });
    const down = () => {
      if (this.report === report) {
        this.report = null;
        this.sent = 0;
      }
    };
    report.on('error', down);
    report.on('end', down);
    this.heartbeat ??= setInterval(() => {
      this.client?.Heartbeat({ checks_owned: this.held.size, checks_per_minute: this.held.size, outbox_depth: this.outbox.length }, this.md(), () => undefined);
    }, 4000);
    this.pump();
  }

  disconnect(): void {
    this.watch?.cancel();
    this.report?.cancel();
    this.report = null;
    this.sent = 0;
    this.client?.close();
    this.client = null;
  }

  stop(): void {
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.disconnect();
  }

  private apply(u: AssignmentUpdate): void {
    if (u.snapshot) {
      // chunks of one snapshot are applied together, as the agent does (agent/src/link/assignment-watch.ts)
      if (this.partial && this.partial.version !== u.version) this.partial = null;
      if (u.snapshot.more) {
        this.partial ??= { version: u.version, list: [] };
        this.partial.list.push(...u.snapshot.assignments);
        return;
      }
      const whole = this.partial ? [...this.partial.list, ...u.snapshot.assignments] : u.snapshot.assignments;
      this.partial = null;
      this.held = new Map(whole.map((a) => [a.check_id, { ...a, slot: slotOf(a.check_id) }]));
      this.snapshotAt = performance.now();
    } else if (u.delta) {
      for (const id of u.delta.removed_check_ids) this.held.delete(id);
      for (const a of u.delta.upserts) this.held.set(a.check_id, { ...a, slot: slotOf(a.check_id) });
    }
  }

  /** The results of this second: one per held check whose slot it is. */
  tick(second: number): void {
    const now = Date.now();
    let batch: CheckResult[] = [];
    const flush = () => {
      if (batch.length === 0) return;
      this.outbox.push({ batch_id: `${this.agentId}-${this.seq++}`, results: batch });
      batch = [];
    };
    for (const a of this.held.values()) {
      if (a.slot !== second) continue;
      batch.push({
        check_id: a.check_id, endpoint_id: a.endpoint_id, kind: a.kind, region: a.region, ts_ms: now, ok: true, phase: '', error: '',
        status_code: 200, dns_ms: 1, connect_ms: 2, tls_ms: 3, ttfb_ms: 20, total_ms: 25, cert_days_left: 0, cert_not_after_ms: 0,
        cert_issuer: '', cert_subject: '', ping_method: '', redirects: 0, retention_days: a.retention_days, result_id: `${a.check_id}@${now}@${this.name}`, // unique per agent, as the agent's random UUID: two agents may hold a check during a handover
      });
      this.generated++;
      if (batch.length >= BATCH_MAX) flush();
    }
    flush();
    this.pump();
  }

  pump(): void {
    const r = this.report;
    if (!r) return;
    while (this.sent < this.outbox.length && this.sent < WINDOW) r.write(this.outbox[this.sent++]);
  }
}

function makeClient(address: string, ca: Buffer): AgentServiceClient {
  const Ctor = loadAgentService();
  return new Ctor(address, grpc.credentials.createSsl(ca), { 'grpc.max_receive_message_length': 256 * 1024 * 1024 }) as unknown as AgentServiceClient;
}

async function api(base: string, method: string, p: string, body?: unknown, token?: string): Promise<{ data: Record<string, unknown> }> {
  const res = await fetch(`${base}${p}`, {
    method, headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${p}: ${res.status} ${text}`);
  return JSON.parse(text) as { data: Record<string, unknown> };
}

function procCpuMs(pid: number): number {
  const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(f[11]) + Number(f[12])) * 1000) / 100;
}

async function main(): Promise<void> {
  log(`scale bench: ${N.toLocaleString('en-US')} endpoints in ${REGIONS.length} regions every ${INTERVAL_S} s, ${AGENTS} agents, phases of ${PHASE_S} s; load ${loadavg()}`);
  const ch = await startClickHouseServer();
  const probeDir = fs.mkdtempSync(path.join(os.tmpdir(), 'upfleet-bench-scale-'));
  // --cpu-prof DIR: a V8 profile of each control-plane process, written at its exit
  const profileArgs = values['cpu-prof'] ? ['--cpu-prof', '--cpu-prof-dir', path.resolve(values['cpu-prof'])] : [];
  const probeArgs = ['--import', path.join(import.meta.dirname, 'scale-probe.ts'), ...profileArgs];
  const agents: SimAgent[] = [];
  let stack: Stack | null = null;
  let pool: Pool | null = null;
  let stopping = false;
  try {
    // 1. A fresh control plane for its schema, an account and the agents' join tokens.
    // info: the engine's 'agent watching' line per snapshot sent, counted when placement does not finish
    const env = { CLICKHOUSE_URL: ch.url, UPFLEET_BENCH_PROBE_FILE: path.join(probeDir, 'probe-0.json'), LOG_LEVEL: 'info' };
    stack = await startStack({ env, nodeArgs: probeArgs, timeoutMs: 180_000 });
    const signup = await api(stack.baseUrl, 'POST', '/api/auth/signup', { username: 'scalebench', email: 'scale@example.com', password: 'benchmark pw' });
    let token = signup.data.accessToken as string;
    await api(stack.baseUrl, 'POST', '/api/admin/users/set-package', { email: 'scale@example.com', package: 'Business' }, stack.adminToken);
    const tokens = new Map<string, string>();
    for (const r of REGIONS) tokens.set(r, (await api(stack.baseUrl, 'POST', '/api/admin/agent-tokens', { region: r, max_uses: null }, stack.adminToken)).data.token as string);
    await stack.stop();

    // 2. Endpoints written straight into SQLite (the API would take minutes for 100,000).
    const t0 = performance.now();
    const db = new Database(path.join(stack.dataDir, 'upfleet.db'));
    db.pragma('busy_timeout = 5000');
    const userId = db.prepare("SELECT id FROM users WHERE email = 'scale@example.com'").pluck().get() as number;
    db.prepare("UPDATE packages SET max_endpoints = ? WHERE package_name = 'Business'").run(N);
    const ins = db.prepare(`INSERT INTO endpoints (guid, user_id, name, url, description, regions, ping_host, cert_expiry, response_code, response_time, check_frequency_seconds)
      VALUES (?, ?, ?, ?, '', ?, 0, 0, 0, 1, ?)`);
    db.transaction(() => {
      for (let i = 0; i < N; i++) ins.run(`scale-${i}`, userId, `Endpoint ${i}`, `https://site${i}.example.com/`, JSON.stringify([REGIONS[i % REGIONS.length]]), INTERVAL_S);
    })();
    db.close();
    log(`seeded ${N.toLocaleString('en-US')} endpoints in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

    // 3. Start with the data; the agents register and take their checks.
    const ca = fs.readFileSync(path.join(stack.dataDir, 'grpc-tls/ca.pem'));
    const s1 = performance.now();
    stack = await startStack({ env: { ...env, UPFLEET_BENCH_PROBE_FILE: path.join(probeDir, 'probe-1.json') }, nodeArgs: probeArgs, dataDir: stack.dataDir, timeoutMs: 180_000 });
    log(`control plane serving ${((performance.now() - s1) / 1000).toFixed(1)} s after spawn`);
    stack.process.kill('SIGUSR2');
    const address = `localhost:${stack.grpcPort}`;
    for (let i = 0; i < AGENTS; i++) agents.push(new SimAgent(`agent-${i}`, REGIONS[i % REGIONS.length]));
    for (const a of agents) await a.register(address, ca, tokens.get(a.region)!);
    for (const a of agents) a.connect(address, ca);
    const placedIn = await waitPlaced(agents, N, PLACE_TIMEOUT_MS);
    if (Number.isNaN(placedIn)) {
      // the control plane never got every check to an agent: what it cost until then is the figure
      const p = readProbe(path.join(probeDir, 'probe-1.json'));
      const held = agents.reduce((n, a) => n + a.held.size, 0);
      log(`first start: checks NOT all placed ${PLACE_TIMEOUT_MS / 1000} s after ${AGENTS} agents connected (${agents.filter((a) => a.snapshotAt > 0).length} agents had a snapshot, ${held.toLocaleString('en-US')} checks held); loop delay p99 ${p.p99_ms.toFixed(1)} ms max ${p.max_ms.toFixed(1)} ms; peak RSS ${p.max_rss_mb.toFixed(0)} MB; load ${loadavg()}`);
      const figures = { placed_after_restart_s: null, loop_delay_p99_ms: Number(p.p99_ms.toFixed(1)), loop_delay_max_ms: Number(p.max_ms.toFixed(1)), dashboard_p99_ms: null, rss_mb: Math.round(p.max_rss_mb), cpu_ms_per_1000_results: null, results_lost: null, results_doubled: null, endpoints: N, agents: AGENTS };
      console.log(values.json ? JSON.stringify(figures) : figures);
      return;
    }
    log(`first start: all ${N.toLocaleString('en-US')} checks placed ${(placedIn / 1000).toFixed(1)} s after ${AGENTS} agents connected`);

    let second = 0;
    const ticker = setInterval(() => {
      const s = second++ % INTERVAL_S;
      for (const a of agents) a.tick(s);
    }, 1000);

    // 4. Steady phase (after one minute's warm-up the rate is the assigned one).
    const steadyStart = performance.now();
    const cpu0 = procCpuMs(stack.process.pid!);
    const acked0 = agents.reduce((n, a) => n + a.acked, 0);
    await sleep(PHASE_S * 1000);
    const steadyS = (performance.now() - steadyStart) / 1000;
    const steadyResults = agents.reduce((n, a) => n + a.acked, 0) - acked0;
    const steadyCpu = procCpuMs(stack.process.pid!) - cpu0;
    const probe1 = readProbe(path.join(probeDir, 'probe-1.json'));
    log(`steady: ${(steadyResults / steadyS).toFixed(0)} results/s acked, control plane CPU ${(steadyCpu / steadyS).toFixed(0)} ms/s = ${((steadyCpu * 1000) / Math.max(1, steadyResults)).toFixed(1)} ms per 1,000 results; loop delay p99 ${probe1.p99_ms.toFixed(1)} ms max ${probe1.max_ms.toFixed(1)} ms; RSS ${probe1.rss_mb.toFixed(0)} MB; load ${loadavg()}`);

    // 5. Restart on the same data and ports; every agent reconnects at once when it serves.
    const { httpPort, grpcPort, dataDir } = stack;
    for (const a of agents) a.disconnect();
    await stack.stop();
    const probe1End = readProbe(path.join(probeDir, 'probe-1.json'));
    const r0 = performance.now();
    stack = await startStack({
      env: { ...env, PORT: String(httpPort), GRPC_PORT: String(grpcPort), UPFLEET_BENCH_PROBE_FILE: path.join(probeDir, 'probe-2.json') },
      nodeArgs: probeArgs, dataDir, timeoutMs: 180_000,
    });
    stack.process.kill('SIGUSR2');
    const restarted = stack;
    restarted.process.once('exit', (code, signal) => {
      if (!stopping) log(`control plane exited (${code ?? signal}):\n${restarted.output().slice(-4000)}`);
    });
    log(`restarted: serving ${((performance.now() - r0) / 1000).toFixed(1)} s after spawn; ${AGENTS} agents reconnect together (load ${loadavg()})`);
    token = (await api(stack.baseUrl, 'POST', '/api/auth/login', { email: 'scale@example.com', password: 'benchmark pw' })).data.accessToken as string;
    pool = new Pool(stack.baseUrl, { connections: 4 });
    const reconnectAt = performance.now();
    for (const a of agents) a.connect(address, ca);
    // The dashboard's list page, as a browser asks for it, through the storm.
    const lat: number[] = [];
    let dashboardErrors = 0;
    let storm = true;
    const dashboard = async () => {
      while (storm) {
        const s = performance.now();
        try {
          const res = await pool!.request({ method: 'GET', path: '/api/users/endpoints-with-uptime?limit=100&offset=0', headers: { authorization: `Bearer ${token}`, 'accept-encoding': 'gzip' } });
          await res.body.arrayBuffer();
          if (res.statusCode !== 200) throw new Error(`status ${res.statusCode}`);
          lat.push(performance.now() - s);
        } catch (e) {
          dashboardErrors++;
          if (dashboardErrors <= 3) log(`dashboard request failed: ${(e as Error).message}${stack!.process.exitCode !== null ? `; control plane exited:\n${stack!.output().slice(-3000)}` : ''}`);
          await sleep(100);
        }
      }
    };
    const readers = Array.from({ length: 2 }, dashboard);
    const placedAfter = await waitPlaced(agents, N, PLACE_TIMEOUT_MS);
    const placedS = placedAfter / 1000;
    if (Number.isNaN(placedAfter)) {
      const held = agents.reduce((n, a) => n + a.held.size, 0);
      const watching = stack.output().split('\n').filter((l) => l.includes('agent watching')).length;
      log(`after the restart: checks NOT all placed ${PLACE_TIMEOUT_MS / 1000} s after the agents reconnected: ${agents.filter((a) => a.snapshotAt > 0).length} agents had applied a snapshot (${watching} sent by the control plane), ${held.toLocaleString('en-US')} checks held`);
    }
    await sleep(5000); // the storm's tail: backlogs sent after the snapshots
    storm = false;
    await Promise.all(readers);
    lat.sort((a, b) => a - b);
    log(`after the restart: all checks placed ${placedS.toFixed(1)} s after the agents reconnected; dashboard list during the storm: ${lat.length} requests, p50 ${quantile(lat, 0.5).toFixed(1)} ms p99 ${quantile(lat, 0.99).toFixed(1)} ms max ${(lat.at(-1) ?? 0).toFixed(1)} ms, ${dashboardErrors} failed`);
    const remaining = Math.max(0, PHASE_S * 1000 - (performance.now() - reconnectAt));
    await sleep(remaining);

    // 6. Stop making results, send every outbox, then count in ClickHouse.
    clearInterval(ticker);
    const drainUntil = performance.now() + Number(values['drain-timeout']) * 1000;
    while (agents.some((a) => a.outbox.length > 0) && performance.now() < drainUntil) await sleep(200);
    const probe2 = readProbe(path.join(probeDir, 'probe-2.json'));
    const generated = agents.reduce((n, a) => n + a.generated, 0);
    const [rows, distinct] = (await ch.query('SELECT count(), uniqExact(result_id) FROM upfleet.check_results FORMAT TSV')).trim().split('\t').map(Number);
    const queued = agents.reduce((n, a) => n + a.outbox.reduce((m, b) => m + b.results.length, 0), 0);
    // Results still in an outbox when the drain gave up may be stored already (sent, ack not back):
    // loss is then not known, and reported as null rather than guessed.
    const lost = queued > 0 ? null : generated - distinct;
    const doubled = rows - distinct;
    const notOk = agents.reduce((n, a) => n + a.ackedNotOk, 0);
    log(`results: ${generated.toLocaleString('en-US')} made, ${distinct.toLocaleString('en-US')} stored once, ${doubled} doubled, ${lost ?? 'unknown (outboxes not drained)'} lost; ${notOk} batch acks not ok (re-sent); ${queued} still in outboxes`);
    log(`loop delay (inside the control plane) first process p99 ${probe1End.p99_ms.toFixed(1)} ms max ${probe1End.max_ms.toFixed(1)} ms; after the restart p99 ${probe2.p99_ms.toFixed(1)} ms max ${probe2.max_ms.toFixed(1)} ms; peak RSS ${Math.max(probe1End.max_rss_mb, probe2.max_rss_mb).toFixed(0)} MB; load ${loadavg()}`);

    const figures = {
      placed_after_restart_s: Number(placedS.toFixed(2)),
      loop_delay_p99_ms: Number(Math.max(probe1End.p99_ms, probe2.p99_ms).toFixed(1)),
      loop_delay_max_ms: Number(Math.max(probe1End.max_ms, probe2.max_ms).toFixed(1)),
      dashboard_p99_ms: Number(quantile(lat, 0.99).toFixed(1)),
      rss_mb: Math.round(Math.max(probe1End.max_rss_mb, probe2.max_rss_mb)),
      cpu_ms_per_1000_results: Number(((steadyCpu * 1000) / Math.max(1, steadyResults)).toFixed(1)),
      results_lost: lost,
      results_doubled: doubled,
      endpoints: N,
      agents: AGENTS,
    };
    if (values.json) console.log(JSON.stringify(figures));
    else console.log(figures);
  } finally {
    stopping = true;
    for (const a of agents) a.stop();
    await pool?.close();
    await stack?.stop();
    await ch.stop();
    fs.rmSync(probeDir, { recursive: true, force: true });
    if (stack) fs.rmSync(stack.dataDir, { recursive: true, force: true });
  }
}

function readProbe(file: string): ProbeFigures {
  return JSON.parse(fs.readFileSync(file, 'utf8')) as ProbeFigures;
}

/** Milliseconds until every agent has applied a snapshot from this connection and together they hold all checks once. */
async function waitPlaced(agents: SimAgent[], total: number, timeoutMs: number): Promise<number> {
  const start = performance.now();
  for (;;) {
    if (agents.every((a) => a.snapshotAt > 0)) {
      const ids = new Set<string>();
      let sum = 0;
      for (const a of agents) {
        sum += a.held.size;
        for (const id of a.held.keys()) ids.add(id);
      }
      if (ids.size === total && sum === total) return performance.now() - start;
    }
    if (performance.now() - start > timeoutMs) return Number.NaN;
    await sleep(20);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
