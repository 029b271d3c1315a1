// A probe thread for probe-pool tests: the real worker, except that a check whose URL contains
// '/crash-the-thread' throws an uncaught error in the thread while the check is in flight.
import { parentPort } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
await import('../probe-worker.ts');
// Attached after the real worker's listener, so no message reaches only this one.
parentPort.on('message', (m) => {
  if (String(m?.a?.url ?? '').includes('/crash-the-thread')) {
    setTimeout(() => {
      throw new Error('probe thread blew up');
    }, 50);
  }
});
