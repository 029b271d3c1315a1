// The ReportResults stream of one session: drains the outbox in batches (up to
// maxBatchesInFlight unacked), deletes rows on an ok ack and offers a refused batch again later.
import type { AgentServiceClient, BatchAck, grpc } from '@upfleet/proto';
import type { Logger } from 'pino';
import type { Outbox, OutboxBatch } from '../buffer/sqlite-outbox';

export interface ReportOptions {
  outbox: Outbox;
  batchSize: number;
  flushIntervalMs: number;
  maxBatchesInFlight: number;
  /** a nacked batch waits this long before it is offered again */
  nackDelayMs: number;
  logger: Logger;
}

/** The figures the link reports; the stream updates them as batches go and come back. */
export interface ReportCounts {
  batchesSent: number;
  batchesAcked: number;
  batchesNacked: number;
  resultsAcked: number;
  inFlight: number;
}

export interface ReportStream {
  /** send what is due (or everything possible when forced) */
  pump(force: boolean): void;
  /** nothing pending and nothing in flight */
  idle(): boolean;
  /** cancels the stream; batches in flight go back to the outbox */
  close(): void;
}

export function openReportStream(
  client: AgentServiceClient, md: grpc.Metadata, opts: ReportOptions, counts: ReportCounts,
  onEnd: (err: Error) => void,
): ReportStream {
  const { outbox } = opts;
  const inflight = new Set<string>();
  let lastSendAt = 0;
  let holdUntil = 0;
  let closed = false;
  const report = client.ReportResults(md);

  const pump = (force: boolean): void => {
    if (closed) return;
    const now = Date.now();
    if (now < holdUntil && !force) return;
    while (inflight.size < opts.maxBatchesInFlight) {
      const full = outbox.pendingBatches() > 0 || outbox.unbatched() >= opts.batchSize;
      const due = force || now - lastSendAt >= opts.flushIntervalMs;
      if (!full && !(due && outbox.unbatched() > 0)) break;
      const batch: OutboxBatch | undefined = outbox.takeBatch(opts.batchSize);
      if (!batch) break;
      inflight.add(batch.batch_id);
      counts.inFlight = inflight.size;
      counts.batchesSent++;
      lastSendAt = now;
      report.write(batch); // its stored wire bytes, passed through by the serializer
    }
  };

  report.on('data', (ack: BatchAck) => {
    if (!inflight.delete(ack.batch_id)) return;
    counts.inFlight = inflight.size;
    if (ack.ok) {
      counts.batchesAcked++;
      counts.resultsAcked += outbox.ack(ack.batch_id);
    } else {
      counts.batchesNacked++;
      outbox.release(ack.batch_id);
      holdUntil = Date.now() + opts.nackDelayMs;
      opts.logger.warn({ batchId: ack.batch_id, error: ack.error }, 'control plane refused a batch; will resend');
    }
    pump(false);
  });
  report.on('error', (err) => onEnd(err));
  report.on('end', () => onEnd(new Error('result stream ended by the control plane')));
  const flushTimer = setInterval(() => pump(false), Math.min(opts.flushIntervalMs, 250));

  return {
    pump,
    idle: () => inflight.size === 0 && outbox.unbatched() === 0 && outbox.pendingBatches() === 0,
    close() {
      if (closed) return;
      closed = true;
      clearInterval(flushTimer);
      report.removeAllListeners('data');
      report.on('error', () => {});
      report.cancel();
      for (const id of inflight) outbox.release(id);
      inflight.clear();
      counts.inFlight = 0;
    },
  };
}
