// The dashboard's live feed: GET /api/users/events read with fetch (the access token goes in the
// Authorization header, never in the URL), parsed as Server-Sent Events. When the stream drops it
// says "reconnecting", waits (1 s, doubling to 10 s) and reconnects with Last-Event-ID, so the
// events made meanwhile arrive (the server keeps 5 minutes; older gaps come as `resync`).
import type { ApiClient } from '../api/client';

export type StreamState = 'connecting' | 'live' | 'reconnecting';

export interface LiveEvent {
  type: string;
  data: unknown;
}

export function connectEvents(api: ApiClient, on: { event(e: LiveEvent): void; state(s: StreamState): void }): () => void {
  if (!api.stream) return () => undefined;
  const ctl = new AbortController();
  let lastId: string | null = null;
  let stopped = false;
  let wait = 1000;

  const readOnce = async () => {
    const res = await api.stream!('/api/users/events', lastId ? { 'Last-Event-ID': lastId } : {}, ctl.signal);
    if (res.status !== 200 || !res.body) throw new Error(`event stream answered ${res.status}`);
    on.state('live');
    wait = 1000;
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    let buf = '';
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      buf += decoder.decode(value, { stream: true });
      let cut: number;
      while ((cut = buf.indexOf('\n\n')) >= 0) {
        const block = buf.slice(0, cut);
        buf = buf.slice(cut + 2);
        let type = 'message';
        let data = '';
        for (const line of block.split('\n')) {
          if (line.startsWith('id: ')) lastId = line.slice(4);
          else if (line.startsWith('event: ')) type = line.slice(7);
          else if (line.startsWith('data: ')) data += line.slice(6);
        }
        if (!data) continue;
        try {
          on.event({ type, data: JSON.parse(data) as unknown });
        } catch {
          // one unreadable event: skip it
        }
      }
    }
  };

  void (async () => {
    on.state('connecting');
    while (!stopped) {
      try {
        await readOnce();
      } catch {
        // dropped or refused: reconnect below
      }
      if (stopped) return;
      on.state('reconnecting');
      await new Promise((r) => setTimeout(r, wait));
      wait = Math.min(wait * 2, 10_000);
    }
  })();

  return () => {
    stopped = true;
    ctl.abort();
  };
}
