// Results export benchmark: 10 million raw results of one endpoint (http from three regions and tls,
// generated inside a local ClickHouse server with numbers(); the views fill the rollups on the way),
// exported as CSV and NDJSON through a control plane running as its own process against that server.
// Prints rows/s and the control plane's peak RSS (VmHWM), next to its RSS before the export: with
// the answer streamed as the client reads, the peak stays flat however many rows go out.
// Run: npm run bench:export [-- rows]
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { createClient } from '@clickhouse/client';
import { startClickHouseServer } from '../tests/helpers/clickhouse-server';
import { startStack } from '../tests/helpers/start-stack';

const ROWS = Number(process.argv[2] ?? 10_000_000);
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const MB = 1024 * 1024;

/** VmRSS and VmHWM (peak) of a process, in MB. */
function memoryOf(pid: number): { rss: number; peak: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0);
  return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 };
}

async function main(): Promise<void> {
  const server = await startClickHouseServer();
  console.log(`local ClickHouse server at ${server.url} answered ${server.startMs} ms after spawn`);
  const stack = await startStack({ env: { CLICKHOUSE_URL: server.url, LOG_LEVEL: 'warn' } });
  const pid = stack.process.pid!;
  try {
    const call = async (method: string, p: string, body: unknown, token?: string) => {
      const res = await fetch(`${stack.baseUrl}${p}`, {
        method, headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) }, body: JSON.stringify(body),
      });
      const json = (await res.json()) as { data: Record<string, unknown> };
      if (!res.ok) throw new Error(`${method} ${p}: ${res.status} ${JSON.stringify(json)}`);
      return json.data;
    };
    const signup = await call('POST', '/api/auth/signup', { username: 'bench', email: 'bench@example.com', password: 'correct horse' });
    const token = signup.accessToken as string;
    const ep = await call('POST', '/api/users/endpoints', { name: 'Export', url: 'https://example.com/export', regions: ['EU-Germany'], response_code: true }, token);
    const id = ep.url_id as number;
    // The export never reads rows older than the endpoint: it has existed for the whole range.
    const now = Date.now();
    const start = now - 2 * DAY;
    const sqlite = new Database(path.join(stack.dataDir, 'upfleet.db'));
    sqlite.pragma('busy_timeout = 5000');
    sqlite.prepare('UPDATE endpoints SET created_at = ? WHERE url_id = ?').run(new Date(start - HOUR).toISOString(), id);
    sqlite.close();

    const ch = createClient({ url: server.url, request_timeout: 600_000 });
    const seeded = performance.now();
    const step = (2 * DAY) / ROWS;
    await ch.command({
      query: `INSERT INTO upfleet.check_results
          (ts, endpoint_id, kind, region, ok, phase, status_code, dns_ms, connect_ms, tls_ms, ttfb_ms, total_ms, error, retention_days, result_id, agent_id)
        SELECT
          fromUnixTimestamp64Milli(toInt64({start:Int64} + number * {step:Float64}), 'UTC') AS ts,
          {id:UInt64},
          if(number % 4 = 3, 'tls', 'http') AS kind,
          ['EU-Germany', 'US-Virginia', 'AP-Singapore', 'EU-Germany'][number % 4 + 1] AS region,
          (cityHash64(number) % 50) != 0 AS ok,
          if(ok, '', 'http') AS phase,
          if(kind = 'http', if(ok, 200, 503), 0) AS status_code,
          1.5, 4.2, 9.8, 60.1,
          toFloat32(80 + (cityHash64(number, 1) % 400) / 10) AS total_ms,
          if(ok, '', 'HTTP 503 from the origin, "retry later"'),
          365, toString(number), 'bench'
        FROM numbers({rows:UInt64})
        SETTINGS max_partitions_per_insert_block = 0`,
      query_params: { start, step, id, rows: ROWS },
    });
    await ch.close();
    console.log(`seeded ${ROWS.toLocaleString('en-US')} rows in ${((performance.now() - seeded) / 1000).toFixed(1)} s`);

    for (const format of ['csv', 'ndjson'] as const) {
      const before = memoryOf(pid);
      let maxRss = before.rss;
      const sampler = setInterval(() => (maxRss = Math.max(maxRss, memoryOf(pid).rss)), 100);
      const t = performance.now();
      const res = await fetch(`${stack.baseUrl}/api/users/endpoints/${id}/results?format=${format}`, { headers: { authorization: `Bearer ${token}` } });
      if (res.status !== 200) throw new Error(`export: ${res.status} ${await res.text()}`);
      let bytes = 0;
      let lines = 0;
      let firstByteMs = 0;
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        if (bytes === 0) firstByteMs = performance.now() - t;
        bytes += chunk.length;
        for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
      }
      const s = (performance.now() - t) / 1000;
      clearInterval(sampler);
      const after = memoryOf(pid);
      const rows = lines - (format === 'csv' ? 1 : 0);
      if (rows !== ROWS) throw new Error(`exported ${rows} rows, expected ${ROWS}`);
      console.log(
        `${format.padEnd(6)}: ${rows.toLocaleString('en-US')} rows, ${(bytes / MB).toFixed(0)} MB in ${s.toFixed(1)} s = ${Math.round(rows / s).toLocaleString('en-US')} rows/s `
        + `(${(bytes / MB / s).toFixed(1)} MB/s; first byte after ${Math.round(firstByteMs)} ms); control plane RSS ${before.rss.toFixed(0)} MB before, `
        + `${maxRss.toFixed(0)} MB at most during (sampled every 100 ms), peak RSS (VmHWM) ${after.peak.toFixed(0)} MB`,
      );
    }
  } finally {
    await stack.stop();
    await server.stop();
    fs.rmSync(stack.dataDir, { recursive: true, force: true });
  }
}

await main();
