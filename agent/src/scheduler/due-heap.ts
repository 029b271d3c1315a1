// A binary min-heap of due times: earlier first, equal times in the order they were pushed.
/** `once`: an extra run (a fast re-check) that does not plan the next periodic one. */
export interface Due { at: number; id: string; gen: number; once?: boolean }

export interface DueHeap {
  push(d: Due): void;
  pop(): Due | undefined;
  peek(): Due | undefined;
  size(): number;
  /** keeps only the items `keep` accepts (drops stale ones in one pass) */
  retain(keep: (d: Due) => boolean): void;
}

interface Item extends Due { seq: number }

export function createDueHeap(): DueHeap {
  const heap: Item[] = [];
  let seq = 0;
  const before = (x: Item, y: Item): boolean => x.at < y.at || (x.at === y.at && x.seq < y.seq);

  function up(i: number): void {
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!before(heap[i], heap[p])) break;
      [heap[p], heap[i]] = [heap[i], heap[p]];
      i = p;
    }
  }

  function down(i: number): void {
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < heap.length && before(heap[l], heap[m])) m = l;
      if (r < heap.length && before(heap[r], heap[m])) m = r;
      if (m === i) return;
      [heap[m], heap[i]] = [heap[i], heap[m]];
      i = m;
    }
  }

  return {
    push(d) {
      heap.push({ at: d.at, id: d.id, gen: d.gen, seq: seq++ });
      up(heap.length - 1);
    },
    pop() {
      const top = heap[0];
      const last = heap.pop();
      if (heap.length && last) {
        heap[0] = last;
        down(0);
      }
      return top;
    },
    peek: () => heap[0],
    size: () => heap.length,
    retain(keep) {
      const live = heap.filter(keep);
      heap.length = 0;
      // re-pushed in heap order keeps equal-time items in their original order (seq is kept)
      for (const d of live) {
        heap.push(d);
        up(heap.length - 1);
      }
    },
  };
}
