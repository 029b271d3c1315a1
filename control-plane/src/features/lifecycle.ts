// What every feature of the control plane returns: its services, its HTTP routes, and how it starts
// and stops (its own timers and workers). The composition root (server.ts) starts features in order
// and stops them in reverse, so a feature may rely on everything built before it while it runs.
import type { FeatureRoutes } from '../http/app';
import type { SignIn } from '../http/middleware/auth';

export interface Lifecycle {
  start?(): void | Promise<void>;
  stop?(): void | Promise<void>;
}

export interface Feature<S> extends Lifecycle {
  /** For logs when a start or a stop fails. */
  name: string;
  services: S;
  /** Its routes, built with the sign-in gates (which the accounts and workspaces features make). */
  routes?(signIn: SignIn): FeatureRoutes;
}

/** A timer as a lifecycle: `fn` runs every `ms` once started (the process may exit meanwhile). */
export function every(ms: number, fn: () => void): { start(): void; stop(): void } {
  let timer: NodeJS.Timeout | null = null;
  return {
    start() {
      timer = setInterval(fn, ms);
      timer.unref();
    },
    stop() {
      if (timer) clearInterval(timer);
      timer = null;
    },
  };
}

/** Whether this process holds the leader lease, and news when that changes (cluster/leader-lease.ts). */
export interface LeaderSignal {
  isLeader(): boolean;
  /** `fn(true)` when the lease is gained, `fn(false)` when lost; answers the unsubscribe. */
  onChange(fn: (leader: boolean) => void): () => void;
}

/**
 * Work that must happen once in a cluster (deadlines, outboxes, retention): started while this
 * process holds the leader lease, stopped when it loses it, started again when it gains it back.
 * On SQLite the process holds the lease from the foundation's start on, so this is plain start/stop.
 */
export function whileLeader(leader: LeaderSignal, work: Lifecycle): Required<Lifecycle> {
  let running = false;
  let unsubscribe: (() => void) | null = null;
  // Starts and stops happen in the order the lease changed, each after the one before.
  let chain: Promise<void> = Promise.resolve();
  const set = (on: boolean) => {
    chain = chain.then(async () => {
      if (on === running) return;
      running = on;
      await (on ? work.start?.() : work.stop?.());
    });
    return chain;
  };
  return {
    async start() {
      unsubscribe = leader.onChange((on) => void set(on).catch(() => undefined));
      if (leader.isLeader()) await set(true);
    },
    async stop() {
      unsubscribe?.();
      unsubscribe = null;
      await chain.catch(() => undefined);
      await set(false);
    },
  };
}

/**
 * Starts features in order; when one fails to start, stops those already started (in reverse) and
 * rethrows. Answers the stop of them all, in reverse order.
 */
export async function startInOrder(features: ReadonlyArray<Feature<unknown>>): Promise<() => Promise<void>> {
  const started: Array<Feature<unknown>> = [];
  const stopAll = async () => {
    for (const f of started.reverse()) await f.stop?.();
  };
  try {
    for (const f of features) {
      await f.start?.();
      started.push(f);
    }
  } catch (err) {
    await stopAll().catch(() => undefined);
    throw err;
  }
  return stopAll;
}
