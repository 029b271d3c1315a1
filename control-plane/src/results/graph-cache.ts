// Graph answers kept for repeated reads of the same range. Every ClickHouse query costs a fixed
// 8-9 ms (chDB), most of a graph's time; a closed bucket never changes, so an answer stays good
// until a result lands in its range, which the store's ingest says (invalidate). Results arrive
// dated about now, so only answers reaching the open bucket are dropped; a late result (an agent's
// outbox replayed after an outage) drops the older ranges it falls in as well.
import type { GraphSeries } from '@upfleet/proto/rest';
import type { GraphPlan } from './graph-plan';
import type { GraphRange } from './queries';

interface Entry {
  endpointId: number;
  /** results dated in [lowMs, highMs] may change the answer */
  lowMs: number;
  highMs: number;
  storedAt: number;
  series: GraphSeries[];
}

export interface GraphCacheOptions {
  /** answers kept at most (least recently used go first) */
  maxEntries?: number;
  /** an answer is read again after this long whatever happened (rows that retention removed) */
  maxAgeMs?: number;
  now?: () => number;
}

export class GraphCache {
  private readonly entries = new Map<string, Entry>();
  /** keys per endpoint, for invalidation */
  private readonly byEndpoint = new Map<number, Set<string>>();
  /** per endpoint: bumped by an invalidation while its reads run, so a read that began before an
   *  ingest finished does not keep an answer without those results */
  private readonly epochs = new Map<number, number>();
  private readonly reading = new Map<number, number>();
  private readonly maxEntries: number;
  private readonly maxAgeMs: number;
  private readonly now: () => number;
  hits = 0;
  misses = 0;

  constructor(opts: GraphCacheOptions = {}) {
    this.maxEntries = opts.maxEntries ?? 1000;
    this.maxAgeMs = opts.maxAgeMs ?? 10 * 60_000;
    this.now = opts.now ?? Date.now;
  }

  get size(): number {
    return this.entries.size;
  }

  /** The answer for this read, from the cache or from `load` (kept unless an ingest ran meanwhile). */
  async read(endpointId: number, q: GraphRange, plan: GraphPlan, load: () => Promise<GraphSeries[]>): Promise<GraphSeries[]> {
    const key = [
      endpointId, plan.source, plan.stepMs, Math.trunc(q.fromMs), Math.trunc(q.toMs), Math.trunc(q.notBeforeMs ?? 0),
      q.functions.join(','), q.regions ? `[${q.regions.join(',')}]` : '*',
    ].join('|');
    const hit = this.entries.get(key);
    if (hit && this.now() - hit.storedAt <= this.maxAgeMs) {
      // most recently used last
      this.entries.delete(key);
      this.entries.set(key, hit);
      this.hits++;
      return hit.series;
    }
    if (hit) this.remove(key);
    this.misses++;
    const epoch = this.epochs.get(endpointId) ?? 0;
    this.reading.set(endpointId, (this.reading.get(endpointId) ?? 0) + 1);
    try {
      // Shared by every reader of the range, so frozen: a caller that changed one would fail loudly
      // (strict mode) instead of changing what the others see. Cheaper than a copy per read.
      const series = deepFreeze(await load());
      if ((this.epochs.get(endpointId) ?? 0) === epoch) {
        // A rollup read takes whole buckets from the one holding fromMs up to the one holding toMs:
        // a step either side covers them.
        this.store(key, { endpointId, lowMs: q.fromMs - plan.stepMs, highMs: q.toMs + plan.stepMs, storedAt: this.now(), series });
      }
      return series;
    } finally {
      const left = (this.reading.get(endpointId) ?? 1) - 1;
      if (left > 0) this.reading.set(endpointId, left);
      else {
        this.reading.delete(endpointId);
        if (!this.byEndpoint.has(endpointId)) this.epochs.delete(endpointId);
      }
    }
  }

  /** Results of `endpointId` dated between minMs and maxMs were stored: answers whose range holds one go. */
  invalidate(endpointId: number, minMs: number, maxMs: number): void {
    if (this.reading.has(endpointId)) this.epochs.set(endpointId, (this.epochs.get(endpointId) ?? 0) + 1);
    const keys = this.byEndpoint.get(endpointId);
    if (!keys) return;
    for (const key of [...keys]) {
      const e = this.entries.get(key)!;
      if (e.lowMs <= maxMs && minMs <= e.highMs) this.remove(key);
    }
  }

  /** Drops the answers touched by a batch of results (endpoint_id, ts_ms). */
  invalidateResults(results: ReadonlyArray<{ endpoint_id: number; ts_ms: number }>): void {
    if (this.entries.size === 0 && this.reading.size === 0) return;
    const spans = new Map<number, [number, number]>();
    for (const r of results) {
      const id = Number(r.endpoint_id);
      const ts = Number(r.ts_ms);
      const s = spans.get(id);
      if (!s) spans.set(id, [ts, ts]);
      else {
        if (ts < s[0]) s[0] = ts;
        if (ts > s[1]) s[1] = ts;
      }
    }
    for (const [id, [min, max]] of spans) this.invalidate(id, min, max);
  }

  /** Everything goes (rows written some other way than ingest). */
  clear(): void {
    this.entries.clear();
    this.byEndpoint.clear();
    for (const id of this.reading.keys()) this.epochs.set(id, (this.epochs.get(id) ?? 0) + 1);
  }

  private store(key: string, e: Entry): void {
    this.entries.set(key, e);
    let keys = this.byEndpoint.get(e.endpointId);
    if (!keys) this.byEndpoint.set(e.endpointId, (keys = new Set()));
    keys.add(key);
    while (this.entries.size > this.maxEntries) this.remove(this.entries.keys().next().value!);
  }

  private remove(key: string): void {
    const e = this.entries.get(key);
    if (!e) return;
    this.entries.delete(key);
    const keys = this.byEndpoint.get(e.endpointId)!;
    keys.delete(key);
    if (keys.size === 0) {
      this.byEndpoint.delete(e.endpointId);
      if (!this.reading.has(e.endpointId)) this.epochs.delete(e.endpointId);
    }
  }
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
