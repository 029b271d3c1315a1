// Result batches shared by bench/ingest.ts and its agent processes.
import type { CheckResult, ResultBatch } from '@upfleet/proto';
import type { ResultStore } from '../control-plane/src/results/clickhouse-store';

const HOUR = 3_600_000;
const T0 = Math.floor(Date.now() / HOUR) * HOUR - 6 * HOUR;
const KINDS = ['CHECK_KIND_HTTP', 'CHECK_KIND_PING', 'CHECK_KIND_TLS'] as const;
const REGIONS = ['EU-Germany', 'US-Virginia', 'AP-Singapore'];
const SHORT = ['http', 'ping', 'tls'];
/**
 * Endpoints the results are spread over (INGEST_ENDPOINTS, default 2,000): with the default, a
 * merged insert of 45,000 results holds ~7 per series (endpoint, kind, region), so the rollup views
 * aggregate 7:1. At 1-minute checks in production, each series appears about once per insert:
 * INGEST_ENDPOINTS=100000 measures that case.
 */
const ENDPOINTS = Number(process.env.INGEST_ENDPOINTS ?? 2000);

export function makeBatches(prefix: string, total: number, size: number): ResultBatch[] {
  const out: ResultBatch[] = [];
  for (let b = 0; b * size < total; b++) {
    const results: CheckResult[] = [];
    for (let j = 0; j < Math.min(size, total - b * size); j++) { // the last batch holds what is left
      const i = b * size + j;
      const kind = KINDS[i % 3];
      results.push({
        check_id: `${1 + (i % ENDPOINTS)}:${SHORT[i % 3]}:${REGIONS[i % 3]}`, endpoint_id: 1 + (i % ENDPOINTS), kind, region: REGIONS[i % 3],
        ts_ms: T0 + Math.floor(i / 10) * 10, ok: i % 17 !== 0, phase: i % 17 === 0 ? 'http' : '',
        error: i % 17 === 0 ? 'HTTP 503' : '', status_code: i % 17 === 0 ? 503 : 200, dns_ms: 1.2, connect_ms: 3.4,
        tls_ms: 8.1, ttfb_ms: 40.5, total_ms: 50 + (i % 100), cert_days_left: kind === 'CHECK_KIND_TLS' ? 80 : 0,
        cert_not_after_ms: kind === 'CHECK_KIND_TLS' ? T0 + 80 * 24 * HOUR : 0, cert_issuer: 'R11', cert_subject: 'CN=example.com',
        ping_method: kind === 'CHECK_KIND_PING' ? 'icmp' : '', redirects: 0, retention_days: 30,
        result_id: `${prefix}-${i}`,
      });
    }
    out.push({ batch_id: `${prefix}-${b}`, results });
  }
  return out;
}


/** Stores the batches through `store.insertBatch`, `concurrency` calls at a time (as that many agents' streams would). */
export async function insertConcurrently(store: ResultStore, batches: readonly ResultBatch[], concurrency: number): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < batches.length) {
      const b = batches[next++];
      await store.insertBatch(b.batch_id, 'bench', b.results);
    }
  }));
}
