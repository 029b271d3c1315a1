import { afterEach, describe, expect, it, vi } from 'vitest';
import type { EventLoopUtilization } from 'node:perf_hooks';
import type { Assignment, CheckResult } from '@upfleet/proto';
import { createAdaptiveRunner } from './adaptive-runner';

const assignment = { check_id: '1:CHECK_KIND_HTTP:EU-Germany' } as Assignment;
const result = (by: string) => ({ check_id: by }) as CheckResult;

/** Utilization source where each 1 s sample reads the busy share set by the test. */
function fakeUtilization() {
  let busy = 0;
  let total = { idle: 0, active: 0, utilization: 0 };
  return {
    setBusy: (b: number) => (busy = b),
    tick() {
      total = { idle: total.idle + (1 - busy) * 1000, active: total.active + busy * 1000, utilization: 0 };
    },
    fn: (a?: EventLoopUtilization, b?: EventLoopUtilization): EventLoopUtilization => {
      if (a && b) {
        const active = a.active - b.active;
        const idle = a.idle - b.idle;
        return { active, idle, utilization: active / Math.max(1, active + idle) };
      }
      return { ...total };
    },
  };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('adaptive probe runner', () => {
  it('keeps probes on the main thread through a burst and moves them to threads under lasting overload', async () => {
    vi.useFakeTimers();
    const u = fakeUtilization();
    let poolsMade = 0;
    const runner = createAdaptiveRunner({
      local: async () => result('main'),
      makePool: () => {
        poolsMade++;
        return { run: async () => result('pool'), close: async () => undefined };
      },
      utilization: u.fn,
      busySamples: 5,
    });
    const step = async (busy: number, seconds: number) => {
      u.setBusy(busy);
      for (let i = 0; i < seconds; i++) {
        u.tick();
        await vi.advanceTimersByTimeAsync(1000);
      }
    };
    await step(1, 4); // a 4 s burst, such as the first round of new assignments
    await step(0.1, 3);
    expect(runner.threaded()).toBe(false);
    expect((await runner.run(assignment)).check_id).toBe('main');
    await step(0.95, 6); // saturated for longer than busySamples
    expect(runner.threaded()).toBe(true);
    expect(poolsMade).toBe(1);
    expect((await runner.run(assignment)).check_id).toBe('pool');
    await runner.close();
  });

  it('never starts threads for a quiet agent', async () => {
    vi.useFakeTimers();
    const u = fakeUtilization();
    const runner = createAdaptiveRunner({
      local: async () => result('main'),
      makePool: () => {
        throw new Error('no pool expected');
      },
      utilization: u.fn,
    });
    u.setBusy(0.3);
    for (let i = 0; i < 60; i++) {
      u.tick();
      await vi.advanceTimersByTimeAsync(1000);
    }
    expect(runner.threaded()).toBe(false);
    await runner.close();
  });

  it('works off a long first round of checks without threads when the steady demand is below what the main thread completes', async () => {
    vi.useFakeTimers();
    const u = fakeUtilization();
    let completed = 0;
    let duePerSecond = 10_000 / 60; // 10,000 checks every 60 s
    let poolsMade = 0;
    const runner = createAdaptiveRunner({
      local: async () => result('main'),
      makePool: () => {
        poolsMade++;
        return { run: async () => result('pool'), close: async () => undefined };
      },
      utilization: u.fn,
      busySamples: 5,
      load: () => ({ duePerSecond, completed }),
    });
    const step = async (busy: number, seconds: number, perSecond: number) => {
      u.setBusy(busy);
      for (let i = 0; i < seconds; i++) {
        u.tick();
        completed += perSecond;
        await vi.advanceTimersByTimeAsync(1000);
      }
    };
    await step(1, 40, 400); // a 40 s first round at 400 checks/s, far above the 167/s due later
    expect(runner.threaded()).toBe(false);
    expect(poolsMade).toBe(0);
    duePerSecond = 12_000; // then far more is due than the 3,000/s the main thread completes
    await step(1, 6, 3000);
    expect(runner.threaded()).toBe(true);
    expect(poolsMade).toBe(1);
    await runner.close();
  });
});
