// "Run now" of a browser check from the endpoint form (editors and above; counted per workspace).
import { BrowserRunBody } from '@upfleet/proto/schemas';
import type { BrowserRunService } from '../../services/browser-run';
import type { RateLimiter } from '../../services/rate-limiter';
import { parseInput } from '../../services/validation';
import { authOf } from '../middleware/auth';
import { limitPerUser } from '../middleware/rate-limit';
import { route, type RouteDecl } from '../route-table';

export function browserRunRoutes(deps: { browserRun: BrowserRunService; limiter: RateLimiter }): RouteDecl[] {
  return [
    route('post', '/users/endpoints/browser-run', { role: 'editor', action: 'endpoint.browser_run' }, limitPerUser(deps.limiter, 'browser_run'), async (req, res) => {
      const body = parseInput(BrowserRunBody, req.body);
      res.json({ success: true, data: await deps.browserRun.run(authOf(req).userId, body) });
    }),
  ];
}
