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
