// Browser check: a real Chromium loads the URL and runs the steps (data, never code). Runs only
// where the agent has a Chromium (ProberOptions.browser); each run waits for a browser slot.
import type { Prober } from '../prober';
import { runBrowserCheck } from './run-browser';

export const browserProber: Prober = {
  kind: 'CHECK_KIND_BROWSER',
  failurePhase: 'step',
  async probe(a, opts) {
    const b = opts.browser;
    if (!b?.support.ok) return { ok: false, phase: 'step', error: `this agent cannot run browser checks: ${b?.support.reason || 'no Chromium configured'}` };
    const queuedAt = Date.now();
    return b.limiter.run(async () => {
      // Time spent waiting for a slot counts against the check's timeout.
      const timeoutMs = Math.max(1000, a.timeout_ms - (Date.now() - queuedAt));
      return runBrowserCheck({
        url: a.url, steps: a.steps ?? [], timeoutMs, chromiumPath: b.chromiumPath, resolver: opts.resolver,
        allowPrivateTargets: opts.allowPrivateTargets, userAgent: b.userAgent,
      });
    });
  },
};

export { runBrowserCheck, type BrowserRunOptions } from './run-browser';
export { createLimiter, type Limiter } from './limiter';
export { browserSupport, type BrowserSupport } from './support';
