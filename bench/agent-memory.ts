// Agent memory with 10,000 assignments: a real agent process registers with a loopback
// AgentService, receives 10,000 checks (80 % HTTP, 20 % TLS, 60 s interval) against loopback
// targets, runs them and streams results; RSS is read from /proc after the warm-up and averaged.
// The agent runs as the single executable (npm run build:agent; built here when missing) and,
// for comparison, under tsx (agent/src/main.ts). Goal: RSS < 120 MB for the executable.
//   tsx bench/agent-memory.ts [--assignments 10000] [--seconds 30] [--only exe]
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { Assignment } from '@upfleet/proto';
import { buildAgentExecutable } from '../agent/sea/build';
import { startTestControlPlane } from '../agent/src/testing/test-control-plane';
import { closedPort, startTargets } from '../tests/helpers/targets';

const { values } = parseArgs({
  options: { assignments: { type: 'string', default: '10000' }, seconds: { type: 'string', default: '30' }, only: { type: 'string' }, 'node-flags': { type: 'string', default: '' }, 'agent-args': { type: 'string', default: '' }, mappings: { type: 'boolean', default: false } },
});
const N = Number(values.assignments);
const SECONDS = Number(values.seconds);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Resident MB per mapped file (anonymous mappings together), the 8 largest. */
function residentByMapping(pid: number): Array<[string, number]> {
  const by = new Map<string, number>();
  let current = '[anonymous]';
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const head = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \d+\s*(.*)$/.exec(line);
    if (head) current = head[1] || '[anonymous]';
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss) by.set(current, (by.get(current) ?? 0) + Number(rss[1]) / 1024);
  }
  return [...by].sort((a, b) => b[1] - a[1]).slice(0, 8);
}

function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : 0;
}

async function metric(port: number, name: string): Promise<number> {
  try {
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    let sum = 0;
    for (const line of text.split('\n')) if (line.startsWith(name)) sum += Number(line.split(' ').pop());
    return sum;
  } catch {
    return 0;
  }
}

type Runtime = { kind: 'exe'; binary: string; env?: Record<string, string> } | { kind: 'tsx' };

async function measure(runtime: Runtime, nodeFlags: string[], agentArgs: string[] = []): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'upfleet-bench-mem-'));
  const targets = await startTargets();
  const caFile = path.join(dir, 'targets-ca.pem');
  writeFileSync(caFile, targets.caPem);
  const assignments: Assignment[] = Array.from({ length: N }, (_, i) => {
    const tls = i % 5 === 4;
    return {
      check_id: `${i}:${tls ? 'CHECK_KIND_TLS' : 'CHECK_KIND_HTTP'}:EU-Germany`, endpoint_id: i,
      kind: tls ? 'CHECK_KIND_TLS' : 'CHECK_KIND_HTTP', url: tls ? targets.https.valid : `${targets.http.ok}?e=${i}`,
      interval_seconds: 60, timeout_ms: 10_000, region: 'EU-Germany', retention_days: 30,
    };
  });
  const cp = await startTestControlPlane({ assignments, heartbeatIntervalSeconds: 5 });
  const metricsPort = await closedPort();
  const args = [
    '--control-plane', cp.address, '--region', 'EU-Germany',
    '--token', 'bootstrap-token', '--data-dir', path.join(dir, 'agent'), '--insecure', '--metrics-port', String(metricsPort),
    '--probe-ca-file', caFile, '--log-level', 'warn', ...agentArgs,
  ];
  const child = runtime.kind === 'exe'
    // node flags of a single executable come from NODE_OPTIONS; its cache dir is per run
    ? spawn(runtime.binary, args, { stdio: ['ignore', 'ignore', 'inherit'], env: { PATH: '/usr/bin:/bin', HOME: dir, NODE_OPTIONS: nodeFlags.join(' '), ...runtime.env } })
    : spawn(process.execPath, [...nodeFlags, '--import', 'tsx', path.join(root, 'agent/src/main.ts'), ...args], { stdio: ['ignore', 'ignore', 'inherit'] });

  let peak = 0;
  const started = Date.now();
  // warm-up: the first run of every new assignment happens at once
  while (Date.now() - started < 60_000) {
    await sleep(500);
    peak = Math.max(peak, rssMb(child.pid!));
    if ((await metric(metricsPort, 'upfleet_agent_checks_total')) >= N) break;
  }
  const warmupS = (Date.now() - started) / 1000;
  const samples: number[] = [];
  for (let i = 0; i < SECONDS; i++) {
    await sleep(1000);
    const r = rssMb(child.pid!);
    samples.push(r);
    peak = Math.max(peak, r);
  }
  // what the RSS is made of: anonymous memory (heaps, malloc) vs pages of the executable file
  const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
  // --mappings: the resident memory of each mapped file (and anonymous memory), largest first.
  const mappings = values.mappings ? residentByMapping(child.pid!) : [];
  const kb = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0) / 1024;
  const threads = /Threads:\s+(\d+)/.exec(status)?.[1];
  const checks = await metric(metricsPort, 'upfleet_agent_checks_total');
  const failed = await metric(metricsPort, 'upfleet_agent_checks_failed_total');
  const owned = await metric(metricsPort, 'upfleet_agent_assignments');
  const depth = await metric(metricsPort, 'upfleet_agent_outbox_depth');
  const heapUsed = (await metric(metricsPort, 'nodejs_heap_size_used_bytes')) / 1048576;
  const heapTotal = (await metric(metricsPort, 'nodejs_heap_size_total_bytes')) / 1048576;
  const external = (await metric(metricsPort, 'nodejs_external_memory_bytes')) / 1048576;
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));

  const avg = samples.reduce((a, b) => a + b, 0) / samples.length;
  const envText = runtime.kind === 'exe' && runtime.env ? ` ${Object.entries(runtime.env).map(([k, v]) => `${k}=${v}`).join(' ')}` : '';
  console.log(`${runtime.kind === 'exe' ? 'executable' : 'tsx'}${envText}, node ${nodeFlags.join(' ') || '(default flags)'}, agent ${agentArgs.join(' ') || '(defaults)'}`);
  console.log(`  assignments ${owned} (of ${N}), first round of checks done in ${warmupS.toFixed(1)} s`);
  console.log(`  checks run ${checks} (failed ${failed}), results stored by the control plane ${cp.stored.size}, outbox depth ${depth}`);
  console.log(`  RSS anonymous ${kb('RssAnon').toFixed(0)} MB, file-backed ${kb('RssFile').toFixed(0)} MB, threads ${threads}`);
  console.log(`  V8 heap used ${heapUsed.toFixed(0)} MB of ${heapTotal.toFixed(0)} MB reserved, external ${external.toFixed(0)} MB`);
  for (const [name, mb] of mappings) console.log(`    ${mb.toFixed(1).padStart(6)} MB  ${name}`);
  console.log(`  agent RSS after warm-up: ${samples[samples.length - 1].toFixed(0)} MB (avg ${avg.toFixed(0)} MB over ${SECONDS} s, peak ${peak.toFixed(0)} MB incl. warm-up)   goal < 120 MB`);
  await cp.close();
  await targets.close();
  rmSync(dir, { recursive: true, force: true });
}

async function main(): Promise<void> {
  const exe: Runtime = { kind: 'exe', binary: (await buildAgentExecutable()).binary };
  const extra = values['agent-args'] ? values['agent-args'].split(' ') : [];
  await measure(exe, values['node-flags'] ? values['node-flags'].split(' ') : [], extra);
  if (values.only === 'exe') return;
  // V8's default heap sizing (what the executable sets at start is skipped), and the agent under tsx
  await measure({ ...exe, env: { UPFLEET_V8_DEFAULTS: '1' } }, []);
  await measure({ kind: 'tsx' }, []);
  // with two probe threads from the start
  await measure(exe, [], ['--probe-threads', '2']);
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
