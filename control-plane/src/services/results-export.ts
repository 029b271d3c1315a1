// Results export: an endpoint's raw results as CSV or NDJSON, read from the results store a block at
// a time and handed on as the HTTP answer takes them (the Readable pulls one block at a time), so
// memory stays flat however long the range. Scoped by owner and bounded by the plan's retention
// before the store is asked.
import { Readable } from 'node:stream';
import { RESULT_EXPORT_COLUMNS, type ExportFormat, type ResultsExportQuery } from '@upfleet/proto/schemas';
import { AppError } from '../errors';
import { clampRetentionDays } from '../checks';
import { csvLine } from '../lib/csv';
import type { ExportRange } from '../results/clickhouse-store';
import type { EndpointService } from './endpoints';

export interface ExportSource {
  /** CSV lines without a header, or NDJSON, in the columns of RESULT_EXPORT_COLUMNS (formatted by the store). */
  exportResults(endpointId: number, range: ExportRange, format: ExportFormat): AsyncIterable<Uint8Array>;
}

export interface OpenedExport {
  filename: string;
  contentType: string;
  /** The range read: `from` clamped to the plan's retention and the endpoint's creation. */
  fromMs: number;
  toMs: number;
  body: Readable;
}

export const EXPORT_CONTENT_TYPES: Record<ExportFormat, string> = {
  csv: 'text/csv; charset=utf-8',
  ndjson: 'application/x-ndjson; charset=utf-8',
};

const DAY_MS = 86_400_000;
/** 2026-11-27T16:10:00.000Z → 20261127T161000Z (a file name without colons). */
const compactTime = (ms: number) => new Date(ms).toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');

export function createResultsExport(deps: { endpoints: EndpointService; source: ExportSource | null; now?: () => number }) {
  const now = deps.now ?? Date.now;
  return {
    /**
     * Checks the endpoint and range and reads the first block, so a refusal or a store failure is
     * still a plain error answer; the rest is read as the body is consumed.
     */
    async open(userId: number, endpointId: number, q: ResultsExportQuery): Promise<OpenedExport> {
      const endpoint = deps.endpoints.get(userId, endpointId);
      if (!deps.source) throw new AppError('unavailable', 'Results are not available');
      const at = now();
      // Older rows are past the plan's retention (or waiting for ClickHouse's TTL to drop them): never exported.
      const keptFrom = at - clampRetentionDays((await deps.endpoints.planOf(userId)).retention_days) * DAY_MS;
      const created = Date.parse(endpoint.created_at);
      const fromMs = Math.max(q.from ?? keptFrom, keptFrom, Number.isFinite(created) ? created : 0);
      const toMs = Math.max(fromMs, q.to ?? at);
      const format = q.format;
      const rows = deps.source.exportResults(endpointId, { fromMs, toMs }, format)[Symbol.asyncIterator]();
      let first: IteratorResult<Uint8Array>;
      try {
        first = await rows.next();
      } catch {
        throw new AppError('unavailable', 'Failed to read results');
      }
      async function* text(): AsyncGenerator<Uint8Array | string> {
        if (format === 'csv') yield csvLine(RESULT_EXPORT_COLUMNS);
        for (let next = first; !next.done; next = await rows.next()) yield next.value;
      }
      // One block in hand at a time: the next is read only once the answer has taken this one.
      const body = Readable.from(text(), { objectMode: true, highWaterMark: 1 });
      // Ended early (the client went away, or a failure): stop reading, which ends the server's query.
      body.once('close', () => void rows.return?.(undefined)?.catch(() => undefined));
      return {
        filename: `upfleet-results-${endpointId}-${compactTime(fromMs)}-${compactTime(toMs)}.${format}`,
        contentType: EXPORT_CONTENT_TYPES[format],
        fromMs,
        toMs,
        body,
      };
    },
  };
}
export type ResultsExport = ReturnType<typeof createResultsExport>;
