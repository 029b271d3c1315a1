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
  /** Consecutive busy samples needed (1 s each), so only lasting overload starts threads (each
   *  costs ~60 MB of RSS). 15 unless set. */
  busySamples?: number;
  /** The checks due per second in steady state and the checks completed so far. With it, a busy
   *  spell starts threads only when the steady demand is above 80 % of what the main thread
   *  completed while busy: a first round of 10,000 new checks (20-50 s of a saturated main
   *  thread on a busy 2-core machine, at 60 s intervals) is worked off without them. */
  load?: () => { duePerSecond: number; completed: number };
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
  const needed = opts.busySamples ?? 15;
  const sampleMs = opts.sampleMs ?? 1000;
  let pool: Pick<ProbePool, 'run' | 'close'> | null = null;
  let busyInARow = 0;
  let last = elu();
  let completedAt: number | null = null; // read at the first sample (the scheduler is made after this runner)
  let busyCompleted = 0;
  /** Is the demand more than the main thread completes while saturated? (true without `load`) */
  const overloaded = (): boolean => {
    if (!opts.load) return true;
    const capacityPerSecond = busyCompleted / ((busyInARow * sampleMs) / 1000);
    return opts.load().duePerSecond > 0.8 * capacityPerSecond;
  };
  const timer = setInterval(() => {
    const now = elu();
    const u = elu(now, last).utilization;
    last = now;
    const completed = opts.load?.().completed ?? 0;
    busyInARow = u >= threshold ? busyInARow + 1 : 0;
    busyCompleted = busyInARow === 0 ? 0 : busyCompleted + (completed - (completedAt ?? completed));
    completedAt = completed;
    if (!pool && busyInARow >= needed && overloaded()) {
      pool = opts.makePool();
      opts.onStart?.(u);
      clearInterval(timer);
    }
  }, sampleMs);
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
