// Graph data for one endpoint, scoped by owner before the results store is asked.
import { endpointKindSpec } from '@upfleet/proto/check-kinds';
import { Summary, type Registry } from 'prom-client';
import type { BrowserGraphs, GraphFailure, GraphFunction, GraphSeries, GraphsResponse } from '@upfleet/proto/rest';
import type { GraphQuery } from '@upfleet/proto/schemas';
import { AppError, badRequest } from '../errors';
import { GRAPH_MAX_RANGE_MS } from '../checks';
import { planGraphQuery, type GraphPlan } from '../results/graph-plan';
import type { EndpointService } from './endpoints';

export interface GraphReader {
  graphs(endpointId: number, opts: { fromMs: number; toMs: number; functions: GraphFunction[]; regions?: string[]; plan?: GraphPlan; notBeforeMs?: number }): Promise<GraphSeries[]>;
  /** The latest failed checks with their reasons (absent: the answer has no failures list). */
  failures?(endpointId: number, opts: { fromMs: number; toMs: number; notBeforeMs?: number }): Promise<GraphFailure[]>;
  /** A browser endpoint's page timings and latest failing run (absent: the answer has no `browser`). */
  browserGraphs?(endpointId: number, opts: { fromMs: number; toMs: number; notBeforeMs?: number; stepMs: number }): Promise<BrowserGraphs>;
}

export function createGraphService(deps: {
  endpoints: EndpointService;
  source: GraphReader | null;
  now?: () => number;
  /** The endpoint's uptime over a range by the badge's rule (maintenance left out); absent: the answer has none. */
  uptime?: (endpointId: number, fromMs: number, toMs: number) => Promise<number | null>;
  /** The service registers its own metrics here (time the results store takes to answer). */
  metrics?: Registry;
}) {
  const now = deps.now ?? Date.now;
  const querySeconds = new Summary({
    name: 'upfleet_graph_query_duration_seconds',
    help: 'Graph query time in the results store',
    percentiles: [],
    registers: deps.metrics ? [deps.metrics] : [],
  });
  return {
    async forEndpoint(userId: number, endpointId: number, query: GraphQuery): Promise<GraphsResponse> {
      const endpoint = deps.endpoints.get(userId, endpointId);
      // The schema (GraphQuery) has checked the values: an explicit range, or `hours` back from now.
      const toMs = query.timeTo ?? now();
      const fromMs = query.timeFrom ?? toMs - (query.hours ?? 1) * 3600_000;
      if (toMs - fromMs > GRAPH_MAX_RANGE_MS) throw badRequest('The time range can be at most 400 days');
      // The endpoint kind's graphs, each HTTP one only with its feature on (a tcp or dns endpoint
      // plots its connect or lookup time, a heartbeat its job's run time, as response time).
      const functions: GraphFunction[] = endpointKindSpec(endpoint.kind ?? 'http').graphs
        .filter((g) => !g.feature || endpoint[g.feature])
        .map((g) => g.fn);
      // The store reads with this plan (source and step), so bucketSeconds is the step its points have.
      const plan = planGraphQuery(Math.floor(fromMs), Math.ceil(toMs), now());
      const bucketSeconds = plan.stepMs / 1000;
      if (functions.length === 0) return { graphs: [], from: fromMs, to: toMs, bucketSeconds };
      if (!deps.source) throw new AppError('unavailable', 'Failed to fetch graph data');
      let graphs: GraphSeries[];
      let failures: GraphFailure[] | undefined;
      let uptime: number | null | undefined;
      let browser: BrowserGraphs | undefined;
      const timed = querySeconds.startTimer();
      try {
        // Nothing from before the endpoint existed is shown, whatever the range asked.
        const notBeforeMs = Date.parse(endpoint.created_at);
        const range = { fromMs: Math.floor(fromMs), toMs: Math.ceil(toMs), notBeforeMs: Number.isFinite(notBeforeMs) ? notBeforeMs : 0 };
        [graphs, failures, uptime, browser] = await Promise.all([
          deps.source.graphs(endpointId, { ...range, functions, plan }),
          deps.source.failures?.(endpointId, range),
          deps.uptime?.(endpointId, range.fromMs, range.toMs),
          endpoint.kind === 'browser' ? deps.source.browserGraphs?.(endpointId, { ...range, stepMs: plan.stepMs }) : undefined,
        ]);
      } catch {
        throw new AppError('unavailable', 'Failed to fetch graph data');
      } finally {
        timed();
      }
      return { graphs, from: fromMs, to: toMs, bucketSeconds, ...(failures ? { failures } : {}), ...(uptime !== undefined ? { uptime } : {}), ...(browser ? { browser } : {}) };
    },
  };
}
export type GraphService = ReturnType<typeof createGraphService>;
