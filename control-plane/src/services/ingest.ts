// The ingest use case: one result batch an agent sent → its admitted rows (which results may be
// stored, and as what: grpc/result-admission.ts) → stored in the results store (the batch id is
// the insert's deduplication token) → evaluated by alerting once the ack is on its way. Answers
// the batch's ack. The gRPC handler (grpc/report-results.ts) keeps flow control only.
import { Counter, Summary, type Registry } from 'prom-client';
import type { BatchAck, CheckResult, ResultBatch } from '@upfleet/proto';
import type { Logger } from '../logger';
import type { ResultStore } from '../results/clickhouse-store';

export interface AuthenticatedAgent {
  agentId: string;
  region: string;
  /** when it registered (ms); unknown: treated as just now */
  registeredAt?: number;
}

/** What admission answers for a batch: the rows to store (corrected in place) and what was refused, by reason. */
export interface Admission {
  rows: CheckResult[];
  rejected: Partial<Record<string, number>>;
  rejectedCount: number;
}
export type AdmitResults = (agent: AuthenticatedAgent, results: CheckResult[]) => Admission;

export const MAX_BATCH_RESULTS = 5000;

export interface IngestDeps {
  store: Pick<ResultStore, 'insertBatch'>;
  /** Which results of a batch may be stored, and as what (grpc/result-admission.ts). */
  admit: AdmitResults;
  maxBatchResults?: number;
  /**
   * Stores the admitted rows' screenshots (screenshots/screenshot-store.ts) and leaves on each row
   * only those it kept, without their bytes. Absent: screenshots are dropped (never in ClickHouse).
   */
  keepScreenshots?(this: void, rows: CheckResult[]): Promise<void>;
  /** Called with a batch's results once they are stored (alert evaluation). It runs after the ack
   *  is on its way, and whatever it throws is logged: it never delays or fails an ack. */
  onStored?(this: void, results: CheckResult[]): void;
  /** Registers its own metrics here (results ingested, batches by outcome, store time, refusals). */
  metrics?: Registry;
}

export function createIngestService(deps: IngestDeps) {
  const maxResults = deps.maxBatchResults ?? MAX_BATCH_RESULTS;
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

  /** A screenshot that cannot be stored is dropped, never the batch: a re-send would fail the same way. */
  async function keepScreenshots(rows: CheckResult[], batchId: string, log: Logger): Promise<void> {
    if (!rows.some((r) => r.screenshots && r.screenshots.length > 0)) return;
    try {
      if (deps.keepScreenshots) return await deps.keepScreenshots(rows);
    } catch (err) {
      log.warn({ batchId, err: (err as Error).message }, 'screenshots not stored');
    }
    for (const r of rows) r.screenshots = [];
  }

  /** Admits, stores and hands a batch to evaluation; the answer is its ack (never throws). */
  async function ingestBatch(agent: AuthenticatedAgent, batch: ResultBatch, log: Logger): Promise<BatchAck> {
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
    await keepScreenshots(valid, batchId, log);
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

  return { ingestBatch };
}
export type IngestService = ReturnType<typeof createIngestService>;
