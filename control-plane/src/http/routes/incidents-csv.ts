// The incidents list as a CSV download: the list's own rows, one column per field (a list field
// joined with '; '), written through the stream so a slow client holds back the writes.
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Response } from 'express';
import { csvLine, type CsvValue } from '../../lib/csv';

/** The columns when the list is empty (a non-empty list brings its own fields). */
const INCIDENT_COLUMNS = ['incident_id', 'url_id', 'condition', 'regions', 'cause', 'flapping', 'opened_at', 'resolved_at'];

const cell = (v: unknown): CsvValue =>
  Array.isArray(v) ? v.join('; ') : v === null || ['string', 'number', 'boolean'].includes(typeof v) ? (v as CsvValue) : JSON.stringify(v);

export async function sendIncidentsCsv(res: Response, rows: ReadonlyArray<object>): Promise<void> {
  const columns = rows.length > 0 ? Object.keys(rows[0]) : INCIDENT_COLUMNS;
  function* lines(): Generator<string> {
    yield csvLine(columns);
    for (const r of rows) yield csvLine(columns.map((c) => cell((r as Record<string, unknown>)[c])));
  }
  const day = new Date().toISOString().slice(0, 10).replace(/-/g, '');
  res.status(200).set({ 'Content-Type': 'text/csv; charset=utf-8', 'Content-Disposition': `attachment; filename="upfleet-incidents-${day}.csv"` });
  try {
    await pipeline(Readable.from(lines(), { objectMode: true, highWaterMark: 16 }), res);
  } catch {
    res.destroy();
  }
}
