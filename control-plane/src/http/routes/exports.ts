// Results export: an endpoint's raw results as a CSV or NDJSON download, streamed as the client reads.
import { pipeline } from 'node:stream/promises';
import { ResultsExportQuery } from '@upfleet/proto/schemas';
import { AppError } from '../../errors';
import type { Logger } from '../../logger';
import type { ResultsExport } from '../../services/results-export';
import { parseId, parseInput } from '../../services/validation';
import { authOf } from '../middleware/auth';
import { route, type RouteDecl } from '../route-table';

export function exportRoutes(deps: { resultsExport?: ResultsExport; logger?: Logger }): RouteDecl[] {
  const log = deps.logger?.child({ component: 'export' });
  return [
    route('get', '/users/endpoints/:id/results', 'viewer', async (req, res) => {
      const id = parseId(req.params.id, 'Endpoint not found');
      const q = parseInput(ResultsExportQuery, Object.fromEntries(Object.entries(req.query as Record<string, unknown>).filter(([, v]) => v !== '')));
      if (!deps.resultsExport) throw new AppError('unavailable', 'Results are not available');
      const out = await deps.resultsExport.open(authOf(req).userId, id, q);
      res.status(200).set({
        'Content-Type': out.contentType,
        'Content-Disposition': `attachment; filename="${out.filename}"`,
        // The range actually read (from is clamped to the plan's retention).
        'X-Export-From': new Date(out.fromMs).toISOString(),
        'X-Export-To': new Date(out.toMs).toISOString(),
      });
      try {
        await pipeline(out.body, res);
      } catch (err) {
        // Headers are gone: a cut-off transfer (no final chunk) is how the client learns it failed.
        if (!res.writableFinished) log?.warn({ endpoint: id, err: (err as Error).message }, 'results export ended early');
        res.destroy();
      }
    }),
  ];
}
