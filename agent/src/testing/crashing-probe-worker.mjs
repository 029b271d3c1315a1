// A probe thread for probe-pool tests: the real worker, except that a check whose URL contains
// '/crash-the-thread' throws an uncaught error in the thread while the check is in flight.
import { parentPort } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
await import('../probe-worker.ts');
// Attached after the real worker's listener, so no message reaches only this one.
parentPort.on('message', (batch) => {
  if (batch.some((m) => String(m?.a?.url ?? '').includes('/crash-the-thread'))) {
    // At once, while the real worker's request is still connecting: a delay raced a fast 404 from
    // the loopback target on a quiet machine, so the check had finished before the crash.
    throw new Error('probe thread blew up');
  }
});
