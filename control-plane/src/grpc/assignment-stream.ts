// The WatchAssignments stream's writer. Updates leave in the order the engine made them; to an
// agent that assembles chunks (WatchAssignmentsRequest.accepts_snapshot_chunks) a snapshot leaves
// in chunks of at most SNAPSHOT_CHUNK assignments, one chunk per turn of the event loop: encoding
// a 30,000-check snapshot in one write held the loop for tens of milliseconds per agent, and a
// restart brings every agent back at once. Older agents get each snapshot whole, as before.
import type { AssignmentUpdate } from '@upfleet/proto';

export const SNAPSHOT_CHUNK = 1_000;

/** The parts of a server stream the writer uses (grpc-js ServerWritableStream). */
export interface UpdateSink {
  write(u: AssignmentUpdate): boolean;
  once(event: 'drain', listener: () => void): unknown;
  readonly cancelled: boolean;
  readonly destroyed: boolean;
}

/** The messages one update leaves as: a long snapshot split into chunks, `more` on all but the last. */
export function chunkUpdate(u: AssignmentUpdate, chunkSize: number): AssignmentUpdate[] {
  const list = u.snapshot?.assignments;
  if (!list || list.length <= chunkSize) return [u];
  const out: AssignmentUpdate[] = [];
  for (let i = 0; i < list.length; i += chunkSize) {
    out.push({ version: u.version, snapshot: { assignments: list.slice(i, i + chunkSize), more: i + chunkSize < list.length } });
  }
  return out;
}

export function createAssignmentSender(sink: UpdateSink, opts: { chunks: boolean; chunkSize?: number }) {
  const chunkSize = Math.max(1, opts.chunkSize ?? SNAPSHOT_CHUNK);
  const queue: AssignmentUpdate[] = [];
  let waiting = false; // for the next turn, or for the stream to drain
  const gone = () => sink.cancelled || sink.destroyed;

  const pump = (): void => {
    waiting = false;
    if (gone()) {
      queue.length = 0;
      return;
    }
    const next = queue.shift();
    if (!next) return;
    const roomLeft = sink.write(next);
    if (queue.length === 0) return;
    waiting = true;
    if (roomLeft) setImmediate(pump);
    else sink.once('drain', pump);
  };

  return {
    send(u: AssignmentUpdate): void {
      if (gone()) return;
      queue.push(...(opts.chunks ? chunkUpdate(u, chunkSize) : [u]));
      if (!waiting) pump();
    },
    /** Messages not yet written (tests). */
    queued: () => queue.length,
  };
}
