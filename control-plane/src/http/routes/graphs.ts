// Graphs of one endpoint's checks over a time range (the request's workspace).
import { GraphQuery } from '@upfleet/proto/schemas';
import type { GraphService } from '../../services/graphs';
import { parseId, parseInput } from '../../services/validation';
import { authOf } from '../middleware/auth';
import { route, type RouteDecl } from '../route-table';

export function graphRoutes(graphs: GraphService): RouteDecl[] {
  return [
    route('get', '/graphs/endpoint/:id', 'viewer', async (req, res) => {
      const id = parseId(req.params.id, 'Endpoint not found');
      const query = parseInput(GraphQuery, req.query);
      res.json({ success: true, data: await graphs.forEndpoint(authOf(req).userId, id, query) });
    }),
  ];
}
