// The composition root's contract: features start in the order given and stop in reverse; a
// feature that fails to start leaves nothing running behind it.
import { describe, expect, it } from 'vitest';
import { every, startInOrder, whileLeader, type Feature, type LeaderSignal } from './lifecycle';

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

describe('whileLeader', () => {
  function signal(leader: boolean) {
    const listeners = new Set<(on: boolean) => void>();
    const s: LeaderSignal & { set(on: boolean): void; listeners: number } = {
      isLeader: () => leader,
      onChange(fn) {
        listeners.add(fn);
        return () => listeners.delete(fn);
      },
      set(on) {
        leader = on;
        for (const fn of listeners) fn(on);
      },
      get listeners() {
        return listeners.size;
      },
    };
    return s;
  }
  const work = (log: string[]) => ({
    async start() {
      await new Promise((r) => setImmediate(r));
      log.push('start');
    },
    stop() {
      log.push('stop');
    },
  });

  it('runs the work only while the lease is held: started on gain, stopped on loss, again on regain, in that order', async () => {
    const log: string[] = [];
    const lease = signal(false);
    const gated = whileLeader(lease, work(log));
    await gated.start();
    expect(log).toEqual([]);
    lease.set(true);
    lease.set(false);
    lease.set(true);
    await gated.stop();
    expect(log).toEqual(['start', 'stop', 'start', 'stop']);
    expect(lease.listeners).toBe(0);
    lease.set(false);
    lease.set(true);
    await new Promise((r) => setTimeout(r, 10));
    expect(log).toHaveLength(4); // nothing after its stop
  });

  it("starts at once when the lease is already held (a start failure is the feature's), and a repeated gain starts nothing twice", async () => {
    const log: string[] = [];
    const lease = signal(true);
    const gated = whileLeader(lease, work(log));
    await gated.start();
    expect(log).toEqual(['start']);
    lease.set(true);
    await gated.stop();
    expect(log).toEqual(['start', 'stop']);
    const failing = whileLeader(signal(true), { start: () => { throw new Error('no port'); } });
    await expect(failing.start()).rejects.toThrow('no port');
  });
});
