// Runs checks on worker threads. One Node thread tops out at a few thousand fresh connections a
// second (connect/close syscalls dominate); a few threads use the other cores.
import { Worker } from 'node:worker_threads';
import type { Assignment, CheckResult } from '@upfleet/proto';
import type { CheckRunner } from './run-check';

export interface ProbePoolOptions {
  threads: number;
  allowPrivateTargets: boolean;
  extraCa?: string[];
  maxBodyBytes?: number;
}

export interface ProbePool {
  run: CheckRunner;
  close(): Promise<void>;
}

export function createProbePool(opts: ProbePoolOptions): ProbePool {
  const pending = new Map<number, { resolve: (r: CheckResult) => void; reject: (e: Error) => void }>();
  const load: number[] = [];
  let nextId = 1;
  const workers = Array.from({ length: opts.threads }, (_, i) => {
    const w = new Worker(new URL('./probe-worker-boot.mjs', import.meta.url), {
      workerData: { allowPrivateTargets: opts.allowPrivateTargets, extraCa: opts.extraCa, maxBodyBytes: opts.maxBodyBytes },
      execArgv: [],
    });
    load[i] = 0;
    w.on('message', (m: { id: number; r?: CheckResult; error?: string }) => {
      load[i]--;
      const p = pending.get(m.id);
      if (!p) return;
      pending.delete(m.id);
      if (m.r) p.resolve(m.r);
      else p.reject(new Error(m.error ?? 'probe worker failed'));
    });
    w.on('error', (err) => {
      for (const [id, p] of pending) {
        pending.delete(id);
        p.reject(err);
      }
    });

    return w;
  });

  return {
    run(a: Assignment) {
      // least busy worker: checks differ a lot in duration (timeouts vs fast 200s)
      let best = 0;
      for (let i = 1; i < load.length; i++) if (load[i] < load[best]) best = i;
      load[best]++;
      const id = nextId++;
      return new Promise<CheckResult>((resolve, reject) => {
        pending.set(id, { resolve, reject });
        workers[best].postMessage({ id, a });
      });
    },
    async close() {
      await Promise.all(workers.map((w) => w.terminate()));
    },
  };
}
