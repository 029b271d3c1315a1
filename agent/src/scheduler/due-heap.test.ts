import { describe, expect, it } from 'vitest';
import { createDueHeap } from './due-heap';

describe('due heap', () => {
  it('pops the earliest time first and equal times in the order they were pushed', () => {
    const h = createDueHeap();
    const times = [50, 10, 30, 10, 70, 30, 0, 10];
    times.forEach((at, i) => h.push({ at, id: `c${i}`, gen: 0 }));
    expect(h.peek()?.id).toBe('c6');
    const order: string[] = [];
    for (let d = h.pop(); d; d = h.pop()) order.push(`${d.at}:${d.id}`);
    expect(order).toEqual(['0:c6', '10:c1', '10:c3', '10:c7', '30:c2', '30:c5', '50:c0', '70:c4']);
    expect(h.size()).toBe(0);
  });

  it('retain drops the items it rejects and keeps the others in order', () => {
    const h = createDueHeap();
    for (let i = 0; i < 100; i++) h.push({ at: 1000 - (i % 10) * 100, id: `c${i}`, gen: i % 3 });
    h.retain((d) => d.gen !== 1);
    expect(h.size()).toBe(67);
    let prev = { at: -1, n: -1 };
    for (let d = h.pop(); d; d = h.pop()) {
      expect(d.gen).not.toBe(1);
      const n = Number(d.id.slice(1));
      expect(d.at > prev.at || (d.at === prev.at && n > prev.n)).toBe(true);
      prev = { at: d.at, n };
    }
  });
});
