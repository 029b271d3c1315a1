// Which table a graph reads and how wide its buckets are. The step comes from checks.ts (at most
// 500 points); a rollup can only serve whole minutes or hours, so the step is rounded up to them.
import { graphStepSeconds } from '../checks';
import { MINUTE_ROLLUP_MAX_DAYS } from './schema';

/** Where a graph reads from: raw rows, minute rollup or hour rollup. */
export type GraphSource = 'raw' | '1m' | '1h';

export interface GraphPlan {
  source: GraphSource;
  /** Bucket width; points closer than this are merged. Returned as the graph's bucketSeconds. */
  stepMs: number;
}

/**
 * Below a minute the raw table is read (sparse buckets come back as the raw points themselves);
 * up to the minute rollup's keep time the minute rollup; beyond, and whenever the step is whole
 * hours, the hour rollup.
 */
export function planGraphQuery(fromMs: number, toMs: number, nowMs: number, force?: GraphSource): GraphPlan {
  let stepS = graphStepSeconds(fromMs, toMs);
  let source: GraphSource;
  if (force) source = force;
  else if (stepS < 60) source = 'raw';
  else if (stepS % 3600 !== 0 && fromMs >= nowMs - (MINUTE_ROLLUP_MAX_DAYS - 1) * 86_400_000) source = '1m';
  else source = '1h';
  if (source === '1m') stepS = Math.ceil(stepS / 60) * 60;
  if (source === '1h') stepS = Math.ceil(stepS / 3600) * 3600;
  return { source, stepMs: stepS * 1000 };
}
