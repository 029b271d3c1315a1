// The composition root's contract: features start in the order given and stop in reverse; a
// feature that fails to start leaves nothing running behind it.
import { describe, expect, it } from 'vitest';
import { every, startInOrder, type Feature } from './lifecycle';

function recorder() {
  const log: string[] = [];
  const feature = (name: string, failStart = false): Feature<null> => ({
    name,
    services: null,
    async start() {
      await new Promise((r) => setImmediate(r));
      if (failStart) throw new Error(`${name} failed`);
      log.push(`start ${name}`);
    },
    stop() {
      log.push(`stop ${name}`);
    },
  });
  return { log, feature };
}

describe('startInOrder', () => {
  it('starts features in order and stops them in reverse', async () => {
    const { log, feature } = recorder();
    const stop = await startInOrder([feature('store'), feature('alerting'), feature('http')]);
    expect(log).toEqual(['start store', 'start alerting', 'start http']);
    await stop();
    expect(log.slice(3)).toEqual(['stop http', 'stop alerting', 'stop store']);
  });

  it('stops the features already started, in reverse, when one fails to start, and rethrows', async () => {
    const { log, feature } = recorder();
    await expect(startInOrder([feature('store'), feature('alerting'), feature('grpc', true), feature('http')])).rejects.toThrow('grpc failed');
    expect(log).toEqual(['start store', 'start alerting', 'stop alerting', 'stop store']);
  });
});

describe('every', () => {
  it('runs nothing before start and nothing after stop', async () => {
    let runs = 0;
    const timer = every(5, () => runs++);
    await new Promise((r) => setTimeout(r, 30));
    expect(runs).toBe(0);
    timer.start();
    await new Promise((r) => setTimeout(r, 60));
    timer.stop();
    const after = runs;
    expect(after).toBeGreaterThan(0);
    await new Promise((r) => setTimeout(r, 30));
    expect(runs).toBe(after);
  });
});
