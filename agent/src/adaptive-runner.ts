// Probes run on the main thread while it has room; when the event loop stays busy (an agent with
// more checks than one thread can open connections for), worker threads start and take the checks.
// A quiet agent never pays the ~65 MB per thread; a saturated one uses every core.
import { performance, type EventLoopUtilization } from 'node:perf_hooks';
import type { Assignment, CheckResult } from '@upfleet/proto';
import type { ProbePool } from './probe-pool';
import type { CheckRunner } from './run-check';

export interface AdaptiveRunnerOptions {
  local: CheckRunner;
  makePool: () => Pick<ProbePool, 'run' | 'close'>;
  /** Busy share of the event loop over one sample that starts the pool. */
  busyThreshold?: number;
  /** Consecutive busy samples needed (1 s each); longer than the burst of a first round of
   *  checks (10,000 new assignments take 10 s on a quiet machine, 20-25 s on a busy 2-core one),
   *  so only lasting overload starts threads (each costs ~60 MB of RSS). 45 unless set. */
  busySamples?: number;
  sampleMs?: number;
  onStart?: (utilization: number) => void;
  /** Injected for tests. */
  utilization?: (a?: EventLoopUtilization, b?: EventLoopUtilization) => EventLoopUtilization;
}

export interface AdaptiveRunner {
  run: CheckRunner;
  threaded(): boolean;
  close(): Promise<void>;
}

export function createAdaptiveRunner(opts: AdaptiveRunnerOptions): AdaptiveRunner {
  const elu = opts.utilization ?? ((a?: EventLoopUtilization, b?: EventLoopUtilization) => performance.eventLoopUtilization(a, b));
  const threshold = opts.busyThreshold ?? 0.85;
  const needed = opts.busySamples ?? 45;
  let pool: Pick<ProbePool, 'run' | 'close'> | null = null;
  let busyInARow = 0;
  let last = elu();
  const timer = setInterval(() => {
    const now = elu();
    const u = elu(now, last).utilization;
    last = now;
    busyInARow = u >= threshold ? busyInARow + 1 : 0;
    if (!pool && busyInARow >= needed) {
      pool = opts.makePool();
      opts.onStart?.(u);
      clearInterval(timer);
    }
  }, opts.sampleMs ?? 1000);
  timer.unref();
  return {
    run: (a: Assignment): Promise<CheckResult> => (pool ? pool.run(a) : opts.local(a)),
    threaded: () => pool !== null,
    async close() {
      clearInterval(timer);
      await pool?.close();
    },
  };
}
