// The per-user event hub: who hears what, the 5-minute replay window with its resync, heartbeats,
// and a client too slow to read.
import { describe, expect, it } from 'vitest';
import { createEventHub, EVENT_REPLAY_MS, EVENT_STREAM_MAX_BUFFER, EVENT_STREAMS_PER_USER, type EventSink } from './events';

function sink(): EventSink & { text: string; ended: boolean; backlog: number } {
  return {
    text: '', ended: false, backlog: 0,
    write(chunk) {
      this.text += chunk;
      return true;
    },
    get writableLength() {
      return this.backlog;
    },
    end() {
      this.ended = true;
    },
  };
}
const ids = (s: { text: string }) => [...s.text.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));

describe('event hub', () => {
  it('writes each event to its owner\'s streams only, once, with an id, type and JSON data', () => {
    const hub = createEventHub();
    const a1 = sink();
    const a2 = sink();
    const b = sink();
    hub.subscribe(1, a1, null);
    hub.subscribe(1, a2, null);
    hub.subscribe(2, b, null);
    hub.publish(1, 'result', { url_id: 7, status: 'down' });
    hub.publish(2, 'endpoint.changed', { url_id: 9, deleted: true });
    expect(a1.text).toMatch(/^retry: 2000\n\nid: \d+\nevent: result\ndata: \{"url_id":7,"status":"down"\}\n\n$/);
    expect(a2.text).toBe(a1.text);
    expect(b.text).toMatch(/event: endpoint.changed\ndata: \{"url_id":9,"deleted":true\}\n\n$/);
    expect(b.text).not.toContain('url_id":7');
    expect(hub.streamsOf(1)).toBe(2);
    hub.close();
    expect([a1.ended, a2.ended, b.ended]).toEqual([true, true, true]);
  });

  it('ends the streams of one reader of a workspace (a removed member), or of every reader (a deleted workspace), and nothing else', () => {
    const hub = createEventHub();
    const removed = sink();
    const stays = sink();
    const elsewhere = sink();
    hub.subscribe(10, removed, null, 5);
    hub.subscribe(10, stays, null, 6);
    hub.subscribe(5, elsewhere, null, 5); // the removed member's own workspace
    expect(hub.endStreams(10, 5)).toBe(1);
    expect([removed.ended, stays.ended, elsewhere.ended]).toEqual([true, false, false]);
    hub.publish(10, 'result', { url_id: 1 });
    expect(removed.text).not.toContain('url_id');
    expect(stays.text).toContain('"url_id":1');
    expect(hub.streamsOf(10)).toBe(1);
    expect(hub.endStreams(10, null)).toBe(1);
    expect([stays.ended, elsewhere.ended]).toEqual([true, false]);
    hub.close();
  });

  it('replays what a stream missed after Last-Event-ID within 5 minutes, and says resync past that', () => {
    let t = 1_000_000;
    const hub = createEventHub({ now: () => t });
    const first = sink();
    const close = hub.subscribe(1, first, null);
    hub.publish(1, 'result', { n: 1 });
    hub.publish(2, 'result', { other: true });
    const [seen] = ids(first);
    close();
    hub.publish(1, 'result', { n: 2 });
    t += 60_000;
    hub.publish(1, 'incident.opened', { n: 3 });
    const back = sink();
    hub.subscribe(1, back, seen);
    expect(back.text).not.toContain('resync');
    expect(back.text).toContain('"n":2');
    expect(back.text).toContain('event: incident.opened');
    expect(back.text).not.toContain('"n":1');
    expect(back.text).not.toContain('other');

    t += EVENT_REPLAY_MS; // n:2 is now older than 5 minutes, n:3 exactly 5 minutes old
    const late = sink();
    hub.subscribe(1, late, seen);
    expect(late.text).toContain('event: resync');
    expect(late.text).not.toContain('"n":2');
    expect(late.text).toContain('"n":3');
    // An id from an earlier process (older than this hub's first) also resyncs.
    const restarted = sink();
    hub.subscribe(1, restarted, 5);
    expect(restarted.text).toContain('event: resync');
    hub.close();
  });

  it('sends a heartbeat comment on every stream, and ends a stream whose client stopped reading', async () => {
    const hub = createEventHub({ heartbeatMs: 20 });
    const quick = sink();
    const stuck = sink();
    hub.subscribe(1, quick, null);
    hub.subscribe(1, stuck, null);
    await new Promise((r) => setTimeout(r, 70));
    expect(quick.text).toContain(': heartbeat\n\n');
    stuck.backlog = EVENT_STREAM_MAX_BUFFER + 1;
    hub.publish(1, 'result', { n: 1 });
    expect(stuck.ended).toBe(true);
    expect(quick.ended).toBe(false);
    expect(hub.streamsOf(1)).toBe(1);
    hub.close();
  });

  it('counts streams per person over every workspace and closes the oldest past the cap; others keep theirs', () => {
    const hub = createEventHub();
    const person: ReturnType<typeof sink>[] = [];
    for (let i = 0; i < EVENT_STREAMS_PER_USER; i++) hub.subscribe(100 + (i % 4), (person[i] = sink()), null, 7);
    const other = sink();
    hub.subscribe(100, other, null, 8); // another member of a workspace the person fills
    expect(other.ended).toBe(false);
    const next = sink();
    hub.subscribe(103, next, null, 7);
    expect(person.map((s) => s.ended)).toEqual(person.map((_s, i) => i === 0));
    expect([next.ended, other.ended]).toEqual([false, false]);
    hub.publish(100, 'result', { url_id: 1 });
    expect(person[0].text).not.toContain('url_id');
    expect(person[4].text).toContain('"url_id":1');
    expect(hub.streamsOf(100) + hub.streamsOf(101) + hub.streamsOf(102) + hub.streamsOf(103)).toBe(EVENT_STREAMS_PER_USER + 1);
    hub.close();
  });

  it('counts an API key\'s streams apart from its maker\'s, and ends them all when the key is revoked', () => {
    const hub = createEventHub();
    const keyed = [sink(), sink()];
    const session = sink();
    hub.subscribe(1, keyed[0], null, 7, 55);
    hub.subscribe(2, keyed[1], null, 7, 55);
    hub.subscribe(1, session, null, 7);
    expect(hub.endKeyStreams(55)).toBe(2);
    expect([keyed[0].ended, keyed[1].ended, session.ended]).toEqual([true, true, false]);
    expect(hub.endKeyStreams(55)).toBe(0);
    expect(hub.streamsOf(1)).toBe(1);
    hub.close();
  });
});
