// The agent, wired: scheduler → probes → outbox, and the link draining the outbox. Used by
// main.ts, the CLI's `upfleet agent run` and the control plane's embedded agent.
import { readFileSync } from 'node:fs';
import type { Assignment, CheckResult } from '@upfleet/proto';
import pino, { type Logger } from 'pino';
import { openAgentDb } from './buffer/agent-db';
import { createAssignmentStore } from './buffer/assignment-store';
import { createIdentityStore } from './buffer/identity-store';
import { createOutbox } from './buffer/sqlite-outbox';
import type { AgentConfig } from './config';
import { createAssignmentGate } from './link/assignment-watch';
import { createLink, type LinkStats } from './link/reconnect-loop';
import { createAgentRegistry, startMetricsServer, type MetricsServer } from './metrics';
import { browserSupport, createHostResolver, createLimiter, type BrowserRuntime } from './probers/index';
import { createProbePool } from './probe-pool';
import { createAdaptiveRunner } from './adaptive-runner';
import { availableParallelism } from 'node:os';
import { CheckCounters, createCheckRunner, type CheckRunner } from './run-check';
import type { Clock } from './scheduler/clock';
import { createScheduler, type SchedulerStats } from './scheduler/scheduler';
import { isDownResult } from '@upfleet/proto/outcome';

export { loadAgentConfig, parseAgentArgv, redactConfig, AgentConfigError, AGENT_USAGE } from './config';
export type { AgentConfig, AgentConfigOverrides, AgentTls } from './config';
export type { LinkState, LinkStats } from './link/reconnect-loop';
export { tuneAgentHeap } from './heap';
import { relaxAgentHeap } from './heap';

export const AGENT_VERSION = '0.1.0';

export interface AgentStats {
  assignments: number;
  checksRun: number;
  checksFailed: number;
  checksPerMinute: number;
  scheduler: SchedulerStats;
  outboxDepth: number;
  outboxDropped: number;
  link: LinkStats;
  /** probe threads running (0: probes run on the main thread; 'auto' starts them under lasting overload) */
  probeThreads: number;
}

export interface StartAgentOptions {
  /** the link gave up for good (revoked token or credential); the agent has stopped checking */
  onFatal?: (message: string) => void;
  clock?: Clock;
  /** false: check on the saved snapshot only and never dial the control plane (benchmarks) */
  connect?: boolean;
  /** assignments to run in addition to the saved snapshot (benchmarks, tests) */
  extraAssignments?: Assignment[];
}

export interface AgentHandle {
  /** stop scheduling, let in-flight checks finish briefly, flush what can be sent, close the DB */
  stop(): Promise<void>;
  stats(): AgentStats;
  /** bound metrics port, or null when off */
  metricsPort: number | null;
  agentId(): string | null;
}

export async function startAgent(config: AgentConfig, logger?: Logger, opts: StartAgentOptions = {}): Promise<AgentHandle> {
  const log = (logger ?? pino({ name: 'agent', level: config.logLevel })).child({ component: 'agent', region: config.region });
  // every part registers its own metrics on this registry
  const registry = createAgentRegistry();
  const db = openAgentDb({ dataDir: config.dataDir });
  const outbox = createOutbox(db, { cap: config.outboxCap, registry });
  const identity = createIdentityStore(db);
  const assignments = createAssignmentStore(db);
  const gate = createAssignmentGate(log, registry);
  const extraCa = config.probeCaFile ? [readFileSync(config.probeCaFile, 'utf8')] : undefined;
  const support = browserSupport(config.chromiumPath);
  if (!support.ok) log.info({ reason: support.reason }, 'browser checks unavailable on this agent');
  const browser: BrowserRuntime = {
    chromiumPath: config.chromiumPath, support, limiter: createLimiter(config.browserConcurrency),
  };
  const localRunner = (): CheckRunner => createCheckRunner({
    resolver: createHostResolver(),
    allowPrivateTargets: config.allowPrivateTargets,
    extraCa,
  });
  // Browser checks stay on the main thread: one Chromium per run is its own process, and one cap counts them all.
  const browserRunner = createCheckRunner({ resolver: createHostResolver(), allowPrivateTargets: config.allowPrivateTargets, extraCa, browser });
  const makePool = (threads: number) => createProbePool({
    threads, allowPrivateTargets: config.allowPrivateTargets, extraCa,
    onCrash: (err, lost) => log.error({ err: err.message, lostChecks: lost }, 'probe thread died; replaced, its checks reported as failed'),
  });
  let pool: { run: CheckRunner; close(): Promise<void> } | undefined;
  let probeThreads = 0;
  if (config.probeThreads === 'auto') {
    // One core stays with the main thread: it still schedules, handles every result and writes the
    // outbox. A probe thread per core on top of it (2 + main on 2 cores) ran slower than 1 + main.
    const threads = Math.max(1, availableParallelism() - 1);
    pool = createAdaptiveRunner({
      local: localRunner(),
      makePool: () => makePool(threads),
      load: () => ({ duePerSecond: duePerSecond(), completed: scheduler.stats().completed }),
      onStart: (u) => {
        probeThreads = threads;
        const relaxed = relaxAgentHeap(); // throughput over memory from here on (agent/src/heap.ts)
        log.info({ eventLoopUtilization: Math.round(u * 100) / 100, threads, heap: relaxed ? 'v8 defaults' : 'unchanged' }, 'main thread saturated; probes move to worker threads');
      },
    });
  } else if (config.probeThreads > 0) {
    pool = makePool(config.probeThreads);
    probeThreads = config.probeThreads;
  }
  const probeRun = pool?.run ?? localRunner();
  const runCheck: CheckRunner = (a) => (a.kind === 'CHECK_KIND_BROWSER' ? browserRunner(a) : probeRun(a));
  const counters = new CheckCounters(registry);

  // Results reach SQLite in one transaction per event-loop turn instead of one per check.
  let pending: CheckResult[] = [];
  let flushScheduled = false;
  let dbClosed = false;
  const flushResults = (): void => {
    flushScheduled = false;
    // a browser run can outlast stop()'s grace; its result is dropped, not written to a closed DB
    if (!pending.length || dbClosed) return;
    const rows = pending;
    pending = [];
    outbox.add(rows);
    link.nudge();
  };

  const scheduler = createScheduler({
    concurrency: config.concurrency,
    clock: opts.clock,
    registry,
    runCheck: async (a) => {
      const r = await runCheck(a);
      counters.record(r);
      pending.push(r);
      if (!flushScheduled) {
        flushScheduled = true;
        setImmediate(flushResults);
      }
      return { failed: isDownResult(r) };
    },
    onError: (err, a) => log.error({ err, checkId: a.check_id }, 'check crashed'),
  });
  /** Checks due per second in steady state (the adaptive runner weighs a busy spell against it). */
  function duePerSecond(): number {
    let sum = 0;
    for (const a of scheduler.assignments()) sum += 1 / Math.max(1, a.interval_seconds);
    return sum;
  }

  // Keep checking on the last snapshot while the control plane is away.
  const saved = assignments.load();
  scheduler.replaceAll(gate.accept([...saved.assignments, ...(opts.extraAssignments ?? [])]).accepted);
  scheduler.start();
  log.info({ assignments: saved.assignments.length, version: saved.version, outboxDepth: outbox.depth() }, 'agent started');

  let rateMark = { at: Date.now(), completed: 0 };
  let checksPerMinute = 0;
  const sampleRate = (): number => {
    const now = Date.now();
    const completed = scheduler.stats().completed;
    if (now - rateMark.at >= 5000) {
      checksPerMinute = ((completed - rateMark.completed) * 60_000) / (now - rateMark.at);
      rateMark = { at: now, completed };
    }
    return checksPerMinute;
  };

  let stopped = false;
  // Built even when it never dials (connect: false), so its stats and metrics read 'idle'.
  const link = createLink({
    controlPlane: config.controlPlane,
    tls: config.tls,
    region: config.region,
    token: config.token,
    hostname: config.hostname,
    version: AGENT_VERSION,
    browserChecks: support.ok,
    batchSize: config.batchSize,
    flushIntervalMs: config.flushIntervalMs,
    maxBatchesInFlight: config.maxBatchesInFlight,
    outbox,
    identity,
    assignments,
    gate,
    scheduler,
    // the same runner as scheduled checks (browser: the same Chromium cap); never counted or stored
    runNow: (a) => runCheck(a),
    registry,
    logger: log.child({ component: 'link' }),
    heartbeat: () => {
      const s = scheduler.stats();
      return {
        checks_owned: s.assignments,
        checks_per_minute: sampleRate(),
        outbox_depth: outbox.depth(),
        scheduling_lag_ms_p99: s.lag.p99Ms,
        outbox_dropped: outbox.dropped(),
        browser_checks: support.ok,
        browser_unavailable: support.reason,
      };
    },
    onFatal: (message) => {
      // Results would be refused anyway: stop checking, keep the outbox for a re-registered agent.
      void scheduler.stop(0);
      opts.onFatal?.(message);
    },
  });
  if (opts.connect !== false) link.start();

  const stats = (): AgentStats => {
    const s = scheduler.stats();
    return {
      assignments: s.assignments,
      checksRun: counters.total,
      checksFailed: counters.failed,
      checksPerMinute: sampleRate(),
      scheduler: s,
      outboxDepth: stopped ? 0 : outbox.depth() + pending.length,
      outboxDropped: stopped ? 0 : outbox.dropped(),
      link: link.stats(),
      probeThreads,
    };
  };

  let metrics: MetricsServer | undefined;
  if (config.metricsPort > 0) {
    try {
      metrics = await startMetricsServer(config.metricsHost, config.metricsPort, registry);
      log.info({ port: metrics.port }, 'metrics on http://%s:%d/metrics', config.metricsHost, metrics.port);
    } catch (err) {
      log.error({ err: (err as Error).message, port: config.metricsPort }, 'metrics port unavailable; continuing without metrics');
    }
  }

  let stopping: Promise<void> | undefined;
  return {
    metricsPort: metrics?.port ?? null,
    stats,
    agentId: () => (stopped ? null : identity.get()?.agent_id ?? null),
    stop() {
      stopping ??= (async () => {
        await scheduler.stop(3000);
        flushResults();
        await link.stop(3000);
        await metrics?.close();
        await pool?.close();
        stopped = true;
        log.info({ outboxDepth: outbox.depth() }, 'agent stopped');
        dbClosed = true;
        db.close();
      })();
      return stopping;
    },
  };
}
