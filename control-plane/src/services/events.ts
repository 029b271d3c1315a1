// Per-user event streams (GET /api/users/events, Server-Sent Events). Each event is numbered
// once (ids grow across users), serialised once and written to the owner's open streams only.
// The last 5 minutes of each user's events are kept, so a stream reconnecting with
// Last-Event-ID gets what it missed; an id older than that gets a `resync` event (reload the list).

export type UserEventType = 'result' | 'incident.opened' | 'incident.resolved' | 'endpoint.changed';

/** How long events are kept for a reconnecting stream. */
export const EVENT_REPLAY_MS = 5 * 60_000;
/** At most this many events are kept per user (a 10,000-endpoint account checked every 30 s makes 100,000 in 5 min). */
export const EVENT_REPLAY_MAX = 200_000;
/** A comment line this often keeps proxies and the client's reconnect timer from closing an idle stream. */
export const EVENT_HEARTBEAT_MS = 15_000;
/**
 * Open streams per person (over every workspace) and per API key; one more closes the holder's
 * oldest. Counted per holder, not per workspace, so the lowest role cannot lock the others out.
 */
export const EVENT_STREAMS_PER_USER = 20;
/** A stream whose client reads slower than this much unsent data is closed (it reconnects and resumes). */
export const EVENT_STREAM_MAX_BUFFER = 4 * 1024 * 1024;

export interface EventSink {
  write(chunk: string): boolean;
  /** Bytes written but not yet sent. */
  readonly writableLength: number;
  end(): void;
}

interface Kept {
  id: number;
  at: number;
  text: string;
}

/** Who opened a stream: the member acting in the workspace (null when unknown). */
interface Reader {
  member: number | null;
  /** What the cap counts by: the API key used, else the person, else the workspace. */
  holder: string;
}

interface UserStreams {
  /** Each open stream with its reader. */
  sinks: Map<EventSink, Reader>;
  kept: Kept[];
  /** Index of the first kept event still wanted (the array is compacted now and then). */
  head: number;
  /** Id of the newest event no longer kept (0: none dropped). */
  dropped: number;
}

export function createEventHub(opts: { now?: () => number; heartbeatMs?: number } = {}) {
  const now = opts.now ?? Date.now;
  const users = new Map<number, UserStreams>();
  /** Each holder's open streams, oldest first, with the workspace each reads. */
  const held = new Map<string, Array<{ sink: EventSink; u: UserStreams }>>();
  let seq = now() * 1000; // ids keep growing across restarts (ms × 1000 + a counter)
  const firstId = seq + 1; // an id before this was given by an earlier process: its events are gone

  const of = (userId: number): UserStreams => {
    let u = users.get(userId);
    if (!u) {
      u = { sinks: new Map(), kept: [], head: 0, dropped: 0 };
      users.set(userId, u);
    }
    return u;
  };

  function prune(u: UserStreams, t: number) {
    while (u.head < u.kept.length && (t - u.kept[u.head].at > EVENT_REPLAY_MS || u.kept.length - u.head > EVENT_REPLAY_MAX)) {
      u.dropped = u.kept[u.head].id;
      u.head++;
    }
    if (u.head > 1024 && u.head * 2 > u.kept.length) {
      u.kept = u.kept.slice(u.head);
      u.head = 0;
    }
  }

  /** Forgets a stream (idempotent: the response's close comes after an end() here); ends it when asked. */
  function drop(sink: EventSink, u: UserStreams, end: boolean) {
    const reader = u.sinks.get(sink);
    if (!reader) return;
    u.sinks.delete(sink);
    const list = held.get(reader.holder);
    if (list) {
      const i = list.findIndex((x) => x.sink === sink);
      if (i >= 0) list.splice(i, 1);
      if (list.length === 0) held.delete(reader.holder);
    }
    if (end) sink.end();
  }

  function send(sink: EventSink, text: string, u: UserStreams) {
    if (sink.writableLength > EVENT_STREAM_MAX_BUFFER) {
      drop(sink, u, true);
      return;
    }
    sink.write(text);
  }

  const heartbeat = setInterval(() => {
    const t = now();
    for (const u of users.values()) {
      for (const sink of u.sinks.keys()) send(sink, ': heartbeat\n\n', u);
      prune(u, t);
    }
  }, opts.heartbeatMs ?? EVENT_HEARTBEAT_MS);
  heartbeat.unref();

  return {
    /** One event for one user: kept for replay and written to the user's open streams. */
    publish(userId: number, type: UserEventType, data: unknown): void {
      const id = ++seq;
      const t = now();
      const text = `id: ${id}\nevent: ${type}\ndata: ${JSON.stringify(data)}\n\n`;
      const u = of(userId);
      u.kept.push({ id, at: t, text });
      if (u.kept.length - u.head > EVENT_REPLAY_MAX) prune(u, t);
      for (const sink of u.sinks.keys()) send(sink, text, u);
    },

    /** Streams open on this user's (workspace's) events. */
    streamsOf: (userId: number) => users.get(userId)?.sinks.size ?? 0,

    /**
     * Opens a stream: first what the user missed after `lastEventId` (or a `resync` event when
     * that is older than what is kept), then live events. `readerId` is the person acting,
     * `apiKeyId` the key they used; past EVENT_STREAMS_PER_USER for that key (or person), the
     * oldest of theirs is closed. Returns the close.
     */
    subscribe(userId: number, sink: EventSink, lastEventId: number | null, readerId?: number, apiKeyId?: number): () => void {
      const u = of(userId);
      const holder = apiKeyId !== undefined ? `key:${apiKeyId}` : readerId !== undefined ? `member:${readerId}` : `workspace:${userId}`;
      const mine = held.get(holder) ?? [];
      while (mine.length >= EVENT_STREAMS_PER_USER) {
        const oldest = mine[0];
        drop(oldest.sink, oldest.u, true);
        if (mine[0] === oldest) mine.shift(); // dropped elsewhere already
      }
      prune(u, now());
      sink.write('retry: 2000\n\n');
      if (lastEventId !== null) {
        if (lastEventId < u.dropped || lastEventId < firstId - 1) sink.write('event: resync\ndata: {}\n\n');
        for (let i = u.head; i < u.kept.length; i++) if (u.kept[i].id > lastEventId) sink.write(u.kept[i].text);
      }
      u.sinks.set(sink, { member: readerId ?? null, holder });
      mine.push({ sink, u });
      held.set(holder, mine);
      return () => drop(sink, u, false);
    },

    /** Ends the streams of one reader (readerId) or of everyone (null) on this user's (workspace's) events. */
    endStreams(userId: number, readerId: number | null): number {
      const u = users.get(userId);
      if (!u) return 0;
      let ended = 0;
      for (const [sink, reader] of [...u.sinks]) {
        if (readerId !== null && reader.member !== readerId) continue;
        drop(sink, u, true);
        ended++;
      }
      return ended;
    },

    /** Ends every stream opened with this API key, in any workspace (the key was revoked). */
    endKeyStreams(apiKeyId: number): number {
      const list = [...(held.get(`key:${apiKeyId}`) ?? [])];
      for (const { sink, u } of list) drop(sink, u, true);
      return list.length;
    },

    /** Ends every open stream (shutdown: in-flight requests are drained after this). */
    close(): void {
      clearInterval(heartbeat);
      for (const u of users.values()) {
        for (const sink of u.sinks.keys()) sink.end();
        u.sinks.clear();
      }
      held.clear();
    },
  };
}
export type EventHub = ReturnType<typeof createEventHub>;
