// Agent HTTP check throughput against a local nginx, side by side with two references on the
// same target: wrk with `Connection: close` (the machine's limit for new connections) and
// Debian's prometheus-blackbox-exporter driven by wrk through /probe.
//   tsx bench/agent-throughput.ts [--seconds 12] [--concurrency 256] [--kinds http,tcp]
// --kinds tcp also runs the agent with TCP checks (connect, close) on nginx's port and
// prints its checks/s next to the HTTP figure of the same run.
// Needs: apt-get install -y nginx wrk (prometheus-blackbox-exporter optional: its row is left out without it).
// Goals: agent / wrk >= 0.45 with probe threads auto (measured once its threads run), and threads
// off no lower than before. Profile the agent with: node --cpu-prof --import tsx bench/agent-throughput.ts --probe-threads 0
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pino from 'pino';
import type { Assignment } from '@upfleet/proto';
import { tuneAgentHeap } from '../agent/src/heap';
import { loadAgentConfig, startAgent } from '../agent/src/index';
import { closedPort } from '../tests/helpers/targets';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '12' },
    concurrency: { type: 'string', default: '256' },
    'probe-threads': { type: 'string', default: 'auto,0' },
    'wrk-connections': { type: 'string', default: '64' },
    kinds: { type: 'string', default: 'http' },
  },
});
const SECONDS = Number(values.seconds);
const CONCURRENCY = Number(values.concurrency);
const WRK_CONNS = Number(values['wrk-connections']);
const KINDS = String(values.kinds).split(',').map((k) => k.trim()).filter((k): k is 'http' | 'tcp' => k === 'http' || k === 'tcp');
const THREADS = String(values['probe-threads']).split(',').map((v) => (v === 'auto' ? ('auto' as const) : Number(v)));

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const children: ChildProcess[] = [];
const dir = mkdtempSync(path.join(tmpdir(), 'upfleet-bench-'));

function need(bin: string): void {
  if (spawnSync('sh', ['-c', `command -v ${bin}`]).status !== 0) {
    console.error(`missing ${bin}: apt-get install -y nginx wrk prometheus-blackbox-exporter`);
    process.exit(2);
  }
}

async function waitHttp(url: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    try {
      const r = await fetch(url);
      await r.text();
      return;
    } catch {
      await sleep(100);
    }
  }
  throw new Error(`${url} did not come up`);
}

function start(bin: string, args: string[]): ChildProcess {
  const c = spawn(bin, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  c.stderr.on('data', () => {});
  children.push(c);
  return c;
}

async function startNginx(): Promise<string> {
  const port = await closedPort();
  const conf = path.join(dir, 'nginx.conf');
  writeFileSync(conf, `
worker_processes 1;
daemon off;
pid ${dir}/nginx.pid;
error_log ${dir}/nginx-error.log warn;
events { worker_connections 8192; }
http {
  access_log off;
  client_body_temp_path ${dir}/body; proxy_temp_path ${dir}/proxy; fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi; scgi_temp_path ${dir}/scgi;
  server {
    listen 127.0.0.1:${port} backlog=4096;
    location / { default_type text/plain; return 200 "ok\\n"; }
  }
}
`);
  start('nginx', ['-p', dir, '-c', conf]);
  const url = `http://127.0.0.1:${port}/`;
  await waitHttp(url);
  return url;
}

async function startBlackbox(): Promise<string> {
  const port = await closedPort();
  const conf = path.join(dir, 'blackbox.yml');
  writeFileSync(conf, `modules:\n  http_2xx:\n    prober: http\n    timeout: 5s\n    http:\n      preferred_ip_protocol: ip4\n`);
  start('prometheus-blackbox-exporter', [`--config.file=${conf}`, `--web.listen-address=127.0.0.1:${port}`]);
  const base = `http://127.0.0.1:${port}`;
  await waitHttp(`${base}/metrics`);
  return base;
}

function runWrk(url: string, headers: string[] = []): { rps: number; errors: string } {
  const args = ['-t', '2', '-c', String(WRK_CONNS), '-d', `${SECONDS}s`, ...headers.flatMap((h) => ['-H', h]), url];
  const r = spawnSync('wrk', args, { encoding: 'utf8' });
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(r.stdout)?.[1] ?? 0);
  const errors = [/Socket errors:.*/.exec(r.stdout)?.[0], /Non-2xx or 3xx responses: \d+/.exec(r.stdout)?.[0]].filter(Boolean).join('; ');
  return { rps, errors };
}

async function runAgent(target: string, probeThreads: number | 'auto', kind: 'http' | 'tcp' = 'http'): Promise<{ threadsAfterS: number | null; threads: number; rps: number; failed: number; p99LagMs: number; rssMb: number; cpuUsPerCheck: number }> {
  const dataDir = path.join(dir, `agent-${kind}-${probeThreads}`);
  const config = loadAgentConfig({}, {
    controlPlane: '127.0.0.1:1', region: 'EU-Germany', dataDir, insecure: true, metricsPort: 0,
    concurrency: CONCURRENCY, outboxCap: 10_000_000, probeThreads,
  });
  // More demand than one agent can serve (12,000 checks at a 1 s interval): it runs flat out,
  // every check on a new connection, results written to the SQLite outbox as in production.
  const hostPort = new URL(target).host;
  const assignments: Assignment[] = Array.from({ length: 12_000 }, (_, i) => (kind === 'tcp'
    ? {
        check_id: `${i}:tcp:EU-Germany`, endpoint_id: i, kind: 'CHECK_KIND_TCP', url: `tcp://${hostPort}`, target: hostPort,
        interval_seconds: 1, timeout_ms: 5000, region: 'EU-Germany', retention_days: 30,
      }
    : {
        check_id: `${i}:CHECK_KIND_HTTP:EU-Germany`, endpoint_id: i, kind: 'CHECK_KIND_HTTP', url: target,
        interval_seconds: 1, timeout_ms: 5000, region: 'EU-Germany', retention_days: 30,
      }));
  const agent = await startAgent(config, pino({ level: 'warn' }), { connect: false, extraAssignments: assignments });
  // Warm-up. Probe threads load their script first (under tsx they compile it: seconds on a busy
  // machine); 'auto' starts them after 15 s of a saturated main thread: measured once they run,
  // so the figure is the steady state of an overloaded agent, not the switch.
  const started = performance.now();
  let threadsAfterS: number | null = null;
  if (probeThreads === 'auto') {
    while (agent.stats().probeThreads === 0 && performance.now() - started < 60_000) await sleep(250);
    if (agent.stats().probeThreads > 0) threadsAfterS = (performance.now() - started) / 1000;
  }
  await sleep(probeThreads === 'auto' || probeThreads > 0 ? 6000 : 2000);
  const s0 = agent.stats();
  const t0 = performance.now();
  // CPU of the whole process (probe threads included) per check: unlike checks/s, it holds on a
  // machine other jobs keep busy
  const c0 = process.cpuUsage();
  await sleep(SECONDS * 1000);
  const s1 = agent.stats();
  const cpu = process.cpuUsage(c0);
  const secs = (performance.now() - t0) / 1000;
  const rssMb = process.memoryUsage().rss / 1048576;
  await agent.stop();
  return {
    threadsAfterS,
    threads: s1.probeThreads,
    rps: (s1.checksRun - s0.checksRun) / secs,
    failed: s1.checksFailed - s0.checksFailed,
    p99LagMs: s1.scheduler.lag.p99Ms,
    rssMb,
    cpuUsPerCheck: (cpu.user + cpu.system) / Math.max(1, s1.checksRun - s0.checksRun),
  };
}

async function main(): Promise<void> {
  // the agent runs in this process: the heap sizing its entry point applies (UPFLEET_V8_DEFAULTS=1: V8's own)
  const tuned = tuneAgentHeap();
  for (const b of ['nginx', 'wrk']) need(b);
  // blackbox_exporter is a reference only: without it the agent figures are still printed
  const haveBlackbox = spawnSync('sh', ['-c', 'command -v prometheus-blackbox-exporter']).status === 0;
  const target = await startNginx();
  let probeUrl = '';
  if (haveBlackbox) {
    const blackbox = await startBlackbox();
    probeUrl = `${blackbox}/probe?target=${encodeURIComponent(target)}&module=http_2xx`;
    const check = await (await fetch(probeUrl)).text();
    if (!/^probe_success 1/m.test(check)) throw new Error(`blackbox probe does not succeed:\n${check}`);
  }

  const os = await import('node:os');
  console.log(`target ${target} (nginx, 1 worker); ${SECONDS} s per phase; machine: ${os.cpus().length} cores, load average ${os.loadavg()[0].toFixed(1)}; V8 heap ${tuned ? 'tuned (agent/src/heap.ts)' : 'defaults'}`);
  const wrk = runWrk(target, ['Connection: close']);
  console.log(`wrk -H 'Connection: close'        ${wrk.rps.toFixed(0).padStart(8)} req/s   ${wrk.errors}`);
  const bb = haveBlackbox ? runWrk(probeUrl) : { rps: NaN, errors: '' };
  console.log(haveBlackbox ? `blackbox_exporter via /probe      ${bb.rps.toFixed(0).padStart(8)} probes/s ${bb.errors}` : 'blackbox_exporter: not installed (skipped)');
  const agents: { threads: number | 'auto'; rps: number }[] = [];
  const tcpRuns: { threads: number | 'auto'; rps: number }[] = [];
  for (const threads of THREADS) {
    for (const kind of KINDS) {
      const ag = await runAgent(target, threads, kind);
      (kind === 'tcp' ? tcpRuns : agents).push({ threads, rps: ag.rps });
      const label = `upfleet agent${kind === 'tcp' ? ' tcp' : ''} (probe threads ${threads})`.padEnd(37);
      const auto = threads === 'auto' ? `; ${ag.threads} thread(s) started after ${ag.threadsAfterS === null ? 'never (60 s)' : `${ag.threadsAfterS.toFixed(0)} s`}` : '';
      console.log(`${label}${ag.rps.toFixed(0).padStart(8)} checks/s (concurrency ${CONCURRENCY}, failed ${ag.failed}, lag p99 ${ag.p99LagMs.toFixed(0)} ms under overload; CPU ${ag.cpuUsPerCheck.toFixed(0)} µs per check${auto})`);
    }
  }
  console.log('');
  if (haveBlackbox) console.log(`blackbox_exporter / wrk = ${(bb.rps / wrk.rps).toFixed(2)}x`);
  for (const a of agents) {
    const vsBlackbox = haveBlackbox ? ` / blackbox_exporter = ${(a.rps / bb.rps).toFixed(2)}x (aim >= 2x);` : '';
    console.log(`agent (probe threads ${a.threads})${vsBlackbox} / wrk = ${(a.rps / wrk.rps).toFixed(2)}x (goal >= ${a.threads === 'auto' ? '0.45' : 'no lower than before'})`);
  }
  for (const t of tcpRuns) {
    const http = agents.find((a) => a.threads === t.threads);
    console.log(`agent tcp (probe threads ${t.threads}) / agent http = ${http ? (t.rps / http.rps).toFixed(2) : 'n/a'}x`);
  }
}

main()
  .catch((err) => {
    console.error(err);
    process.exitCode = 1;
  })
  .finally(() => {
    for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');
    setTimeout(() => {
      for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
      process.exit();
    }, 500);
  });
