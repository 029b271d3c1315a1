// SLA report benchmark: endpoints × 3 regions × days of HTTP results at a fixed interval,
// generated inside chDB with numbers() (the materialized views fill the rollups), then the SLA
// report built by the real service (services/reports/sla-report.ts over queryUptimeCounts) for the
// whole range, per endpoint, per region and per month. Prints p50/p99 of each.
// Run: npm run bench:reports -- [--endpoints 1000] [--days 30] [--interval-minutes 5] [--runs 20]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pino from 'pino';
import type { SavedEndpoint } from '@upfleet/proto/rest';
import { SlaReportQuery } from '@upfleet/proto/schemas';
import { createResultStore } from '../control-plane/src/results/clickhouse-store';
import { createSlaReportService } from '../control-plane/src/services/reports/sla-report';

const { values } = parseArgs({
  options: {
    endpoints: { type: 'string', default: '1000' },
    days: { type: 'string', default: '30' },
    'interval-minutes': { type: 'string', default: '5' },
    runs: { type: 'string', default: '20' },
  },
});
const ENDPOINTS = Number(values.endpoints);
const DAYS = Number(values.days);
const INTERVAL = Number(values['interval-minutes']);
const RUNS = Number(values.runs);
const MIN = 60_000;
const DAY = 86_400_000;
const REGIONS = ['EU-Germany', 'US-Virginia', 'AP-Singapore'];

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
};

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'upfleet-bench-reports-'));
const store = createResultStore({ clickhouseUrl: null, dataDir, logger: pino({ level: 'warn' }) });
await store.init();
try {
  const now = Math.floor(Date.now() / MIN) * MIN;
  const seedStarted = performance.now();
  const CHUNK_DAYS = 9; // an insert may touch at most 10 daily partitions
  const perDay = Math.floor(1440 / INTERVAL);
  const BATCH = 50; // endpoints per insert
  for (let first = 1; first <= ENDPOINTS; first += BATCH) {
    const count = Math.min(BATCH, ENDPOINTS - first + 1);
    for (let d = 0; d < DAYS; d += CHUNK_DAYS) {
      const checks = Math.min(CHUNK_DAYS, DAYS - d) * perDay;
      // row number → (endpoint, check, region): every endpoint checked from 3 regions each interval
      await store.command(
        `INSERT INTO ${store.database}.check_results
           (ts, endpoint_id, kind, region, ok, phase, status_code, dns_ms, connect_ms, tls_ms, ttfb_ms, total_ms, error, retention_days, result_id, agent_id)
         SELECT
           fromUnixTimestamp64Milli({from:Int64} + intDiv(intDiv(number, 3), {count:UInt64}) * {step:UInt64} + 137, 'UTC') AS ts,
           {first:UInt64} + (intDiv(number, 3) % {count:UInt64}), 'http', {regions:Array(String)}[(number % 3) + 1],
           (cityHash64(number, {first:UInt64}) % 500) != 0 AS ok, if(ok, '', 'http'), if(ok, 200, 503),
           1.5, 4.2, 9.8, 60.1, toFloat32(80 + (cityHash64(number, 1) % 400) / 10), if(ok, '', 'HTTP 503'), 365, '', 'bench'
         FROM numbers({rows:UInt64})`,
        { from: now - DAYS * DAY + d * DAY, first, count, step: INTERVAL * MIN, rows: checks * count * 3, regions: REGIONS },
      );
    }
  }
  const rows = await store.countResults();
  console.log(`seeded ${rows.toLocaleString('en-US')} results (${ENDPOINTS} endpoints x ${REGIONS.length} regions x ${DAYS} days, every ${INTERVAL} min) in ${((performance.now() - seedStarted) / 1000).toFixed(1)} s`);

  const endpoints: SavedEndpoint[] = Array.from({ length: ENDPOINTS }, (_, i) => ({
    url_id: i + 1, guid: `g${i + 1}`, name: `Service ${i + 1}`, url: `https://svc${i + 1}.example.com/`, description: '', regions: REGIONS,
    ping_host: false, cert_expiry: false, response_code: true, response_time: false, monitoring_enabled: true, created_at: '2020-01-01T00:00:00.000Z', kind: 'http',
  }));
  const sla = createSlaReportService({
    results: store,
    list: () => endpoints,
    createdAtMs: (ids) => new Map(ids.map((id) => [id, 0])),
    maintenance: async () => [],
    retentionDays: () => 365,
    timezone: () => 'Europe/Berlin',
    incidents: async () => [],
    windows: async () => [],
    now: () => now,
  });
  const from = new Date(now - DAYS * DAY).toISOString();
  const to = new Date(now).toISOString();
  for (const groupBy of ['endpoint', 'region', 'month'] as const) {
    const q = SlaReportQuery.parse({ from, to, group_by: groupBy });
    const times: number[] = [];
    let rowsOut = 0;
    for (let i = 0; i < RUNS + 2; i++) {
      const t = performance.now();
      const r = await sla.report({ userId: 1 }, q);
      if (i >= 2) times.push(performance.now() - t); // the first two warm chDB's caches
      rowsOut = r.rows.length;
      if (r.totals.uptime_percentage === null) throw new Error('the report found no data');
    }
    console.log(`SLA report per ${groupBy} (${rowsOut} rows, ${DAYS} days): p50 ${pct(times, 50).toFixed(1)} ms, p99 ${pct(times, 99).toFixed(1)} ms (${RUNS} runs)`);
  }
} finally {
  await store.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
