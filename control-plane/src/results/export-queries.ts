// An endpoint's raw results read out for an export, formatted by ClickHouse itself (CSV or
// JSONEachRow: a few million rows a second, where formatting row by row in JavaScript managed
// ~50,000-100,000), a block of bytes at a time, in constant memory. Rows come per check and region,
// each in time order: the raw table's own order (endpoint_id, kind, region, ts), so a server reads
// them in order and sends the first rows before the last are read. A server streams one query;
// chDB materializes every answer, so there the rows are read in pages of about `pageRows`, planned
// from the hour rollup's counts (an hour with more rows is cut into equal parts of it).
import type { ClickHouseClient } from '@clickhouse/client';
import type { ExportFormat } from '@upfleet/proto/schemas';

export interface ExportRange {
  fromMs: number;
  /** Inclusive. */
  toMs: number;
}

/** Rows per chDB page, about: a few MB of text at a time. */
export const EXPORT_PAGE_ROWS = 20_000;
const HOUR_MS = 3_600_000;

// CSV only: a text cell that starts like a spreadsheet formula (= + - @, tab, CR) gets a leading '
// (as lib/csv.ts does); NDJSON keeps the text as it is.
const safe = (column: string) => `if(substring(${column}, 1, 1) IN ('=', '+', '-', '@', '\\t', '\\r'), concat('\\'', ${column}), ${column})`;
const TIME = "concat(replaceOne(toString(ts), ' ', 'T'), 'Z')"; // 2026-11-27T16:10:00.123Z, as Date.toISOString()
/** The file's columns (RESULT_EXPORT_COLUMNS in @upfleet/proto/schemas), in order. */
function select(format: ExportFormat): string {
  const text = format === 'csv' ? safe : (column: string) => column;
  return `${TIME} AS \`time\`, ${text('region')} AS \`region\`, ${text('kind')} AS \`check\`, toBool(ok) AS \`ok\`,
  ${text('phase')} AS \`phase\`, status_code, dns_ms, connect_ms, tls_ms, ttfb_ms, total_ms, ${text('error')} AS \`error\``;
}

const FORMAT: Record<ExportFormat, string> = { csv: 'CSV', ndjson: 'JSONEachRow' };
const SETTINGS = {
  // RFC 4180 lines; strings are always quoted, their quotes doubled, nothing else escaped.
  output_format_csv_crlf_end_of_line: 1,
  output_format_json_escape_forward_slashes: 0,
} as const;

function rowsSql(db: string, format: ExportFormat, where: string, order: string): string {
  return `SELECT ${select(format)} FROM ${db}.check_results WHERE endpoint_id = {endpointId:UInt64} AND ${where} ORDER BY ${order} FORMAT ${FORMAT[format]}`;
}

/** Server: one query, its answer passed on as it arrives (awaiting the consumer between chunks is the backpressure). */
export async function* streamExport(client: ClickHouseClient, db: string, endpointId: number, range: ExportRange, format: ExportFormat): AsyncGenerator<Uint8Array> {
  const res = await client.exec({
    query: rowsSql(db, format, 'ts >= fromUnixTimestamp64Milli({fromMs:Int64}) AND ts <= fromUnixTimestamp64Milli({toMs:Int64})', 'kind, region, ts'),
    query_params: { endpointId, fromMs: Math.trunc(range.fromMs), toMs: Math.trunc(range.toMs) },
    clickhouse_settings: SETTINGS,
  });
  try {
    for await (const chunk of res.stream as AsyncIterable<Uint8Array>) yield chunk;
  } finally {
    // Ended early (the client went away): closing the socket ends the query on the server.
    res.stream.destroy();
  }
}

/** One page: a check in a region over [fromMs, untilMs). */
export interface ExportPage { kind: string; region: string; fromMs: number; untilMs: number }

/**
 * Pages of about `pageRows` rows per check and region from the hour rollup's counts (hours without
 * rows are covered by the page next to them, so the pages of a group cover the whole range).
 */
export async function planExportPages(client: ClickHouseClient, db: string, endpointId: number, range: ExportRange, pageRows: number): Promise<ExportPage[]> {
  const fromMs = Math.trunc(range.fromMs);
  const endMs = Math.trunc(range.toMs) + 1;
  const hours = await (await client.query({
    query: `SELECT kind, region, toUInt64(toUnixTimestamp(bucket)) * 1000 AS h, sum(n) AS n FROM ${db}.check_results_1h
      WHERE endpoint_id = {endpointId:UInt64}
        AND bucket >= toDateTime(intDiv({fromMs:Int64}, 3600000) * 3600, 'UTC') AND bucket < toDateTime(intDiv({endMs:Int64} + 3599999, 1000), 'UTC')
      GROUP BY kind, region, h ORDER BY kind, region, h`,
    query_params: { endpointId, fromMs, endMs },
    format: 'JSONCompactEachRow',
  })).json<[string, string, number | string, number | string]>();
  const pages: ExportPage[] = [];
  let group: { kind: string; region: string; start: number; count: number } | null = null;
  const cut = (at: number) => {
    if (group && at > group.start) {
      pages.push({ kind: group.kind, region: group.region, fromMs: group.start, untilMs: at });
      group.start = at;
      group.count = 0;
    }
  };
  for (const [kind, region, hRaw, nRaw] of hours) {
    const h = Number(hRaw);
    const n = Number(nRaw);
    if (!group || group.kind !== kind || group.region !== region) {
      cut(endMs);
      group = { kind, region, start: fromMs, count: 0 };
    }
    if (group.count > 0 && group.count + n > pageRows) cut(h);
    const parts = Math.ceil(n / pageRows);
    // Rows spread over their hour: an hour of more rows than a page becomes `parts` pages.
    for (let i = 1; i < parts; i++) cut(Math.min(endMs, h + Math.round((i * HOUR_MS) / parts)));
    group.count += parts > 1 ? n / parts : n;
  }
  cut(endMs);
  return pages;
}

/** chDB: page after page, each answer materialized (a few MB) and handed on before the next is read. */
export async function* pagedExport(client: ClickHouseClient, db: string, endpointId: number, range: ExportRange, format: ExportFormat, pageRows = EXPORT_PAGE_ROWS): AsyncGenerator<Uint8Array> {
  for (const page of await planExportPages(client, db, endpointId, range, pageRows)) {
    const res = await client.exec({
      query: rowsSql(db, format, `kind = {kind:String} AND region = {region:String}
        AND ts >= fromUnixTimestamp64Milli({fromMs:Int64}) AND ts < fromUnixTimestamp64Milli({untilMs:Int64})`, 'ts'),
      query_params: { endpointId, ...page },
      clickhouse_settings: SETTINGS,
    });
    const chunks: Uint8Array[] = [];
    for await (const chunk of res.stream as AsyncIterable<Uint8Array>) chunks.push(chunk);
    if (chunks.length > 0) yield chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
  }
}
