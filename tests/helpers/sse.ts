// Reads a Server-Sent Events stream over fetch (what the web app does): each event with its id,
// type and parsed data, as it arrives.
export interface SseEvent {
  id: string | null;
  event: string;
  data: any;
  /** When it was read (ms). */
  at: number;
}

export interface SseStream {
  status: number;
  events: SseEvent[];
  /** Comment lines seen (heartbeats). */
  comments: number;
  /** Resolves when the server ends the stream (or it is closed here). */
  ended: Promise<void>;
  /** Resolves with the first event (already read or coming) that matches. */
  next(match: (e: SseEvent) => boolean, timeoutMs?: number): Promise<SseEvent>;
  close(): void;
}

export async function openSse(url: string, headers: Record<string, string>, onEvent?: (e: SseEvent) => void): Promise<SseStream> {
  const ctl = new AbortController();
  const res = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: ctl.signal });
  const events: SseEvent[] = [];
  const waiters: Array<{ match: (e: SseEvent) => boolean; resolve: (e: SseEvent) => void }> = [];
  let markEnded = (): void => undefined;
  const s: SseStream = {
    ended: new Promise<void>((r) => (markEnded = r)),
    status: res.status,
    events,
    comments: 0,
    next(match, timeoutMs = 30_000) {
      const found = events.find(match);
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('no matching event in time')), timeoutMs);
        waiters.push({ match, resolve: (e) => { clearTimeout(timer); resolve(e); } });
      });
    },
    close: () => ctl.abort(),
  };
  if (res.status !== 200 || !res.body) {
    markEnded();
    return s;
  }
  void (async () => {
    const decoder = new TextDecoder();
    let buf = '';
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buf += decoder.decode(chunk, { stream: true });
        let cut: number;
        while ((cut = buf.indexOf('\n\n')) >= 0) {
          const block = buf.slice(0, cut);
          buf = buf.slice(cut + 2);
          let id: string | null = null;
          let event = 'message';
          const data: string[] = [];
          let comment = false;
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) comment = true;
            else if (line.startsWith('id: ')) id = line.slice(4);
            else if (line.startsWith('event: ')) event = line.slice(7);
            else if (line.startsWith('data: ')) data.push(line.slice(6));
          }
          if (data.length === 0) {
            if (comment) s.comments++;
            continue;
          }
          const e: SseEvent = { id, event, data: JSON.parse(data.join('\n')), at: Date.now() };
          events.push(e);
          onEvent?.(e);
          for (let i = waiters.length - 1; i >= 0; i--) {
            if (waiters[i].match(e)) waiters.splice(i, 1)[0].resolve(e);
          }
        }
      }
    } catch {
      // aborted
    }
    markEnded();
  })();
  return s;
}
