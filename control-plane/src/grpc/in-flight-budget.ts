// How much result ingest runs at once across every agent's ReportResults stream. Each stream
// already bounds its own batches (MAX_BATCHES_IN_FLIGHT_PER_STREAM), but after a control-plane
// restart every agent sends its buffered backlog at the same moment: 30 streams x 8 batches of
// admission, inserts and alert evaluation at once swamped the event loop and the heap. Beyond the
// budget a batch waits (its stream is paused, so the agent keeps the rest in its outbox) and runs,
// first come first served, when earlier batches are released.

export interface InFlightLimits {
  /** Results being admitted, stored or evaluated at once, across all streams. */
  results: number;
  /** Batches being admitted, stored or evaluated at once, across all streams. */
  batches: number;
}

/**
 * Room for 32 full batches of 2,000 (the agent's batch size), so a backlog keeps every one of the
 * ClickHouse client's 16 connections busy (at 20,000 results only 10 were: the drain was slower);
 * tight enough to keep a storm's heap bounded (~64 MB of decoded results).
 */
export const DEFAULT_IN_FLIGHT_LIMITS: InFlightLimits = { results: 64_000, batches: 32 };

/** Longest a hold (see `holdWhile`) keeps batches waiting, however long its reason lasts. */
export const MAX_HOLD_MS = 30_000;
/** How often held batches look again whether the hold is over. */
const HOLD_RECHECK_MS = 50;

export function createInFlightBudget(limits: InFlightLimits = DEFAULT_IN_FLIGHT_LIMITS, opts: {
  /**
   * While true, no batch starts (those running finish): after a restart the agents' snapshots go
   * first, and their backlogs (kept in their outboxes meanwhile) after. At most MAX_HOLD_MS in a row.
   */
  holdWhile?: () => boolean;
  now?: () => number;
} = {}) {
  const now = opts.now ?? Date.now;
  let results = 0;
  let batches = 0;
  const waiting: Array<{ cost: number; start: () => void }> = [];
  let heldSince: number | null = null;
  let recheck: NodeJS.Timeout | null = null;
  const held = (): boolean => {
    if (!opts.holdWhile?.()) {
      heldSince = null;
      return false;
    }
    heldSince ??= now();
    return now() - heldSince < MAX_HOLD_MS;
  };
  // A batch larger than the whole budget still runs, alone.
  const fits = (cost: number) => batches === 0 || (results + cost <= limits.results && batches < limits.batches);
  const grant = (cost: number, start: () => void) => {
    results += cost;
    batches++;
    start();
  };
  const drain = (): void => {
    if (waiting.length === 0) return;
    if (held()) {
      recheck ??= setTimeout(() => {
        recheck = null;
        drain();
      }, HOLD_RECHECK_MS);
      return;
    }
    while (waiting.length > 0 && fits(waiting[0].cost)) {
      const next = waiting.shift()!;
      grant(next.cost, next.start);
    }
  };
  return {
    /** Runs `start` now if `cost` results fit and nobody waits (true), else queues it (false). */
    acquire(cost: number, start: () => void): boolean {
      if (waiting.length === 0 && !held() && fits(cost)) {
        grant(cost, start);
        return true;
      }
      waiting.push({ cost, start });
      drain();
      return false;
    },
    /** A batch acquired with `cost` is done: waiting batches start in arrival order while they fit. */
    release(cost: number): void {
      results -= cost;
      batches--;
      drain();
    },
    /** What runs and what waits now (metrics, tests). */
    state: () => ({ results, batches, waiting: waiting.length }),
  };
}
export type InFlightBudget = ReturnType<typeof createInFlightBudget>;
