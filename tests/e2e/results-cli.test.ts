// `upfleet results export` against the real control plane (in-process, real HTTP on port 0, real
// chDB) with a real API key: the file holds what the API answers, by id or by name, in CSV or
// NDJSON; a terminal gets a progress line; a refusal leaves no file behind.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../cli/src/index';
import { startHarnessWithResults, type Harness } from '../../control-plane/src/testing/harness';
import { httpResult } from '../../control-plane/src/testing/alerting';
import type { ClickHouseResultStore } from '../../control-plane/src/results/clickhouse-store';

let h: Harness & { store: ClickHouseResultStore };
let tmp: string;
beforeAll(async () => {
  h = await startHarnessWithResults();
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'upfleet-results-cli-'));
});
afterAll(async () => {
  await h?.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

async function upfleet(args: string[], env: Record<string, string>, tty = false) {
  let stdout = '';
  let stderr = '';
  let clock = 0;
  const code = await runCli([...args, '--server', h.cp.url], {
    env, cwd: tmp, stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), stderrIsTTY: tty,
    // Each progress call sees 150 ms pass, so every chunk redraws the line.
    now: () => (clock += 150),
  });
  return { code, stdout, stderr };
}

const HOUR = 3_600_000;

describe('upfleet results export', () => {
  let key = '';
  let token = '';
  let id = 0;
  const t0 = Date.now() - 3 * HOUR;
  const N = 30_000;

  beforeAll(async () => {
    const s = await h.signup();
    token = s.token;
    await h.setPackage(s.user.email, 'Pro');
    key = (await h.call('POST', '/api/users/api-keys', { name: 'export' }, token)).body.data.key as string;
    const ep = await h.call('POST', '/api/users/endpoints', { name: 'Checkout API', url: 'https://example.com/checkout', regions: ['EU-Germany'], response_code: true }, token);
    id = ep.body.data.url_id as number;
    h.cp.db.prepare('UPDATE endpoints SET created_at = ? WHERE url_id = ?').run(new Date(t0 - HOUR).toISOString(), id);
    await h.store.insertBatch('cli-1', 'agent-1', [httpResult(id, t0 + 1, { status_code: 500, ok: false, phase: 'http', error: 'HTTP 500, "oops"' })]);
    await h.store.command(
      `INSERT INTO ${h.store.database}.check_results (ts, endpoint_id, kind, region, ok, phase, status_code, total_ms, error, retention_days, result_id, agent_id)
       SELECT fromUnixTimestamp64Milli(toInt64({start:Int64} + number * 100)), {id:UInt64}, 'http', 'EU-Germany', 1, '', 200, 12.5, '', 365, toString(number), 'bulk'
       FROM numbers({n:UInt64})`,
      { start: t0 + 10, id, n: N },
    );
  });

  it('writes the CSV file the API answers, with a closing line naming rows and size', async () => {
    const from = new Date(t0).toISOString();
    const to = new Date(t0 + HOUR).toISOString();
    const run = await upfleet(['results', 'export', String(id), '--from', from, '--to', to, '--format', 'csv', '--output', 'out.csv'], { UPFLEET_API_KEY: key });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const file = fs.readFileSync(path.join(tmp, 'out.csv'), 'utf8');
    const api = await fetch(`${h.cp.url}/api/users/endpoints/${id}/results?from=${from}&to=${to}&format=csv`, { headers: { authorization: `Bearer ${key}` } });
    expect(file).toBe(await api.text());
    const lines = file.split('\r\n');
    expect(lines[0]).toBe('time,region,check,ok,phase,status_code,dns_ms,connect_ms,tls_ms,ttfb_ms,total_ms,error');
    expect(lines[1]).toBe(`"${new Date(t0 + 1).toISOString()}","EU-Germany","http",false,"http",500,1,1,0,5,10,"HTTP 500, ""oops"""`);
    expect(lines).toHaveLength(N + 3); // header, N + 1 rows, the empty string after the last CRLF
    expect(run.stdout).toMatch(new RegExp(`^Wrote ${(N + 1).toLocaleString('en-US')} rows \\(\\d+(\\.\\d)? [KM]B\\) to out\\.csv\\n$`));
    expect(fs.readdirSync(tmp).filter((f) => f.endsWith('.part'))).toEqual([]);
  });

  it('finds the endpoint by name, writes NDJSON, and draws a progress line on a terminal', async () => {
    const run = await upfleet(['results', 'export', 'checkout api', '--format', 'ndjson', '-o', 'out.ndjson'], { UPFLEET_API_KEY: key }, true);
    expect(run.code).toBe(0);
    const rows = fs.readFileSync(path.join(tmp, 'out.ndjson'), 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l));
    expect(rows).toHaveLength(N + 1);
    expect(rows[0]).toMatchObject({ region: 'EU-Germany', check: 'http', ok: false, status_code: 500, error: 'HTTP 500, "oops"' });
    const draws = run.stderr.split('\r').filter((s) => s.includes('rows'));
    expect(draws.length).toBeGreaterThan(0);
    expect(draws[0]).toMatch(/^\[[ <=>]{20}\] [\d,]+ rows, [\d.]+ [KMG]?B/);
    expect(run.stderr.endsWith('\r\x1b[K')).toBe(true);
  });

  it('refuses an unknown endpoint, a bad format and a missing key, and leaves no file', async () => {
    const other = await upfleet(['results', 'export', '987654', '-o', 'none.csv'], { UPFLEET_API_KEY: key });
    expect(other).toEqual({ code: 1, stdout: '', stderr: 'upfleet: Endpoint not found\n' });
    const named = await upfleet(['results', 'export', 'No such', '-o', 'none.csv'], { UPFLEET_API_KEY: key });
    expect(named.stderr).toBe('upfleet: No endpoint named "No such" (give its name or url_id)\n');
    const format = await upfleet(['results', 'export', String(id), '--format', 'xlsx', '-o', 'none.csv'], { UPFLEET_API_KEY: key });
    expect(format.stderr).toBe("upfleet: --format must be csv or ndjson (got 'xlsx')\n");
    const range = await upfleet(['results', 'export', String(id), '--from', 'yesterday', '-o', 'none.csv'], { UPFLEET_API_KEY: key });
    expect(range.code).toBe(1);
    expect(range.stderr).toMatch(/^upfleet: from and to must be ISO 8601 dates/);
    const nokey = await upfleet(['results', 'export', String(id), '-o', 'none.csv'], {});
    expect(nokey.stderr).toMatch(/^upfleet: No API key/);
    expect(fs.readdirSync(tmp).filter((f) => f.startsWith('none'))).toEqual([]);
  });
});
