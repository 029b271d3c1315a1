// The results store: the configured one (chDB or CLICKHOUSE_URL), one given by a test, or none
// (graphs answer 503 and agents are not served).
import { createResultStore, type ResultStore } from '../results/clickhouse-store';
import type { Foundation } from './foundation';
import type { Feature } from './lifecycle';

export function createResultsFeature(base: Foundation, given: ResultStore | null | undefined) {
  // A store given by the caller is the caller's to close.
  const owned = given === undefined;
  const results: ResultStore | null = owned ? createResultStore({ clickhouseUrl: base.config.clickhouseUrl, dataDir: base.config.dataDir, logger: base.logger }) : given;
  return {
    name: 'results',
    services: { results },
    start: async () => {
      if (owned) await results?.init();
    },
    stop: async () => {
      if (owned) await results?.close();
    },
  } satisfies Feature<unknown>;
}
