import { describe, expect, it } from 'vitest';
import { createLagStats, LAG_WINDOW } from './lag-stats';

describe('lag stats', () => {
  it('reports zeros before any run', () => {
    expect(createLagStats().summary()).toEqual({ count: 0, sumMs: 0, p50Ms: 0, p99Ms: 0, maxMs: 0 });
  });

  it('gives p50 and p99 of the recorded lags with their count, sum and max', () => {
    const s = createLagStats();
    for (let i = 1; i <= 100; i++) s.record(i);
    expect(s.summary()).toEqual({ count: 100, sumMs: 5050, p50Ms: 51, p99Ms: 100, maxMs: 100 });
  });

  it('takes percentiles over the last LAG_WINDOW runs but keeps all-time count and max', () => {
    const s = createLagStats();
    s.record(10_000);
    for (let i = 0; i < LAG_WINDOW; i++) s.record(5);
    const sum = s.summary();
    expect(sum.count).toBe(LAG_WINDOW + 1);
    expect(sum.maxMs).toBe(10_000);
    expect(sum.p99Ms).toBe(5);
  });
});
