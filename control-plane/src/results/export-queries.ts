// An endpoint's raw results read out for an export, a block of rows at a time, in constant memory.
// Rows come per check and region, each in time order: the raw table's own order (endpoint_id, kind,
// region, ts), so a server reads them in order and sends the first rows before the last are read.
// A server streams one query (resultSet.stream()); chDB materializes every answer, so there the
// rows are read in pages: per check and region, by time, each page ending on a whole millisecond.
import type { ClickHouseClient } from '@clickhouse/client';

/** time (ms), region, check (kind), ok, phase, status code, dns, connect, tls, ttfb, total (ms), error. */
export type ExportRow = [t: number, region: string, kind: string, ok: number, phase: string, status: number,
  dns: number, connect: number, tls: number, ttfb: number, total: number, error: string];

export interface ExportRange {
  fromMs: number;
  toMs: number;
}

/** Rows per chDB page: a few MB of text at a time. */
export const EXPORT_PAGE_ROWS = 20_000;

const COLUMNS = 'toUnixTimestamp64Milli(ts) AS t, region, kind, ok, phase, status_code, dns_ms, connect_ms, tls_ms, ttfb_ms, total_ms, error';

export async function* streamExportRows(client: ClickHouseClient, db: string, endpointId: number, range: ExportRange): AsyncGenerator<ExportRow[]> {
  const rs = await client.query({
    query: `SELECT ${COLUMNS} FROM ${db}.check_results
      WHERE endpoint_id = {endpointId:UInt64}
        AND ts >= fromUnixTimestamp64Milli({fromMs:Int64}) AND ts <= fromUnixTimestamp64Milli({toMs:Int64})
      ORDER BY kind, region, ts`,
    query_params: { endpointId, fromMs: Math.trunc(range.fromMs), toMs: Math.trunc(range.toMs) },
    format: 'JSONCompactEachRow',
  });
  // Each chunk is what arrived on the socket; awaiting the consumer between chunks is the backpressure.
  for await (const rows of rs.stream<ExportRow>()) {
    if (rows.length > 0) yield rows.map((r) => r.json<ExportRow>());
  }
}

export async function* pagedExportRows(client: ClickHouseClient, db: string, endpointId: number, range: ExportRange, pageRows = EXPORT_PAGE_ROWS): AsyncGenerator<ExportRow[]> {
  const fromMs = Math.trunc(range.fromMs);
  const toMs = Math.trunc(range.toMs);
  // The checks and regions with rows in the range, from the hour rollup (a few rows per hour).
  const groups = await (await client.query({
    query: `SELECT DISTINCT kind, region FROM ${db}.check_results_1h
      WHERE endpoint_id = {endpointId:UInt64}
        AND bucket >= toDateTime(intDiv({fromMs:Int64}, 3600000) * 3600, 'UTC') AND bucket <= toDateTime(intDiv({toMs:Int64}, 1000), 'UTC')
      ORDER BY kind, region`,
    query_params: { endpointId, fromMs, toMs },
    format: 'JSONCompactEachRow',
  })).json<[string, string]>();
  for (const [kind, region] of groups) {
    let afterMs = fromMs - 1;
    for (;;) {
      // WITH TIES: a page never splits a millisecond, so the next one starts after the last row's.
      const rows = await (await client.query({
        query: `SELECT ${COLUMNS} FROM ${db}.check_results
          WHERE endpoint_id = {endpointId:UInt64} AND kind = {kind:String} AND region = {region:String}
            AND ts > fromUnixTimestamp64Milli({afterMs:Int64}) AND ts <= fromUnixTimestamp64Milli({toMs:Int64})
          ORDER BY ts LIMIT ${Math.trunc(pageRows)} WITH TIES`,
        query_params: { endpointId, kind, region, afterMs, toMs },
        format: 'JSONCompactEachRow',
      })).json<ExportRow>();
      if (rows.length > 0) yield rows;
      if (rows.length < pageRows) break;
      afterMs = Number(rows[rows.length - 1][0]);
    }
  }
}
