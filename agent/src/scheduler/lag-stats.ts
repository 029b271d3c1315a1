// Scheduling lag (actual minus planned start) over the last LAG_WINDOW runs: p50/p99 for the
// heartbeat, plus the all-time count, sum and max.
export const LAG_WINDOW = 2048;

export interface LagSummary { count: number; sumMs: number; p50Ms: number; p99Ms: number; maxMs: number }

export interface LagStats {
  record(lagMs: number): void;
  summary(): LagSummary;
}

export function createLagStats(): LagStats {
  const window = new Float64Array(LAG_WINDOW);
  let count = 0;
  let sum = 0;
  let max = 0;
  return {
    record(lag) {
      window[count % LAG_WINDOW] = lag;
      count++;
      sum += lag;
      if (lag > max) max = lag;
    },
    summary() {
      const n = Math.min(count, LAG_WINDOW);
      const recent = Array.from(window.subarray(0, n)).sort((x, y) => x - y);
      const q = (p: number): number => (n ? recent[Math.min(n - 1, Math.floor(p * n))] : 0);
      return { count, sumMs: sum, p50Ms: q(0.5), p99Ms: q(0.99), maxMs: max };
    },
  };
}
