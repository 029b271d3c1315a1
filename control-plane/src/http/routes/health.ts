// Probes for load balancers and orchestrators, outside /api and without sign-in: /healthz says the
// process answers, /readyz whether it may take traffic (database, ClickHouse, migrations). Never
// cached: a stale "ok" from a proxy would keep traffic on a process that is gone.
import type { Router } from 'express';
import type { Readiness } from '../../cluster/readiness';
import { mount, route, strictRouter } from '../route-table';

export function healthRoutes(readiness: Readiness): Router {
  return mount(strictRouter(), [
    route('get', '/healthz', 'public', (_req, res) => {
      res.setHeader('Cache-Control', 'no-store');
      res.json({ status: 'ok' });
    }),
    route('get', '/readyz', 'public', async (_req, res) => {
      const { ready, parts } = await readiness.check();
      res.setHeader('Cache-Control', 'no-store');
      const failed = Object.keys(parts).filter((k) => parts[k] !== 'ok');
      res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not ready', checks: parts, ...(ready ? {} : { failed }) });
    }),
  ]);
}
