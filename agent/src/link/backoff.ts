// Reconnect delays: exponential from 2 s to 30 s with jitter so a region's agents do not all
// reconnect in the same second after a control-plane restart.
export interface Backoff {
  /** the next delay in ms; grows until reset() */
  next(): number;
  reset(): void;
}

export interface BackoffOptions {
  minMs?: number;
  maxMs?: number;
  factor?: number;
  /** width of the random spread around each delay, as a share of it, 0..1 */
  jitter?: number;
  random?: () => number;
}

export function createBackoff(opts: BackoffOptions = {}): Backoff {
  const min = opts.minMs ?? 2000;
  const max = opts.maxMs ?? 30_000;
  const factor = opts.factor ?? 2;
  const jitter = opts.jitter ?? 0.5;
  const random = opts.random ?? Math.random;
  let attempt = 0;
  return {
    next() {
      const base = Math.min(max, min * factor ** attempt);
      attempt++;
      // spread around the base, kept inside [min, max]
      const spread = base * jitter;
      return Math.round(Math.min(max, Math.max(min, base - spread / 2 + spread * random())));
    },
    reset() {
      attempt = 0;
    },
  };
}
