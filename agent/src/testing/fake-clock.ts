// A clock for tests: time moves only when advance() is called, firing due timers in order.
import type { Clock } from '../scheduler/clock';

interface FakeClock extends Clock {
  /** moves time forward, firing due timers in order and letting promises settle after each */
  advance(ms: number): Promise<void>;
  pendingTimers(): number;
}

export function createFakeClock(start = 1_700_000_000_000): FakeClock {
  let now = start;
  let seq = 0;
  const timers = new Map<number, { at: number; fn: () => void }>();
  return {
    now: () => now,
    setTimer(fn, ms) {
      const id = ++seq;
      timers.set(id, { at: now + Math.max(0, ms), fn });
      return id;
    },
    clearTimer(h) {
      timers.delete(h as number);
    },
    async advance(ms) {
      const end = now + ms;
      await new Promise((r) => setImmediate(r));
      for (;;) {
        let next: [number, { at: number; fn: () => void }] | undefined;
        for (const e of timers) if (e[1].at <= end && (!next || e[1].at < next[1].at)) next = e;
        if (!next) break;
        timers.delete(next[0]);
        now = Math.max(now, next[1].at);
        next[1].fn();
        await new Promise((r) => setImmediate(r));
      }
      now = end;
    },
    pendingTimers: () => timers.size,
  };
}
