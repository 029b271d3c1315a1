// Zoom/pan refetch rule (SPEC sections 4 and 9): after the visible range moves by more than
// 60000 ms from the range last fetched, refetch it 2000 ms later; further moves restart the wait.
export interface TimeRange { from: number; to: number }

const GRAPH_LIMITS = { refetchDelayMs: 2000, minShiftMs: 60_000, wheelSpeed: 0.1 } as const;

export const PRESETS: ReadonlyArray<{ hours: number; label: string }> = [
  { hours: 1, label: '1 h' },
  { hours: 12, label: '12 h' },
  { hours: 24, label: '24 h' },
  { hours: 48, label: '48 h' },
  { hours: 168, label: '1 Week' },
  { hours: 2160, label: '3 Months' },
  { hours: 4320, label: '6 Months' },
];

interface RangeRefetcher {
  /** The range the shown data was fetched for. */
  setFetched(range: TimeRange | null): void;
  /** The user zoomed or panned to `range`. */
  changed(range: TimeRange): void;
  cancel(): void;
}

export function createRangeRefetcher(refetch: (range: TimeRange) => void, limits = GRAPH_LIMITS): RangeRefetcher {
  let fetched: TimeRange | null = null;
  let timer: ReturnType<typeof setTimeout> | null = null;
  const cancel = () => {
    if (timer) clearTimeout(timer);
    timer = null;
  };
  return {
    setFetched(range) {
      fetched = range;
    },
    changed(range) {
      if (fetched && Math.abs(range.from - fetched.from) <= limits.minShiftMs && Math.abs(range.to - fetched.to) <= limits.minShiftMs) {
        cancel();
        return;
      }
      cancel();
      timer = setTimeout(() => {
        timer = null;
        fetched = range;
        refetch(range);
      }, limits.refetchDelayMs);
    },
    cancel,
  };
}

/** Mouse-wheel zoom around the centre of the range, 10% per notch; deltaY > 0 zooms out. */
export function wheelZoom(range: TimeRange, deltaY: number, speed: number = GRAPH_LIMITS.wheelSpeed): TimeRange {
  const span = range.to - range.from;
  const factor = deltaY > 0 ? 1 + speed : 1 - speed;
  const mid = range.from + span / 2;
  const half = Math.max(30_000, (span * factor) / 2);
  return { from: Math.round(mid - half), to: Math.round(mid + half) };
}

/**
 * The zoom buttons' step: zoom by `factor` around where the data is (the middle of the points
 * inside the range), not the middle of the range, so a new endpoint's few minutes at the end of a
 * day's graph stay in view. Without points inside the range, around its middle.
 */
export function zoomAtData(range: TimeRange, times: number[], factor: number): TimeRange {
  const inside = times.filter((t) => t >= range.from && t <= range.to);
  const span = range.to - range.from;
  const half = Math.max(30_000, (span * factor) / 2);
  const mid = inside.length > 0 ? (Math.min(...inside) + Math.max(...inside)) / 2 : range.from + span / 2;
  // Keep the new range inside the old one when zooming in (its data is there), centred otherwise.
  let from = mid - half;
  let to = mid + half;
  if (factor < 1) {
    if (from < range.from) [from, to] = [range.from, range.from + 2 * half];
    if (to > range.to) [from, to] = [range.to - 2 * half, range.to];
  }
  return { from: Math.round(from), to: Math.round(to) };
}
