// AgentService.ReportResults: result batches in, one ack per batch out, in order of arrival.
// A batch is acked ok only after the store has it; on a store failure the ack says so and the
// agent re-sends the same batch id, which the store deduplicates.
import { Counter, Summary, type Registry } from 'prom-client';
import { grpc, type BatchAck, type CheckResult, type ResultBatch } from '@upfleet/proto';
import type { Logger } from '../logger';
import { AppError } from '../errors';
import type { ResultStore } from '../results/clickhouse-store';
import type { ResultAdmission } from './result-admission';

export interface AuthenticatedAgent {
  agentId: string;
  region: string;
  /** when it registered (ms); unknown: treated as just now */
  registeredAt?: number;
}

export type ReportResultsCall = grpc.ServerDuplexStream<ResultBatch, BatchAck>;

export interface ReportResultsDeps {
  store: Pick<ResultStore, 'insertBatch'>;
  logger: Logger;
  /** Returns the calling agent or throws (an error with a numeric gRPC `code`, or an AppError). */
  authenticate(call: ReportResultsCall): AuthenticatedAgent | Promise<AuthenticatedAgent>;
  /** Which results of a batch may be stored, and as what (result-admission.ts). */
  admit: ResultAdmission;
  /** Asked before each batch: false (the agent was revoked) ends the stream, storing nothing more. */
  stillAllowed?(agent: AuthenticatedAgent): boolean;
  /** Told of each authenticated stream; `close` ends it at once (revocation). Returns the unregister. */
  track?(agent: AuthenticatedAgent, close: (status: Partial<grpc.ServiceError>) => void): () => void;
  /** Batches being stored at once per stream (MAX_BATCHES_IN_FLIGHT_PER_STREAM by default); the stream is paused beyond it. */
  maxInFlight?: number;
  maxBatchResults?: number;
  /** Called with a batch's results once they are stored (alert evaluation). It runs after the ack
   *  is on its way, and whatever it throws is logged: it never delays or fails an ack. */
  onStored?(results: CheckResult[]): void;
  /** The handler registers its own metrics here (results ingested, batches by outcome, store time). */
  metrics?: Registry;
}

export const MAX_BATCH_RESULTS = 5000;
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
    const details = typeof e.details === 'string' ? e.details : String(e.message ?? 'rejected');
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
  const maxResults = deps.maxBatchResults ?? MAX_BATCH_RESULTS;
  const baseLog = deps.logger.child({ component: 'report-results' });
  const registers = deps.metrics ? [deps.metrics] : [];
  const ingested = new Counter({ name: 'upfleet_ingest_results_total', help: 'Check results stored in ClickHouse', registers });
  const batches = new Counter({ name: 'upfleet_ingest_batches_total', help: 'Result batches by outcome', labelNames: ['result'], registers });
  const storeSeconds = new Summary({ name: 'upfleet_ingest_batch_duration_seconds', help: 'Time to store one batch', percentiles: [], registers });
  const refused = new Counter({
    name: 'upfleet_ingest_results_rejected_total',
    help: 'Results refused and not stored: a check not assigned to the sending agent, a row not matching its check, or a timestamp outside -2 days..+5 min',
    labelNames: ['reason'],
    registers,
  });

  async function storeBatch(agent: AuthenticatedAgent, batch: ResultBatch, log: Logger): Promise<BatchAck> {
    const batchId = batch.batch_id ?? '';
    const results = batch.results ?? [];
    if (!batchId) return { batch_id: '', ok: false, error: 'invalid batch: batch_id is required' };
    if (results.length > maxResults) {
      return { batch_id: batchId, ok: false, error: `invalid batch: ${results.length} results, at most ${maxResults}` };
    }
    // Refused results are dropped rather than failing the batch: a re-send would carry them again
    // and block the agent's outbox forever. One log line per batch, one counter per reason.
    const { rows: valid, rejected, rejectedCount: dropped } = deps.admit(agent, results);
    if (dropped > 0) {
      for (const [reason, n] of Object.entries(rejected)) refused.inc({ reason }, n);
      log.warn({ batchId, refused: dropped, reasons: rejected }, 'results refused: not stored');
    }
    const stored = storeSeconds.startTimer();
    try {
      await deps.store.insertBatch(batchId, agent.agentId, valid);
      ingested.inc(valid.length);
      batches.inc({ result: 'ok' });
    } catch (err) {
      batches.inc({ result: 'failed' });
      log.warn({ batchId, err: (err as Error).message }, 'result batch not stored');
      return { batch_id: batchId, ok: false, error: 'results could not be stored; re-send the batch' };
    } finally {
      stored();
    }
    if (deps.onStored && valid.length > 0) {
      const onStored = deps.onStored;
      setImmediate(() => {
        try {
          onStored(valid);
        } catch (err) {
          log.error({ batchId, err: (err as Error).message }, 'post-store hook failed');
        }
      });
    }
    const why = Object.entries(rejected).map(([reason, n]) => `${n} ${reason.replace('_', ' ')}`).join(', ');
    return { batch_id: batchId, ok: true, error: dropped > 0 ? `${dropped} results were refused and not stored (${why})` : '' };
  }

  return (call) => {
    let agent: AuthenticatedAgent | null = null;
    let log = baseLog;
    const queue: Slot[] = [];
    let inFlight = 0;
    let inputEnded = false;
    let finished = false;

    const finish = () => {
      if (finished) return;
      finished = true;
      if (!call.cancelled) call.end();
    };

    // Acks leave in the order batches arrived, each as soon as everything before it is acked.
    const flush = () => {
      while (queue.length > 0 && queue[0]!.done) {
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
      void storeBatch(agent!, batch, log).then((ack) => {
        slot.ack = ack;
        slot.done = true;
        inFlight--;
        if (inFlight < maxInFlight && !inputEnded) call.resume();
        flush();
      });
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
