// Worker-thread side of the probe pool: runs checks with the same runner as the main thread,
// so sockets, TLS and parsing of many checks spread over the machine's cores.
import { parentPort, workerData } from 'node:worker_threads';
import type { Assignment } from '@upfleet/proto';
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

parentPort!.on('message', (m: { id: number; a: Assignment }) => {
  run(m.a).then(
    (r) => parentPort!.postMessage({ id: m.id, r }),
    (err: unknown) => parentPort!.postMessage({ id: m.id, error: String((err as Error)?.message ?? err) }),
  );
});
