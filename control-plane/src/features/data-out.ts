// Data out of Upfleet: results export (CSV / NDJSON files).
import type { ResultStore } from '../results/clickhouse-store';
import type { EndpointService } from '../services/endpoints';
import { createResultsExport } from '../services/results-export';
import type { Foundation } from './foundation';
import type { Feature } from './lifecycle';

export function createDataOutFeature(base: Foundation, deps: { results: ResultStore | null; endpoints: EndpointService }) {
  const resultsExport = createResultsExport({ endpoints: deps.endpoints, source: deps.results, now: base.now });
  return {
    name: 'data-out',
    services: { resultsExport },
  } satisfies Feature<unknown>;
}
