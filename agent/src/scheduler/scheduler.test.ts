import { describe, expect, it } from 'vitest';
import type { Assignment } from '@upfleet/proto';
import { createFakeClock } from '../testing/fake-clock';
import { CONFIRM_FAILURES, createScheduler, hashCheckId, nextSlot, RECHECK_DELAY_MS, type RunCheck } from './scheduler';

const settle = (): Promise<void> => new Promise((r) => setImmediate(r));

function assignment(id: string, over: Partial<Assignment> = {}): Assignment {
  return {
    check_id: id, endpoint_id: 1, kind: 'CHECK_KIND_HTTP', url: `http://127.0.0.1/${id}`,
    interval_seconds: 60, timeout_ms: 1000, region: 'EU-Germany', retention_days: 30, ...over,
  };
}

/** Records every run; runs finish at once unless `hold` is set. */
function recorder(clock: { now(): number }) {
  const runs: { id: string; url: string; at: number; plannedAt: number }[] = [];
  let hold = false;
  const pending: (() => void)[] = [];
  const run: RunCheck = (a, plannedAt) => {
    runs.push({ id: a.check_id, url: a.url, at: clock.now(), plannedAt });
    if (!hold) return Promise.resolve();
    return new Promise<void>((r) => pending.push(r));
  };
  return {
    runs, run, pending,
    hold(v: boolean) { hold = v; },
    releaseAll() { pending.splice(0).forEach((f) => f()); },
  };
}

describe('scheduler', () => {
  it('runs a new assignment at once, then at its stable offset every interval', async () => {
    const clock = createFakeClock();
    const rec = recorder(clock);
    const s = createScheduler({ runCheck: rec.run, concurrency: 4, clock });
    s.start();
    const t0 = clock.now();
    s.upsert([assignment('a')]);
    await clock.advance(0);
    await settle();
    expect(rec.runs).toHaveLength(1);
    expect(rec.runs[0].at).toBe(t0);

    await clock.advance(180_000);
    await settle();
    const later = rec.runs.slice(1).map((r) => r.at);
    expect(later).toHaveLength(3);
    const offset = hashCheckId('a') % 60_000;
    for (const at of later) expect((at - offset) % 60_000).toBe(0);
    expect(later[1] - later[0]).toBe(60_000);
    expect(later[2] - later[1]).toBe(60_000);
    expect(later[0]).toBe(nextSlot(t0, 60_000, offset));
  });

  it('spreads checks of the same interval over the interval instead of running them together', async () => {
    const clock = createFakeClock();
    const rec = recorder(clock);
    const s = createScheduler({ runCheck: rec.run, concurrency: 1000, clock });
    s.start();
    s.upsert(Array.from({ length: 600 }, (_, i) => assignment(`c${i}`)));
    await clock.advance(0);
    await settle();
    rec.runs.length = 0;
    await clock.advance(60_000);
    await settle();
    expect(rec.runs).toHaveLength(600);
    const perTenth = new Array(10).fill(0);
    for (const r of rec.runs) perTenth[Math.floor(((r.at - clock.now() + 60_000) / 60_000) * 10) % 10]++;
    for (const n of perTenth) expect(n).toBeGreaterThan(30); // ~60 each, never all in one slice
  });

  it('never runs more checks at once than the concurrency bound and measures the lag', async () => {
    const clock = createFakeClock();
    const rec = recorder(clock);
    rec.hold(true);
    const s = createScheduler({ runCheck: rec.run, concurrency: 2, clock });
    s.start();
    s.upsert([assignment('a'), assignment('b'), assignment('c')]);
    await clock.advance(0);
    await settle();
    expect(rec.runs.map((r) => r.id)).toEqual(['a', 'b']);
    expect(s.stats()).toMatchObject({ running: 2, queued: 1 });
    await clock.advance(250);
    rec.releaseAll();
    await settle();
    expect(rec.runs.map((r) => r.id)).toEqual(['a', 'b', 'c']);
    const stats = s.stats();
    expect(stats.lag.maxMs).toBe(250);
    expect(stats.lag.count).toBe(3);
    expect(stats.lag.p99Ms).toBe(250);
  });

  it('skips and counts a due run while the previous run of the same check is still going', async () => {
    const clock = createFakeClock();
    const rec = recorder(clock);
    rec.hold(true);
    const s = createScheduler({ runCheck: rec.run, concurrency: 10, clock });
    s.start();
    s.upsert([assignment('a', { interval_seconds: 10 })]);
    await clock.advance(0);
    await settle();
    const t0 = clock.now();
    let slots = 0;
    for (let t = nextSlot(t0, 10_000, hashCheckId('a') % 10_000); t <= t0 + 25_000; t += 10_000) slots++;
    await clock.advance(25_000); // two or three more slots pass while the first run hangs
    await settle();
    expect(rec.runs).toHaveLength(1);
    expect(slots).toBeGreaterThanOrEqual(2);
    expect(s.stats().skippedOverlap).toBe(slots);
    rec.releaseAll();
    await settle();
    await clock.advance(10_000);
    await settle();
    expect(rec.runs).toHaveLength(2);
  });

  it('applies an edited URL at the next run and a changed interval at once', async () => {
    const clock = createFakeClock();
    const rec = recorder(clock);
    const s = createScheduler({ runCheck: rec.run, concurrency: 10, clock });
    s.start();
    s.upsert([assignment('a', { interval_seconds: 300 })]);
    await clock.advance(0);
    await settle();
    s.upsert([assignment('a', { interval_seconds: 300, url: 'http://127.0.0.1/new' })]);
    expect(rec.runs).toHaveLength(1); // an edit is not a new check
    await clock.advance(300_000);
    await settle();
    expect(rec.runs[1].url).toBe('http://127.0.0.1/new');

    s.upsert([assignment('a', { interval_seconds: 10, url: 'http://127.0.0.1/new' })]);
    rec.runs.length = 0;
    await clock.advance(30_000);
    await settle();
    expect(rec.runs.length).toBe(3);
  });

  it('stops running removed checks and replaceAll keeps the slots of known ones', async () => {
    const clock = createFakeClock();
    const rec = recorder(clock);
    const s = createScheduler({ runCheck: rec.run, concurrency: 10, clock });
    s.start();
    s.upsert([assignment('a'), assignment('b')]);
    await clock.advance(0);
    await settle();
    s.remove(['a']);
    s.replaceAll([assignment('b'), assignment('c')]);
    await clock.advance(0);
    await settle();
    expect(rec.runs.map((r) => r.id)).toEqual(['a', 'b', 'c']); // b not re-run by the snapshot
    rec.runs.length = 0;
    await clock.advance(120_000);
    await settle();
    expect(new Set(rec.runs.map((r) => r.id))).toEqual(new Set(['b', 'c']));
    expect(s.stats().assignments).toBe(2);
  });

  it('stop() waits for in-flight checks and then dispatches nothing', async () => {
    const clock = createFakeClock();
    const rec = recorder(clock);
    rec.hold(true);
    const s = createScheduler({ runCheck: rec.run, concurrency: 10, clock });
    s.start();
    s.upsert([assignment('a', { interval_seconds: 1 })]);
    await clock.advance(0);
    await settle();
    let stopped = false;
    const p = s.stop(5000).then(() => { stopped = true; });
    await settle();
    expect(stopped).toBe(false);
    rec.releaseAll();
    await p;
    await clock.advance(10_000);
    await settle();
    expect(rec.runs).toHaveLength(1);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('keeps going when a check throws', async () => {
    const clock = createFakeClock();
    const errors: unknown[] = [];
    let n = 0;
    const s = createScheduler({
      runCheck: async () => { n++; throw new Error('bug'); },
      concurrency: 1, clock, onError: (e) => errors.push(e),
    });
    s.start();
    s.upsert([assignment('a', { interval_seconds: 1 })]);
    await clock.advance(3000);
    await settle();
    await clock.advance(1000);
    await settle();
    expect(n).toBeGreaterThanOrEqual(2);
    expect(errors.length).toBe(n);
  });

  describe('fast confirmation', () => {
    /** One check whose runs fail while `state.failing`, started on a fake clock; runs are their times. */
    async function startFailing(id: string, intervalSeconds: number) {
      const clock = createFakeClock();
      const runs: number[] = [];
      const state = { failing: true };
      const s = createScheduler({ runCheck: async () => (runs.push(clock.now()), { failed: state.failing }), concurrency: 4, clock });
      s.start();
      const t0 = clock.now();
      s.upsert([assignment(id, { interval_seconds: intervalSeconds })]);
      await clock.advance(0);
      await settle();
      const advance = async (ms: number) => {
        for (let i = 0; i < ms / 1000; i++) {
          await clock.advance(1000);
          await settle();
        }
      };
      return { runs, state, s, t0, advance };
    }

    it('re-runs a failed check after 10 s instead of a whole interval, until it has failed twice', async () => {
      const { runs, s, t0, advance } = await startFailing('down', 300);
      await advance(60_000);
      expect(CONFIRM_FAILURES).toBe(2);
      // The first run at once, one re-check 10 s later (2 failures: confirmed), then nothing until the slot.
      expect(runs.map((t) => t - t0)).toEqual([0, RECHECK_DELAY_MS]);
      await advance(300_000);
      expect(runs.slice(2)).toContain(nextSlot(t0, 300_000, hashCheckId('down') % 300_000));
      void s.stop();
    });

    it('stops re-checking when the re-check passes, and starts again at the next failure', async () => {
      const { runs, state, s, advance } = await startFailing('flaky', 300);
      state.failing = false;
      await advance(60_000);
      expect(runs).toHaveLength(2); // the failure and its passing re-check
      await advance(300_000);
      expect(runs).toHaveLength(3); // the periodic run only
      void s.stop();
    });

    it('adds no run when the interval is 10 s or shorter: the next periodic run is the re-check', async () => {
      const { runs, s, t0, advance } = await startFailing('fast', 5);
      await advance(30_000);
      const offset = hashCheckId('fast') % 5000;
      for (const t of runs.slice(1)) expect((t - offset) % 5000).toBe(0);
      expect(runs.length).toBe(1 + Math.floor((t0 + 30_000 - offset) / 5000) - Math.floor((t0 - offset) / 5000));
      void s.stop();
    });
  });
});
