// GET /api/users/metrics over real chDB and a real server: the Prometheus text of a workspace's
// endpoints (last check per region, certificate end, uptime windows, open incidents) with escaped
// labels and nothing of another workspace, and a real Prometheus (Debian's package, on loopback)
// scraping it with an API key and answering a PromQL query for the endpoint that is down.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarnessWithResults, type Harness } from '../testing/harness';
import { httpResult } from '../testing/alerting';
import type { ClickHouseResultStore } from '../results/clickhouse-store';

const PROMETHEUS = '/usr/bin/prometheus';
const noPrometheus = fs.existsSync(PROMETHEUS) ? null : `${PROMETHEUS} is not installed (apt-get install prometheus)`;

let h: Harness & { store: ClickHouseResultStore };
let key = '';
let down = 0;
let up = 0;
let theirs = 0;
const NAME = 'Shop "EU" \\ main';

beforeAll(async () => {
  h = await startHarnessWithResults();
  const s = await h.signup();
  await h.setPackage(s.user.email, 'Pro');
  key = (await h.call('POST', '/api/users/api-keys', { name: 'prometheus' }, s.token)).body.data.key as string;
  const make = async (token: string, name: string) => {
    const r = await h.call('POST', '/api/users/endpoints', { name, url: `https://example.com/${Math.random()}`, regions: ['EU-Germany', 'US-Virginia'], response_code: true, cert_expiry: true }, token);
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    const id = r.body.data.url_id as number;
    h.cp.db.prepare('UPDATE endpoints SET created_at = ? WHERE url_id = ?').run(new Date(Date.now() - 2 * 86_400_000).toISOString(), id);
    return id;
  };
  down = await make(s.token, NAME);
  up = await make(s.token, 'Blog');
  const other = await h.signup();
  await h.setPackage(other.user.email, 'Pro');
  theirs = await make(other.token, 'Not yours');
  const now = Date.now();
  const certEnd = Date.UTC(2027, 0, 31);
  await h.store.insertBatch('prom-1', 'agent-1', [
    // Down: it answered 200 an hour ago, now 503 from Germany and no answer from Virginia.
    httpResult(down, now - 3_600_000, { status_code: 200, total_ms: 120 }),
    httpResult(down, now - 60_000, { status_code: 503, ok: false, phase: 'http', error: 'HTTP 503', total_ms: 250 }),
    httpResult(down, now - 50_000, { region: 'US-Virginia', check_id: `${down}:http:US-Virginia`, status_code: 0, ok: false, phase: 'connect', error: 'ECONNREFUSED', total_ms: 0 }),
    { ...httpResult(down, now - 40_000, { kind: 'CHECK_KIND_TLS', check_id: `${down}:tls:EU-Germany`, status_code: 0, cert_days_left: 60, cert_not_after_ms: certEnd }) },
    httpResult(up, now - 30_000, { status_code: 200, total_ms: 80 }),
    httpResult(theirs, now - 30_000, { status_code: 500, ok: false, phase: 'http' }),
  ]);
});
afterAll(async () => {
  await h?.close();
});

const scrape = async (auth?: string) => {
  const res = await fetch(`${h.cp.url}/api/users/metrics`, { headers: auth ? { authorization: `Bearer ${auth}` } : {} });
  return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
};
/** The sample lines of one metric family. */
const samples = (text: string, name: string) => text.split('\n').filter((l) => l.startsWith(`${name}{`)).sort();

describe('GET /api/users/metrics', () => {
  it('answers the Prometheus text of the workspace: one series per endpoint, kind and region, labels escaped', async () => {
    const r = await scrape(key);
    expect(r.status).toBe(200);
    expect(r.type).toMatch(/^text\/plain; version=0\.0\.4/);
    const esc = 'Shop \\"EU\\" \\\\ main';
    const l = (id: number, name: string, region: string, kind = 'http') => `endpoint="${name}",url_id="${id}",region="${region}",kind="${kind}"`;
    expect(samples(r.text, 'upfleet_check_up')).toEqual([
      `upfleet_check_up{${l(up, 'Blog', 'EU-Germany')}} 1`,
      `upfleet_check_up{${l(down, esc, 'EU-Germany')}} 0`,
      `upfleet_check_up{${l(down, esc, 'EU-Germany', 'tls')}} 1`,
      `upfleet_check_up{${l(down, esc, 'US-Virginia')}} 0`,
    ].sort());
    expect(samples(r.text, 'upfleet_check_status_code')).toEqual([
      `upfleet_check_status_code{${l(up, 'Blog', 'EU-Germany')}} 200`,
      `upfleet_check_status_code{${l(down, esc, 'EU-Germany')}} 503`,
      `upfleet_check_status_code{${l(down, esc, 'US-Virginia')}} 0`,
    ].sort());
    // The last check with an answer; Virginia's got none.
    expect(r.text).toContain(`upfleet_check_response_seconds{${l(down, esc, 'EU-Germany')}} 0.25\n`);
    expect(r.text).not.toContain(`upfleet_check_response_seconds{${l(down, esc, 'US-Virginia')}}`);
    expect(samples(r.text, 'upfleet_certificate_expiry_timestamp_seconds')).toEqual([
      `upfleet_certificate_expiry_timestamp_seconds{${l(down, esc, 'EU-Germany', 'tls')}} ${Date.UTC(2027, 0, 31) / 1000}`,
    ]);
    // Uptime by the badge's rule: 1 of the 3 HTTP checks passed; windows of 24 h, 7 d and 30 d.
    for (const w of ['24h', '7d', '30d']) {
      expect(r.text).toContain(`upfleet_endpoint_uptime_ratio{endpoint="${esc}",url_id="${down}",kind="http",window="${w}"} 0.3333\n`);
      expect(r.text).toContain(`upfleet_endpoint_uptime_ratio{endpoint="Blog",url_id="${up}",kind="http",window="${w}"} 1\n`);
    }
    expect(samples(r.text, 'upfleet_incident_open')).toEqual([
      `upfleet_incident_open{endpoint="${esc}",url_id="${down}",kind="http"} 0`,
      `upfleet_incident_open{endpoint="Blog",url_id="${up}",kind="http"} 0`,
    ].sort());
    expect(r.text).not.toContain('Not yours');
    expect(r.text).not.toContain(`url_id="${theirs}"`);
    // Only the workspace's series: none of the control plane's own metrics.
    expect(r.text).not.toMatch(/^(process_|nodejs_|upfleet_http_)/m);
  });

  it('refuses a scrape without credentials or with a revoked key (401)', async () => {
    expect((await scrape()).status).toBe(401);
    expect((await scrape('upk_not_a_key')).status).toBe(401);
  });
});

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

describe.skipIf(noPrometheus !== null)(`a real Prometheus scraping the workspace${noPrometheus ? ` (skipped: ${noPrometheus})` : ''}`, () => {
  let prom: ChildProcess | null = null;
  let dir = '';
  let log = '';
  afterAll(async () => {
    if (prom && prom.exitCode === null) {
      const exited = new Promise((r) => prom!.once('exit', r));
      prom.kill('SIGTERM');
      await exited;
    }
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('scrapes /api/users/metrics with the API key and answers upfleet_check_up{url_id="…"} == 0 for the endpoint that is down', async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'upfleet-prometheus-'));
    const target = new URL(h.cp.url).host;
    fs.writeFileSync(path.join(dir, 'prometheus.yml'), [
      'global:',
      '  scrape_interval: 1s',
      'scrape_configs:',
      '  - job_name: upfleet',
      '    metrics_path: /api/users/metrics',
      '    authorization:',
      `      credentials: ${key}`,
      '    static_configs:',
      `      - targets: ['${target}']`,
      '',
    ].join('\n'));
    const port = await freePort();
    prom = spawn(PROMETHEUS, [
      `--config.file=${path.join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${path.join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`, '--web.console.templates=/dev/null', '--web.console.libraries=/dev/null',
    ], { stdio: ['ignore', 'pipe', 'pipe'] });
    prom.stdout!.on('data', (d) => (log += d));
    prom.stderr!.on('data', (d) => (log += d));
    const query = async (q: string) => {
      const res = await fetch(`http://127.0.0.1:${port}/api/v1/query?query=${encodeURIComponent(q)}`);
      return (await res.json()) as { status: string; data: { result: Array<{ metric: Record<string, string>; value: [number, string] }> } };
    };
    const deadline = Date.now() + 90_000;
    let result: Array<{ metric: Record<string, string>; value: [number, string] }> = [];
    while (Date.now() < deadline) {
      if (prom.exitCode !== null) throw new Error(`prometheus exited with ${prom.exitCode}:\n${log}`);
      try {
        result = (await query(`upfleet_check_up{url_id="${down}"} == 0`)).data.result;
        if (result.length >= 2) break;
      } catch {
        // not listening yet
      }
      await new Promise((r) => setTimeout(r, 500));
    }
    expect(result.map((r) => [r.metric.endpoint, r.metric.region, r.metric.kind, r.value[1]]).sort()).toEqual([
      [NAME, 'EU-Germany', 'http', '0'],
      [NAME, 'US-Virginia', 'http', '0'],
    ]);
    expect((await query(`upfleet_check_up{url_id="${up}"} == 0`)).data.result).toEqual([]);
    const targets = (await (await fetch(`http://127.0.0.1:${port}/api/v1/targets`)).json()) as { data: { activeTargets: Array<{ health: string }> } };
    expect(targets.data.activeTargets.map((t) => t.health)).toEqual(['up']);
  }, 120_000);
});
