// Runs every assigned check at its interval, spread by a stable per-check offset, with bounded
// concurrency and no overlapping runs of one check. One timer for the earliest due check.
import type { Assignment } from '@upfleet/proto';
import { systemClock, type Clock } from './clock';
import { fnv1a32 } from '@upfleet/proto/hash';

export type RunCheck = (assignment: Assignment, plannedAt: number) => Promise<void>;

export interface SchedulerDeps {
  runCheck: RunCheck;
  concurrency: number;
  clock?: Clock;
  onError?: (err: unknown, assignment: Assignment) => void;
}

/** Upper bounds (ms) of the scheduling-lag histogram buckets; +Inf is implied. */
export const LAG_BUCKETS_MS = [1, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000, 30000];

export interface SchedulerStats {
  assignments: number;
  running: number;
  queued: number;
  started: number;
  completed: number;
  /** due while the previous run of the same check was still queued or running */
  skippedOverlap: number;
  lag: { count: number; sumMs: number; p50Ms: number; p99Ms: number; maxMs: number; buckets: number[] };
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
}

interface Due { at: number; seq: number; id: string; gen: number }

/** A stable, well-spread 32-bit hash of the check id (FNV-1a, shared with the control plane). */
export const hashCheckId = (id: string): number => fnv1a32(id);

/** The first planned start strictly after `t` for a check with this period and offset. */
export function nextSlot(t: number, periodMs: number, offsetMs: number): number {
  return Math.floor((t - offsetMs) / periodMs) * periodMs + offsetMs + periodMs;
}

const LAG_WINDOW = 2048;

export function createScheduler(deps: SchedulerDeps): Scheduler {
  const clock = deps.clock ?? systemClock;
  const entries = new Map<string, Entry>();
  const heap: Due[] = [];
  const queue: { entry: Entry; plannedAt: number }[] = [];
  let qHead = 0;
  let timer: unknown;
  let timerAt = Infinity;
  let running = 0;
  let started = 0;
  let completed = 0;
  let skippedOverlap = 0;
  let active = false;
  const lagWindow = new Float64Array(LAG_WINDOW);
  let lagCount = 0;
  let lagSum = 0;
  let lagMax = 0;
  const lagBuckets = new Array<number>(LAG_BUCKETS_MS.length + 1).fill(0);
  let idleWaiters: (() => void)[] = [];

  let dueSeq = 0;
  // Earlier first; equal times in the order they were scheduled.
  const before = (x: Due, y: Due): boolean => x.at < y.at || (x.at === y.at && x.seq < y.seq);

  function push(d: Due): void {
    heap.push(d);
    let i = heap.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!before(heap[i], heap[p])) break;
      [heap[p], heap[i]] = [heap[i], heap[p]];
      i = p;
    }
  }

  function pop(): Due | undefined {
    const top = heap[0];
    const last = heap.pop();
    if (heap.length && last) {
      heap[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < heap.length && before(heap[l], heap[m])) m = l;
        if (r < heap.length && before(heap[r], heap[m])) m = r;
        if (m === i) break;
        [heap[m], heap[i]] = [heap[i], heap[m]];
        i = m;
      }
    }
    return top;
  }

  function arm(): void {
    if (!active || heap.length === 0) return;
    const at = heap[0].at;
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
    while (heap.length && heap[0].at <= now) {
      const due = pop()!;
      const entry = entries.get(due.id);
      if (!entry || entry.gen !== due.gen) continue;
      dispatch(entry, due.at);
      // Behind schedule: skip to the next future slot instead of bursting through missed ones.
      push({ at: nextSlot(Math.max(now, due.at), entry.periodMs, entry.offsetMs), seq: dueSeq++, id: due.id, gen: entry.gen });
    }
    arm();
  }

  function dispatch(entry: Entry, plannedAt: number): void {
    if (entry.busy) {
      skippedOverlap++;
      return;
    }
    entry.busy = true;
    queue.push({ entry, plannedAt });
    pump();
  }

  function recordLag(lag: number): void {
    lagWindow[lagCount % LAG_WINDOW] = lag;
    lagCount++;
    lagSum += lag;
    if (lag > lagMax) lagMax = lag;
    let b = 0;
    while (b < LAG_BUCKETS_MS.length && lag > LAG_BUCKETS_MS[b]) b++;
    lagBuckets[b]++;
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
      recordLag(Math.max(0, clock.now() - plannedAt));
      const a = entry.a; // the latest version: an edited URL takes effect at the next run
      let p: Promise<void>;
      try {
        p = deps.runCheck(a, plannedAt);
      } catch (err) {
        p = Promise.reject(err);
      }
      p.catch((err) => deps.onError?.(err, a)).finally(() => {
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

  function schedule(entry: Entry, at: number): void {
    entry.gen++;
    push({ at, seq: dueSeq++, id: entry.a.check_id, gen: entry.gen });
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
    const entry: Entry = { a, periodMs, offsetMs: hashCheckId(a.check_id) % periodMs, gen: 0, busy: false };
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
    stats() {
      const n = Math.min(lagCount, LAG_WINDOW);
      const recent = Array.from(lagWindow.subarray(0, n)).sort((x, y) => x - y);
      const q = (p: number): number => (n ? recent[Math.min(n - 1, Math.floor(p * n))] : 0);
      return {
        assignments: entries.size,
        running,
        queued: queue.length - qHead,
        started,
        completed,
        skippedOverlap,
        lag: { count: lagCount, sumMs: lagSum, p50Ms: q(0.5), p99Ms: q(0.99), maxMs: lagMax, buckets: [...lagBuckets] },
      };
    },
    assignments: () => Array.from(entries.values(), (e) => e.a),
  };

  // Stale heap items of removed checks are skipped when popped; rebuild when they dominate.
  function compact(): void {
    if (heap.length <= 2 * entries.size + 1024) return;
    const live = heap.filter((d) => entries.get(d.id)?.gen === d.gen);
    heap.length = 0;
    for (const d of live) push(d);
    timerAt = Infinity;
    if (timer !== undefined) clock.clearTimer(timer);
    timer = undefined;
    arm();
  }
}
