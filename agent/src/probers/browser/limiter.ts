// A cap on browsers running at once: each is a few hundred MB, so the agent's memory sets how many
// run together (UPFLEET_BROWSER_CONCURRENCY); the others wait their turn inside their own timeout.

export interface Limiter {
  /** Runs `fn` when a slot is free; a run whose deadline passes while waiting never starts. */
  run<T>(fn: () => Promise<T>): Promise<T>;
  /** runs going on now, and waiting */
  active(): number;
  waiting(): number;
}

export function createLimiter(max: number): Limiter {
  let active = 0;
  const queue: Array<() => void> = [];
  const release = () => {
    active--;
    const next = queue.shift();
    if (next) next();
  };
  return {
    async run(fn) {
      if (active >= max) await new Promise<void>((resolve) => queue.push(resolve));
      active++;
      try {
        return await fn();
      } finally {
        release();
      }
    },
    active: () => active,
    waiting: () => queue.length,
  };
}
