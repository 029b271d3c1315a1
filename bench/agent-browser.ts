// Browser checks on one agent: the agent (its own process, scheduler → browser prober → outbox, no
// control plane) runs a sign-in check (load, fill, fill, click, expect text) against a loopback
// login page at its default browser concurrency for --seconds, flat out. Prints browser checks per
// minute per core, the agent process's peak RSS, and its Chromiums' peak total (RSS summed, and
// PSS, which counts pages shared between the Chromium processes once).
//   npm run bench:agent-browser -- [--seconds 60] [--browser-concurrency N]
// Needs Debian's chromium (/usr/bin/chromium, or UPFLEET_CHROMIUM_PATH).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir, totalmem } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pino from 'pino';
import type { Assignment } from '@upfleet/proto';
import { loadAgentConfig, startAgent } from '../agent/src/index';
import { defaultBrowserConcurrency } from '../agent/src/config';
import { LOGIN_STEPS, startLoginPage } from '../tests/helpers/login-page';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '60' },
    'browser-concurrency': { type: 'string' },
    child: { type: 'string' },
  },
});
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The agent side: runs the checks and prints one JSON line of counts when done. */
async function child(pageUrl: string): Promise<void> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'upfleet-bench-browser-'));
  const config = loadAgentConfig(process.env, {
    controlPlane: '127.0.0.1:1', region: 'EU-Germany', dataDir, insecure: true, metricsPort: 0, allowPrivateTargets: true,
    ...(values['browser-concurrency'] ? { browserConcurrency: Number(values['browser-concurrency']) } : {}),
  });
  // One check per browser slot, each due again as soon as it ends: the slots stay full.
  const steps = LOGIN_STEPS.filter((s) => s.action !== 'screenshot').map((s) => ({
    action: s.action, url: '', selector: s.selector ?? '', value: s.value ?? '', secret: s.secret === true, key: '', text: '', state: '', contains: s.contains ?? '', equals: '', name: '',
  }));
  const assignments: Assignment[] = Array.from({ length: config.browserConcurrency }, (_, i) => ({
    check_id: `${i}:browser:EU-Germany`, endpoint_id: i + 1, kind: 'CHECK_KIND_BROWSER', url: `${pageUrl}/login`, interval_seconds: 1,
    timeout_ms: 30_000, region: 'EU-Germany', retention_days: 30, steps,
  }));
  const agent = await startAgent(config, pino({ level: 'warn' }), { connect: false, extraAssignments: assignments });
  await sleep(5000); // warm-up: the first Chromium starts are slower (cold page cache)
  const s0 = agent.stats();
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  await sleep(Number(values.seconds) * 1000);
  const s1 = agent.stats();
  const cpu = process.cpuUsage(cpu0);
  const secs = (performance.now() - t0) / 1000;
  process.stdout.write(`${JSON.stringify({ concurrency: config.browserConcurrency, runs: s1.checksRun - s0.checksRun, failed: s1.checksFailed - s0.checksFailed, secs, agentCpuS: (cpu.user + cpu.system) / 1e6 })}\n`);
  await agent.stop();
  rmSync(dataDir, { recursive: true, force: true });
}

/** kB of a /proc status field (VmRSS) or smaps_rollup field (Pss) of a process; 0 when gone. */
function procKb(pid: number, file: 'status' | 'smaps_rollup', field: string): number {
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/${file}`, 'utf8'));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

/** Every process below `root` (its Chromiums and their helpers). */
function descendants(root: number): number[] {
  const parent = new Map<number, number>();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      parent.set(Number(d), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch { /* gone */ }
  }
  const out: number[] = [];
  const walk = (p: number) => {
    for (const [c, pp] of parent) if (pp === p) { out.push(c); walk(c); }
  };
  walk(root);
  return out;
}

async function main(): Promise<void> {
  if (values.child) return child(values.child);
  const page = await startLoginPage();
  const self = fileURLToPath(import.meta.url);
  const args = ['--import', 'tsx', self, '--child', page.url, '--seconds', String(values.seconds),
    ...(values['browser-concurrency'] ? ['--browser-concurrency', String(values['browser-concurrency'])] : [])];
  const proc = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  proc.stdout.on('data', (d) => (out += d));
  const peak = { agentRssKb: 0, chromiumRssKb: 0, chromiumPssKb: 0, browsers: 0 };
  const sampler = setInterval(() => {
    if (!proc.pid) return;
    peak.agentRssKb = Math.max(peak.agentRssKb, procKb(proc.pid, 'status', 'VmRSS'));
    const kids = descendants(proc.pid);
    peak.chromiumRssKb = Math.max(peak.chromiumRssKb, kids.reduce((s, p) => s + procKb(p, 'status', 'VmRSS'), 0));
    peak.chromiumPssKb = Math.max(peak.chromiumPssKb, kids.reduce((s, p) => s + procKb(p, 'smaps_rollup', 'Pss'), 0));
    peak.browsers = Math.max(peak.browsers, kids.filter((p) => {
      try {
        return !readFileSync(`/proc/${p}/cmdline`, 'utf8').includes('--type=');
      } catch {
        return false;
      }
    }).length);
  }, 250);
  await new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  clearInterval(sampler);
  await page.close();
  const r = JSON.parse(out.trim().split('\n').pop() ?? '{}') as { concurrency: number; runs: number; failed: number; secs: number; agentCpuS: number };
  const cores = availableParallelism();
  const perMin = (r.runs * 60) / r.secs;
  const mb = (kb: number) => Math.round(kb / 1024);
  console.log(`browser concurrency ${r.concurrency} (default for ${Math.round(totalmem() / 2 ** 30)} GiB: ${defaultBrowserConcurrency()}), ${cores} cores, ${Math.round(r.secs)} s`);
  console.log(`browser checks: ${r.runs} (${r.failed} failed) = ${perMin.toFixed(1)}/min = ${(perMin / cores).toFixed(1)}/min per core`);
  console.log(`agent process peak RSS: ${mb(peak.agentRssKb)} MB (its own CPU: ${r.agentCpuS.toFixed(1)} s)`);
  console.log(`Chromium peak total: RSS ${mb(peak.chromiumRssKb)} MB, PSS ${mb(peak.chromiumPssKb)} MB (${peak.browsers} browser processes at most)`);
}

await main();
