// Runs every assigned check at its interval, spread by a stable per-check offset, with bounded
// concurrency and no overlapping runs of one check. One timer for the earliest due check; the
// due times live in due-heap.ts, the lag figures in lag-stats.ts.
import type { Assignment } from '@upfleet/proto';
import { fnv1a32 } from '@upfleet/proto/hash';
import { CONFIRM_FAILURES } from '@upfleet/proto/outcome';
import { Counter, Histogram, type Registry } from 'prom-client';
import { gaugeFrom } from '../metrics';
import { systemClock, type Clock } from './clock';
import { createDueHeap } from './due-heap';
import { createLagStats, type LagSummary } from './lag-stats';

/** What a run tells the scheduler: a failed check is re-run soon (fast confirmation). */
export interface RunOutcome { failed: boolean }
export type RunCheck = (assignment: Assignment, plannedAt: number) => Promise<void | RunOutcome>;

/** After a failed run, the check runs again after this long (or its interval, if shorter)... */
export const RECHECK_DELAY_MS = 10_000;
/** ...until it passes or has failed CONFIRM_FAILURES times in a row (the control plane's confirmation, one count in proto). */
export { CONFIRM_FAILURES };

export interface SchedulerDeps {
  runCheck: RunCheck;
  concurrency: number;
  clock?: Clock;
  onError?: (err: unknown, assignment: Assignment) => void;
  /** the scheduler's metrics are registered here */
  registry?: Registry;
}

/** Upper bounds (ms) of the scheduling-lag histogram buckets; +Inf is implied. */
const LAG_BUCKETS_MS = [1, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000, 30000];

export interface SchedulerStats {
  assignments: number;
  running: number;
  queued: number;
  started: number;
  completed: number;
  /** due while the previous run of the same check was still queued or running */
  skippedOverlap: number;
  lag: LagSummary;
}

export interface Scheduler {
  /** a full snapshot: unknown checks are removed, new ones run at once, known ones keep their slot */
  replaceAll(assignments: Assignment[]): void;
  upsert(assignments: Assignment[]): void;
  remove(checkIds: string[]): void;
  start(): void;
  /** stops dispatching; resolves when in-flight checks finished or after graceMs */
  stop(graceMs?: number): Promise<void>;
  stats(): SchedulerStats;
  assignments(): Assignment[];
}

interface Entry {
  a: Assignment;
  periodMs: number;
  offsetMs: number;
  gen: number;
  busy: boolean;
  /** consecutive failed runs */
  fails: number;
}

/** A stable, well-spread 32-bit hash of the check id (FNV-1a, shared with the control plane). */
export const hashCheckId = (id: string): number => fnv1a32(id);

/** The first planned start strictly after `t` for a check with this period and offset. */
export function nextSlot(t: number, periodMs: number, offsetMs: number): number {
  return Math.floor((t - offsetMs) / periodMs) * periodMs + offsetMs + periodMs;
}

export function createScheduler(deps: SchedulerDeps): Scheduler {
  const clock = deps.clock ?? systemClock;
  const entries = new Map<string, Entry>();
  const heap = createDueHeap();
  const queue: { entry: Entry; plannedAt: number }[] = [];
  let qHead = 0;
  let timer: unknown;
  let timerAt = Infinity;
  let running = 0;
  let started = 0;
  let completed = 0;
  let skippedOverlap = 0;
  let active = false;
  const lag = createLagStats();
  let idleWaiters: (() => void)[] = [];
  const metrics = registerSchedulerMetrics(deps.registry, () => ({
    assignments: entries.size, running, queued: queue.length - qHead,
  }));

  function arm(): void {
    const next = heap.peek();
    if (!active || !next) return;
    const at = next.at;
    if (at >= timerAt) return;
    if (timer !== undefined) clock.clearTimer(timer);
    timerAt = at;
    timer = clock.setTimer(tick, Math.max(0, at - clock.now()));
  }

  function tick(): void {
    timer = undefined;
    timerAt = Infinity;
    if (!active) return;
    const now = clock.now();
    for (let next = heap.peek(); next && next.at <= now; next = heap.peek()) {
      const due = heap.pop()!;
      const entry = entries.get(due.id);
      if (!entry || entry.gen !== due.gen) continue;
      dispatch(entry, due.at);
      if (due.once) continue;
      // Behind schedule: skip to the next future slot instead of bursting through missed ones.
      heap.push({ at: nextSlot(Math.max(now, due.at), entry.periodMs, entry.offsetMs), id: due.id, gen: entry.gen });
    }
    arm();
  }

  function dispatch(entry: Entry, plannedAt: number): void {
    if (entry.busy) {
      skippedOverlap++;
      metrics?.skippedOverlap.inc();
      return;
    }
    entry.busy = true;
    queue.push({ entry, plannedAt });
    pump();
  }

  function pump(): void {
    while (active && running < deps.concurrency && qHead < queue.length) {
      const { entry, plannedAt } = queue[qHead];
      queue[qHead++] = undefined as never;
      if (qHead > 1024 && qHead * 2 > queue.length) {
        queue.splice(0, qHead);
        qHead = 0;
      }
      if (entries.get(entry.a.check_id) !== entry) {
        entry.busy = false; // removed while queued
        continue;
      }
      running++;
      started++;
      const lagMs = Math.max(0, clock.now() - plannedAt);
      lag.record(lagMs);
      metrics?.lag.observe(lagMs / 1000);
      const a = entry.a; // the latest version: an edited URL takes effect at the next run
      let p: Promise<void | RunOutcome>;
      try {
        p = deps.runCheck(a, plannedAt);
      } catch (err) {
        p = Promise.reject(err instanceof Error ? err : new Error(String(err)));
      }
      p.then((outcome) => afterRun(entry, outcome), (err) => deps.onError?.(err, a)).finally(() => {
        running--;
        completed++;
        entry.busy = false;
        if (running === 0 && idleWaiters.length) {
          const w = idleWaiters;
          idleWaiters = [];
          for (const f of w) f();
        }
        pump();
      });
    }
  }

  // Fast confirmation: a first failure is checked again soon instead of a whole interval later,
  // unless the periodic run comes first anyway.
  function afterRun(entry: Entry, outcome: void | RunOutcome): void {
    if (!outcome) return;
    entry.fails = outcome.failed ? entry.fails + 1 : 0;
    if (!outcome.failed || entry.fails >= CONFIRM_FAILURES || entries.get(entry.a.check_id) !== entry) return;
    const now = clock.now();
    const at = now + Math.min(RECHECK_DELAY_MS, entry.periodMs);
    if (nextSlot(now, entry.periodMs, entry.offsetMs) <= at) return;
    heap.push({ at, id: entry.a.check_id, gen: entry.gen, once: true });
    arm();
  }

  function schedule(entry: Entry, at: number): void {
    entry.gen++;
    heap.push({ at, id: entry.a.check_id, gen: entry.gen });
  }

  function upsertOne(a: Assignment): void {
    const periodMs = Math.max(1, a.interval_seconds) * 1000;
    const prev = entries.get(a.check_id);
    if (prev) {
      const changedPeriod = prev.periodMs !== periodMs;
      prev.a = a;
      if (changedPeriod) {
        prev.periodMs = periodMs;
        prev.offsetMs = hashCheckId(a.check_id) % periodMs;
        schedule(prev, nextSlot(clock.now(), periodMs, prev.offsetMs));
      }
      return;
    }
    const entry: Entry = { a, periodMs, offsetMs: hashCheckId(a.check_id) % periodMs, gen: 0, busy: false, fails: 0 };
    entries.set(a.check_id, entry);
    schedule(entry, clock.now()); // a new check runs at once
  }

  return {
    replaceAll(list) {
      const keep = new Set(list.map((a) => a.check_id));
      for (const id of entries.keys()) if (!keep.has(id)) entries.delete(id);
      for (const a of list) upsertOne(a);
      compact();
      arm();
    },
    upsert(list) {
      for (const a of list) upsertOne(a);
      arm();
    },
    remove(ids) {
      for (const id of ids) entries.delete(id);
      compact();
    },
    start() {
      if (active) return;
      active = true;
      arm();
      pump();
    },
    async stop(graceMs = 5000) {
      active = false;
      if (timer !== undefined) clock.clearTimer(timer);
      timer = undefined;
      timerAt = Infinity;
      for (let i = qHead; i < queue.length; i++) queue[i].entry.busy = false;
      queue.length = 0;
      qHead = 0;
      if (running === 0) return;
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, graceMs);
        idleWaiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    },
    stats: () => ({
      assignments: entries.size,
      running,
      queued: queue.length - qHead,
      started,
      completed,
      skippedOverlap,
      lag: lag.summary(),
    }),
    assignments: () => Array.from(entries.values(), (e) => e.a),
  };

  // Stale heap items of removed checks are skipped when popped; rebuild when they dominate.
  function compact(): void {
    if (heap.size() <= 2 * entries.size + 1024) return;
    heap.retain((d) => entries.get(d.id)?.gen === d.gen);
    timerAt = Infinity;
    if (timer !== undefined) clock.clearTimer(timer);
    timer = undefined;
    arm();
  }
}

/** Gauges read the scheduler's live figures when scraped; counters count as things happen. */
function registerSchedulerMetrics(
  registry: Registry | undefined,
  live: () => { assignments: number; running: number; queued: number },
): { skippedOverlap: Counter; lag: Histogram } | undefined {
  if (!registry) return undefined;
  gaugeFrom(registry, 'upfleet_agent_checks_in_flight', 'Checks running now.', () => live().running);
  gaugeFrom(registry, 'upfleet_agent_checks_queued', 'Checks due and waiting for a concurrency slot.', () => live().queued);
  gaugeFrom(registry, 'upfleet_agent_assignments', 'Checks assigned to this agent.', () => live().assignments);
  return {
    skippedOverlap: new Counter({
      name: 'upfleet_agent_checks_skipped_overlap_total',
      help: 'Runs skipped because the previous run of the check was still going.',
      registers: [registry],
    }),
    lag: new Histogram({
      name: 'upfleet_agent_scheduling_lag_seconds',
      help: 'Delay between the planned and the actual start of a check.',
      buckets: LAG_BUCKETS_MS.map((ms) => ms / 1000),
      registers: [registry],
    }),
  };
}
