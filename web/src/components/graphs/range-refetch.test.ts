import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createRangeRefetcher, wheelZoom, PRESETS, type TimeRange } from './range-refetch';

const H = 3600_000;
beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

function make() {
  const fetched: TimeRange[] = [];
  const r = createRangeRefetcher((range) => fetched.push(range));
  r.setFetched({ from: 0, to: H });
  return { r, fetched };
}

describe('zoom/pan refetch', () => {
  it('refetches 2000 ms after a move of more than 60000 ms', () => {
    const { r, fetched } = make();
    r.changed({ from: 60_001, to: H });
    vi.advanceTimersByTime(1999);
    expect(fetched).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(fetched).toEqual([{ from: 60_001, to: H }]);
  });

  it('does not refetch when the range moved by 60000 ms or less', () => {
    const { r, fetched } = make();
    r.changed({ from: 60_000, to: H - 60_000 });
    vi.advanceTimersByTime(5000);
    expect(fetched).toEqual([]);
  });

  it('restarts the wait on every further move and fetches only the last range', () => {
    const { r, fetched } = make();
    r.changed({ from: 10 * 60_000, to: H });
    vi.advanceTimersByTime(1500);
    r.changed({ from: 20 * 60_000, to: H });
    vi.advanceTimersByTime(1500);
    expect(fetched).toEqual([]);
    vi.advanceTimersByTime(500);
    expect(fetched).toEqual([{ from: 20 * 60_000, to: H }]);
  });

  it('cancel (choosing a preset) drops a pending refetch', () => {
    const { r, fetched } = make();
    r.changed({ from: 10 * 60_000, to: H });
    r.cancel();
    vi.advanceTimersByTime(5000);
    expect(fetched).toEqual([]);
  });

  it('compares later moves with the range last fetched', () => {
    const { r, fetched } = make();
    r.changed({ from: 10 * 60_000, to: H });
    vi.advanceTimersByTime(2000);
    r.changed({ from: 10 * 60_000 + 30_000, to: H });
    vi.advanceTimersByTime(2000);
    expect(fetched).toHaveLength(1);
  });
});

describe('wheel zoom', () => {
  it('zooms by 10% per notch around the middle, on the time axis only', () => {
    expect(wheelZoom({ from: 0, to: 1000_000 }, -100)).toEqual({ from: 50_000, to: 950_000 });
    expect(wheelZoom({ from: 0, to: 1000_000 }, 100)).toEqual({ from: -50_000, to: 1050_000 });
  });
});

it('offers the SPEC presets in hours', () => {
  expect(PRESETS.map((p) => [p.hours, p.label])).toEqual([
    [1, '1 h'], [12, '12 h'], [24, '24 h'], [48, '48 h'], [168, '1 Week'], [2160, '3 Months'], [4320, '6 Months'],
  ]);
});
