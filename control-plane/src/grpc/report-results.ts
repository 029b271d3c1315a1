// AgentService.ReportResults: result batches in, one ack per batch out, in order of arrival.
// Flow control only: authentication, revocation, batches in flight per stream (paused beyond),
// acks in order. What happens to a batch (admit → store → evaluate) is the ingest service's
// (services/ingest.ts). A batch is acked ok only after the store has it; on a store failure the
// ack says so and the agent re-sends the same batch id, which the store deduplicates.
import type { Registry } from 'prom-client';
import { grpc, type BatchAck, type CheckResult, type ResultBatch } from '@upfleet/proto';
import type { Logger } from '../logger';
import { AppError } from '../errors';
import { createIngestService, type AdmitResults, type AuthenticatedAgent, type IngestDeps } from '../services/ingest';
import { createInFlightBudget, type InFlightLimits } from './in-flight-budget';

export type { AuthenticatedAgent } from '../services/ingest';
export { MAX_BATCH_RESULTS } from '../services/ingest';

export type ReportResultsCall = grpc.ServerDuplexStream<ResultBatch, BatchAck>;

export interface ReportResultsDeps {
  store: IngestDeps['store'];
  logger: Logger;
  /** Returns the calling agent or throws (an error with a numeric gRPC `code`, or an AppError). */
  authenticate(call: ReportResultsCall): AuthenticatedAgent | Promise<AuthenticatedAgent>;
  /** Which results of a batch may be stored, and as what (result-admission.ts). */
  admit: AdmitResults;
  /** Asked before each batch: false (the agent was revoked) ends the stream, storing nothing more. */
  stillAllowed?(agent: AuthenticatedAgent): boolean;
  /** Told of each authenticated stream; `close` ends it at once (revocation). Returns the unregister. */
  track?(agent: AuthenticatedAgent, close: (status: Partial<grpc.ServiceError>) => void): () => void;
  /** Batches being stored at once per stream (MAX_BATCHES_IN_FLIGHT_PER_STREAM by default); the stream is paused beyond it. */
  maxInFlight?: number;
  /** Results and batches being stored at once across all streams (DEFAULT_IN_FLIGHT_LIMITS); a batch beyond waits, its stream paused. */
  inFlightLimits?: InFlightLimits;
  /** While true no new batch is stored (see createInFlightBudget's holdWhile): agents waiting for their snapshot go first. */
  holdIngestWhile?: () => boolean;
  maxBatchResults?: number;
  keepScreenshots?: IngestDeps['keepScreenshots'];
  /** Called with a batch's results once they are stored (alert evaluation). It runs after the ack
   *  is on its way, and whatever it throws is logged: it never delays or fails an ack. */
  onStored?(results: CheckResult[]): void;
  /** The ingest service registers its metrics here (results ingested, batches by outcome, store time). */
  metrics?: Registry;
}

/**
 * Agents keep 4 batches un-acked by default; a busy agent may be set to 8
 * (UPFLEET_MAX_BATCHES_IN_FLIGHT). More batches waiting means larger merged inserts when the store
 * is busy: 8 agents at 8 each reach 100k results/s into chDB on 2 cores, at 4 each 82–99k
 * (docs/scaling.md). Bounds the memory a stream can hold: 8 batches of at most 5,000 results.
 */
export const MAX_BATCHES_IN_FLIGHT_PER_STREAM = 8;

const GRPC_STATUS_OF: Partial<Record<AppError['code'], grpc.status>> = {
  unauthorized: grpc.status.UNAUTHENTICATED,
  forbidden: grpc.status.PERMISSION_DENIED,
  unavailable: grpc.status.UNAVAILABLE,
  bad_request: grpc.status.INVALID_ARGUMENT,
};

function toServiceError(err: unknown): Partial<grpc.ServiceError> {
  if (err instanceof AppError) {
    return { code: GRPC_STATUS_OF[err.code] ?? grpc.status.INTERNAL, details: err.message, message: err.message };
  }
  const e = err as { code?: unknown; details?: unknown; message?: unknown };
  if (typeof e?.code === 'number') {
    const details = typeof e.details === 'string' ? e.details : (typeof e.message === 'string' ? e.message : 'rejected');
    return { code: e.code, details, message: details };
  }
  return { code: grpc.status.UNAUTHENTICATED, details: 'authentication failed', message: 'authentication failed' };
}

interface Slot {
  done: boolean;
  ack: BatchAck | null;
}

export function createReportResultsHandler(deps: ReportResultsDeps): grpc.handleBidiStreamingCall<ResultBatch, BatchAck> {
  const maxInFlight = Math.max(1, deps.maxInFlight ?? MAX_BATCHES_IN_FLIGHT_PER_STREAM);
  const baseLog = deps.logger.child({ component: 'report-results' });
  const { ingestBatch } = createIngestService(deps);
  const budget = createInFlightBudget(deps.inFlightLimits, { holdWhile: deps.holdIngestWhile });

  return (call) => {
    let agent: AuthenticatedAgent | null = null;
    let log = baseLog;
    const queue: Slot[] = [];
    let inFlight = 0;
    /** Batches of this stream waiting for the shared budget: the stream stays paused meanwhile. */
    let waitingForBudget = 0;
    let inputEnded = false;
    let finished = false;

    const finish = () => {
      if (finished) return;
      finished = true;
      if (!call.cancelled) call.end();
    };

    // Acks leave in the order batches arrived, each as soon as everything before it is acked.
    const flush = () => {
      while (queue.length > 0 && queue[0].done) {
        const slot = queue.shift()!;
        if (!call.cancelled && !finished) call.write(slot.ack!);
      }
      if (inputEnded && queue.length === 0) finish();
    };

    const refuse = (status: Partial<grpc.ServiceError>) => {
      if (finished) return;
      finished = true;
      log.info({ code: status.code, reason: status.details }, 'report stream closed');
      call.emit('error', status);
    };

    const onBatch = (batch: ResultBatch) => {
      if (finished) return;
      if (deps.stillAllowed && !deps.stillAllowed(agent!)) {
        refuse({ code: grpc.status.PERMISSION_DENIED, details: 'agent credential revoked', message: 'agent credential revoked' });
        return;
      }
      const slot: Slot = { done: false, ack: null };
      queue.push(slot);
      inFlight++;
      if (inFlight >= maxInFlight) call.pause();
      const cost = Math.max(1, batch.results?.length ?? 0);
      const resumeIfRoom = () => {
        if (inFlight < maxInFlight && waitingForBudget === 0 && !inputEnded) call.resume();
      };
      const run = (waited: boolean) => {
        if (waited) {
          waitingForBudget--;
          resumeIfRoom();
        }
        // A stream gone while its batch waited: nobody reads the ack, and the agent re-sends the batch.
        const stored = call.cancelled || finished
          ? Promise.resolve<BatchAck>({ batch_id: batch.batch_id ?? '', ok: false, error: 'stream closed' })
          : ingestBatch(agent!, batch, log);
        void stored.then((ack) => {
          slot.ack = ack;
          slot.done = true;
          inFlight--;
          resumeIfRoom();
          flush();
          // Released after the batch's evaluation (onStored, queued by ingestBatch before this), so
          // the budget bounds that work too.
          setImmediate(() => budget.release(cost));
        });
      };
      let queued = false;
      if (!budget.acquire(cost, () => run(queued))) {
        queued = true;
        waitingForBudget++;
        call.pause();
      }
    };

    call.on('error', (err) => log.debug({ err: err.message }, 'report stream error'));
    call.on('cancelled', () => {
      finished = true;
    });

    Promise.resolve()
      .then(() => deps.authenticate(call))
      .then(
        (a) => {
          agent = a;
          log = baseLog.child({ agentId: a.agentId, region: a.region });
          const untrack = deps.track?.(a, refuse);
          if (untrack) {
            call.on('close', untrack);
            call.on('cancelled', untrack);
          }
          // Listening only now: batches sent before authentication wait in the stream.
          call.on('data', onBatch);
          call.on('end', () => {
            inputEnded = true;
            flush();
          });
        },
        (err) => {
          const status = toServiceError(err);
          baseLog.info({ code: status.code, reason: status.details }, 'report stream rejected');
          finished = true;
          call.emit('error', status);
        },
      );
  };
}
