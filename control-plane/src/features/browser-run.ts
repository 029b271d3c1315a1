// "Run now" of browser checks: the endpoint form's unsaved check runs once on a connected agent
// (the agents feature's RunNow dispatcher) and its result is answered, never stored.
import { createBrowserRunService } from '../services/browser-run';
import { browserRunRoutes } from '../http/routes/browser-run';
import type { RunNowDispatcher } from '../services/run-now';
import type { Foundation } from './foundation';
import type { Feature } from './lifecycle';

export function createBrowserRunFeature(base: Foundation, deps: { runNow: RunNowDispatcher }) {
  const browserRun = createBrowserRunService({
    endpoints: base.endpointsRepo, catalog: base.catalog, dispatcher: deps.runNow, allowPrivateTargets: base.config.allowPrivateTargets, planOf: base.planOf,
  });
  return {
    name: 'browser-run',
    services: { browserRun },
    routes: () => ({ workspace: browserRunRoutes({ browserRun, limiter: base.limiter }) }),
  } satisfies Feature<unknown>;
}
