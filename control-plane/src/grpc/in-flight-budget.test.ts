import { describe, expect, it, vi } from 'vitest';
import { createInFlightBudget, MAX_HOLD_MS } from './in-flight-budget';

describe('the results in flight across all ReportResults streams', () => {
  it('starts batches while they fit and the rest, in arrival order, as earlier ones are released', () => {
    const budget = createInFlightBudget({ results: 10, batches: 3 });
    const started: string[] = [];
    const take = (name: string, cost: number) => budget.acquire(cost, () => started.push(name));
    expect([take('a', 6), take('b', 4), take('c', 1), take('d', 1)]).toEqual([true, true, false, false]);
    expect(started).toEqual(['a', 'b']);
    expect(budget.state()).toEqual({ results: 10, batches: 2, waiting: 2 });
    budget.release(4);
    expect(started).toEqual(['a', 'b', 'c', 'd']);
    // three batches at once at most, whatever their size
    expect(take('e', 1)).toBe(false);
    budget.release(6);
    expect(started.at(-1)).toBe('e');
  });

  it('runs a batch larger than the whole budget alone rather than never', () => {
    const budget = createInFlightBudget({ results: 10, batches: 3 });
    const started: string[] = [];
    expect(budget.acquire(1, () => started.push('small'))).toBe(true);
    expect(budget.acquire(50, () => started.push('huge'))).toBe(false);
    expect(budget.acquire(1, () => started.push('after'))).toBe(false);
    budget.release(1);
    expect(started).toEqual(['small', 'huge']);
    budget.release(50);
    expect(started).toEqual(['small', 'huge', 'after']);
  });

  it('starts nothing while held (snapshots first after a restart), then what waited in arrival order', () => {
    vi.useFakeTimers();
    try {
      let holding = true;
      const budget = createInFlightBudget({ results: 10, batches: 3 }, { holdWhile: () => holding });
      const started: string[] = [];
      expect(budget.acquire(1, () => started.push('a'))).toBe(false);
      expect(budget.acquire(1, () => started.push('b'))).toBe(false);
      vi.advanceTimersByTime(1000);
      expect(started).toEqual([]);
      holding = false;
      vi.advanceTimersByTime(100);
      expect(started).toEqual(['a', 'b']);
      expect(budget.acquire(1, () => started.push('c'))).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });

  it('holds at most MAX_HOLD_MS however long the reason lasts', () => {
    vi.useFakeTimers();
    try {
      let t = 0;
      const budget = createInFlightBudget({ results: 10, batches: 3 }, { holdWhile: () => true, now: () => t });
      const started: string[] = [];
      budget.acquire(1, () => started.push('a'));
      t += MAX_HOLD_MS - 1;
      vi.advanceTimersByTime(100);
      expect(started).toEqual([]);
      t += 2;
      vi.advanceTimersByTime(100);
      expect(started).toEqual(['a']);
    } finally {
      vi.useRealTimers();
    }
  });
});
