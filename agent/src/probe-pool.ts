// Runs checks on worker threads. One Node thread tops out at a few thousand fresh connections a
// second (connect/close syscalls dominate); a few threads use the other cores. A thread that dies
// is replaced, and the checks it was running come back as failed results instead of hanging.
import { Worker } from 'node:worker_threads';
import type { Assignment, CheckResult } from '@upfleet/proto';
import { failedCheck, type CheckRunner } from './run-check';

export interface ProbePoolOptions {
  threads: number;
  allowPrivateTargets: boolean;
  extraCa?: string[];
  maxBodyBytes?: number;
  /** the worker script (tests give one that can crash); probe-worker-boot.mjs by default */
  workerUrl?: URL;
  /** told when a thread died and was replaced */
  onCrash?: (err: Error, lostChecks: number) => void;
}

export interface ProbePool {
  run: CheckRunner;
  close(): Promise<void>;
  /** threads replaced after a crash so far */
  replaced(): number;
}

interface Slot {
  worker: Worker;
  /** checks sent to this thread and not answered yet */
  inflight: Map<number, { a: Assignment; startedAt: number; resolve: (r: CheckResult) => void }>;
  /** checks for this thread not posted yet: one message per thread per event-loop turn */
  outgoing: ProbeRequest[];
}

/** What goes to a probe thread (an array of them per message) and what comes back. */
export interface ProbeRequest { id: number; a: Assignment }
export interface ProbeReply { id: number; r?: CheckResult; error?: string }

export function createProbePool(opts: ProbePoolOptions): ProbePool {
  let nextId = 1;
  let closing = false;
  let replaced = 0;
  const url = opts.workerUrl ?? new URL('./probe-worker-boot.mjs', import.meta.url);

  const spawn = (): Slot => {
    const w = new Worker(url, {
      workerData: { allowPrivateTargets: opts.allowPrivateTargets, extraCa: opts.extraCa, maxBodyBytes: opts.maxBodyBytes },
      execArgv: [],
      // No young-generation limit: probe threads only start under lasting overload, where a 6 MB
      // one cost ~10 % of the checks/s in scavenges (bench:agent-throughput) for ~30 MB of RSS.
    });
    const slot: Slot = { worker: w, inflight: new Map(), outgoing: [] };
    // Replies come in batches too (probe-worker.ts): a message per check cost more main-thread
    // time than the check's own socket work (bench:agent-throughput, probe threads 1 vs 0).
    w.on('message', (batch: ProbeReply[]) => {
      for (const m of batch) {
        const p = slot.inflight.get(m.id);
        if (!p) continue;
        slot.inflight.delete(m.id);
        p.resolve(m.r ?? failedCheck(p.a, `probe failed: ${m.error ?? 'unknown error'}`, p.startedAt));
      }
    });
    let gone = false;
    const died = (err: Error): void => {
      if (gone) return;
      gone = true;
      const lost = [...slot.inflight.values()];
      slot.inflight.clear();
      const why = closing ? 'the agent stopped during the check' : `probe thread crashed during the check: ${err.message}`;
      for (const p of lost) p.resolve(failedCheck(p.a, why, p.startedAt));
      if (closing) return;
      const i = slots.indexOf(slot);
      if (i >= 0) slots[i] = spawn();
      replaced++;
      opts.onCrash?.(err, lost.length);
    };
    w.on('error', died);
    w.on('exit', (code) => died(new Error(`exit code ${code}`)));
    return slot;
  };
  const slots: Slot[] = Array.from({ length: opts.threads }, spawn);
  let flushScheduled = false;
  const flush = (): void => {
    flushScheduled = false;
    for (const s of slots) {
      if (!s.outgoing.length) continue;
      const batch = s.outgoing;
      s.outgoing = [];
      s.worker.postMessage(batch);
    }
  };

  return {
    run(a: Assignment) {
      // least busy thread: checks differ a lot in duration (timeouts vs fast 200s)
      let best = slots[0];
      for (const s of slots) if (s.inflight.size < best.inflight.size) best = s;
      const id = nextId++;
      return new Promise<CheckResult>((resolve) => {
        best.inflight.set(id, { a, startedAt: Date.now(), resolve });
        best.outgoing.push({ id, a });
        if (!flushScheduled) {
          flushScheduled = true;
          setImmediate(flush);
        }
      });
    },
    async close() {
      closing = true;
      await Promise.all(slots.map((s) => s.worker.terminate()));
    },
    replaced: () => replaced,
  };
}
