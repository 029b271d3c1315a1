// The graph cache on its own: bounded, dropped by ingest only where a result lands, and never
// keeping an answer read while an ingest finished (the store suite checks it on chDB and a server).
import { describe, expect, it } from 'vitest';
import type { GraphSeries } from '@upfleet/proto/rest';
import { GraphCache } from './graph-cache';
import type { GraphPlan } from './graph-plan';

const HOUR = 3_600_000;
const plan: GraphPlan = { source: '1m', stepMs: 180_000 };
const range = (fromMs: number, toMs: number) => ({ fromMs, toMs, functions: ['response_time' as const] });
const answer = (v: number): GraphSeries[] => [{ itemId: `1:response_time:EU-Germany`, function: 'response_time', location: 'EU-Germany', data: [[0, v]] }];

describe('GraphCache', () => {
  it('answers a repeated read from the cache, frozen so no reader can change what the others get', async () => {
    const c = new GraphCache();
    let loads = 0;
    const load = async () => answer(++loads);
    const first = await c.read(1, range(0, HOUR), plan, load);
    expect(() => first[0].data.push([1, 99])).toThrow(TypeError);
    expect(() => (first[0].data[0][1] = 5)).toThrow(TypeError);
    expect(await c.read(1, range(0, HOUR), plan, load)).toEqual(answer(1));
    expect(loads).toBe(1);
    // another range, endpoint, function list or plan is another answer
    await c.read(2, range(0, HOUR), plan, load);
    await c.read(1, range(0, HOUR + 1), plan, load);
    await c.read(1, { ...range(0, HOUR), functions: ['ping'] }, plan, load);
    await c.read(1, range(0, HOUR), { source: 'raw', stepMs: 10_000 }, load);
    expect(loads).toBe(5);
  });

  it('holds at most maxEntries answers, the least recently read going first', async () => {
    const c = new GraphCache({ maxEntries: 3 });
    let loads = 0;
    const load = async () => answer(++loads);
    for (let i = 0; i < 3; i++) await c.read(1, range(i, HOUR), plan, load);
    await c.read(1, range(0, HOUR), plan, load); // read again: now the most recent
    await c.read(1, range(10, HOUR), plan, load); // a fourth: range(1) goes
    expect(c.size).toBe(3);
    expect(loads).toBe(4);
    await c.read(1, range(0, HOUR), plan, load);
    expect(loads).toBe(4);
    await c.read(1, range(1, HOUR), plan, load);
    expect(loads).toBe(5);
  });

  it('drops on ingest only the answers whose range a result falls in', async () => {
    const c = new GraphCache();
    let loads = 0;
    const load = async () => answer(++loads);
    const closed = range(0, HOUR);
    const open = range(HOUR, 3 * HOUR);
    await c.read(1, closed, plan, load);
    await c.read(1, open, plan, load);
    await c.read(2, open, plan, load);
    c.invalidateResults([{ endpoint_id: 1, ts_ms: 3 * HOUR - 1000 }]);
    await c.read(1, closed, plan, load);
    await c.read(2, open, plan, load);
    expect(loads).toBe(3);
    expect(await c.read(1, open, plan, load)).toEqual(answer(4));
    // a late result (an outbox replayed) reaches the closed range too
    c.invalidateResults([{ endpoint_id: 1, ts_ms: HOUR / 2 }]);
    expect(await c.read(1, closed, plan, load)).toEqual(answer(5));
  });

  it('does not keep an answer whose read began before an ingest of its endpoint finished', async () => {
    const c = new GraphCache();
    let release!: () => void;
    const slow = () => new Promise<GraphSeries[]>((r) => (release = () => r(answer(1))));
    const pending = c.read(1, range(0, HOUR), plan, slow);
    c.invalidateResults([{ endpoint_id: 1, ts_ms: HOUR / 2 }]);
    release();
    expect(await pending).toEqual(answer(1));
    expect(c.size).toBe(0);
    expect(await c.read(1, range(0, HOUR), plan, async () => answer(2))).toEqual(answer(2));
    expect(c.size).toBe(1);
  });

  it('reads an answer again after maxAgeMs whatever happened', async () => {
    let now = 0;
    const c = new GraphCache({ maxAgeMs: 1000, now: () => now });
    let loads = 0;
    const load = async () => answer(++loads);
    await c.read(1, range(0, HOUR), plan, load);
    now = 1000;
    await c.read(1, range(0, HOUR), plan, load);
    now = 2001;
    await c.read(1, range(0, HOUR), plan, load);
    expect(loads).toBe(2);
  });
});
