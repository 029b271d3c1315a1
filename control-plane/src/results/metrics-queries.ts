// The last check of each endpoint, check kind and region, for a workspace's Prometheus metrics: one
// query for all of the workspace's endpoints (never one per endpoint), from the raw rows of a
// recent window (the primary key starts with endpoint_id, and daily partitions cut the window).
import type { ClickHouseClient } from '@clickhouse/client';
import { SQL_OK } from './queries';

export interface LastCheck {
  endpointId: number;
  kind: string;
  region: string;
  atMs: number;
  /** The last result passed (isDownResult's rule). */
  up: boolean;
  /** Seconds; null when the check carried no meaningful duration (no response). */
  responseSeconds: number | null;
  statusCode: number;
  /** A TLS check's certificate end (epoch ms); null for other kinds or without a certificate. */
  certNotAfterMs: number | null;
}

export async function queryLastChecks(client: ClickHouseClient, db: string, endpointIds: number[], sinceMs: number): Promise<LastCheck[]> {
  if (endpointIds.length === 0) return [];
  const rs = await client.query({
    query: `
      SELECT endpoint_id, kind, region, toUnixTimestamp64Milli(max(ts)) AS at,
        argMax(${SQL_OK}, ts) AS up,
        argMax(total_ms, ts) AS ms,
        argMax(status_code, ts) AS code,
        argMax(ok = 1 OR status_code > 0, ts) AS timed,
        argMax(toUnixTimestamp64Milli(cert_not_after), ts) AS cert
      FROM ${db}.check_results
      WHERE endpoint_id IN {ids:Array(UInt64)} AND ts >= fromUnixTimestamp64Milli({sinceMs:Int64})
      GROUP BY endpoint_id, kind, region
      ORDER BY endpoint_id, kind, region`,
    query_params: { ids: endpointIds, sinceMs: Math.trunc(sinceMs) },
    format: 'JSONCompactEachRow',
  });
  type Row = [number | string, string, string, number | string, number, number, number, number, number | string | null];
  return (await rs.json<Row>()).map(([id, kind, region, at, up, ms, code, timed, cert]) => ({
    endpointId: Number(id), kind, region, atMs: Number(at), up: Number(up) === 1,
    responseSeconds: Number(timed) === 1 ? Number(ms) / 1000 : null,
    statusCode: Number(code),
    certNotAfterMs: kind === 'tls' && cert !== null && Number(cert) > 0 ? Number(cert) : null,
  }));
}
