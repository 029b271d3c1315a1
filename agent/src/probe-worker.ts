// Worker-thread side of the probe pool: runs checks with the same runner as the main thread,
// so sockets, TLS and parsing of many checks spread over the machine's cores.
import { parentPort, workerData } from 'node:worker_threads';
import type { ProbeReply, ProbeRequest } from './probe-pool';
import { createHostResolver } from './probers/index';
import { createCheckRunner } from './run-check';

interface Init { allowPrivateTargets: boolean; extraCa?: string[]; maxBodyBytes?: number }

const init = workerData as Init;
const run = createCheckRunner({
  resolver: createHostResolver(),
  allowPrivateTargets: init.allowPrivateTargets,
  extraCa: init.extraCa,
  maxBodyBytes: init.maxBodyBytes,
});

// Results leave in one message per event-loop turn, as checks arrive (probe-pool.ts).
let replies: ProbeReply[] = [];
const flush = (): void => {
  const batch = replies;
  replies = [];
  parentPort!.postMessage(batch);
};
const reply = (m: ProbeReply): void => {
  if (replies.push(m) === 1) setImmediate(flush);
};

parentPort!.on('message', (batch: ProbeRequest[]) => {
  for (const m of batch) {
    run(m.a).then(
      (r) => reply({ id: m.id, r }),
      (err: unknown) => reply({ id: m.id, error: String((err as Error)?.message ?? err) }),
    );
  }
});
