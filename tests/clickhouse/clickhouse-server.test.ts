// The local ClickHouse server the server-mode suites run on: it serves HTTP on a free port, keeps
// its data across a restart, and leaves no process behind.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createClient } from '@clickhouse/client';
import { clickhouseServerUnavailable, startClickHouseServer, type ClickHouseServer } from '../helpers/clickhouse-server';

const unavailable = clickhouseServerUnavailable();
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe.skipIf(unavailable !== null)(`local ClickHouse server (clickhouse-local from libchdb)${unavailable ? ` (skipped: ${unavailable})` : ''}`, () => {
  const started: ClickHouseServer[] = [];
  const dirs: string[] = [];
  afterAll(async () => {
    await Promise.all(started.map((s) => s.stop()));
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  it('serves the HTTP interface to @clickhouse/client on a free port, in a database of its own', async () => {
    const server = await startClickHouseServer();
    started.push(server);
    console.log(`local ClickHouse server answered ${server.startMs} ms after spawn`);
    const client = createClient({ url: server.url });
    try {
      const version = await (await client.query({ query: 'SELECT version() AS v', format: 'JSONEachRow' })).json<{ v: string }>();
      expect(version[0].v).toMatch(/^\d+\.\d+\./);
      await client.command({ query: 'CREATE DATABASE own' });
      await client.command({ query: "CREATE TABLE own.t (ts DateTime64(3, 'UTC'), v UInt32) ENGINE = MergeTree ORDER BY ts" });
      await client.insert({ table: 'own.t', values: [{ ts: '2026-01-01 00:00:00.123', v: 7 }], format: 'JSONEachRow' });
      const rows = await (await client.query({
        query: 'SELECT toUnixTimestamp64Milli(ts) AS ms, v FROM own.t WHERE v = {v:UInt32}',
        query_params: { v: 7 },
        format: 'JSONEachRow',
        clickhouse_settings: { output_format_json_quote_64bit_integers: 0 },
      })).json<{ ms: number; v: number }>();
      expect(rows).toEqual([{ ms: Date.UTC(2026, 0, 1, 0, 0, 0, 123), v: 7 }]);
    } finally {
      await client.close();
    }
  });

  it('keeps its data across a restart on the same data dir, and SIGTERM leaves no process', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'upfleet-clickhouse-restart-'));
    dirs.push(dataDir);
    const first = await startClickHouseServer({ dataDir });
    await first.query('CREATE DATABASE kept');
    await first.query('CREATE TABLE kept.t (n UInt64) ENGINE = MergeTree ORDER BY n');
    await first.query('INSERT INTO kept.t SELECT number FROM numbers(1000)');
    await first.stop();
    expect(alive(first.pid)).toBe(false);
    const second = await startClickHouseServer({ dataDir });
    started.push(second);
    expect((await second.query('SELECT count(), sum(n) FROM kept.t FORMAT TSV')).trim()).toBe('1000\t499500');
    await second.stop();
    expect(alive(second.pid)).toBe(false);
    expect(fs.existsSync(dataDir)).toBe(true); // the caller's dir is the caller's
  });

  it('refuses to start on a port another server holds instead of answering for it', async () => {
    const holder = await startClickHouseServer();
    started.push(holder);
    await expect(startClickHouseServer({ httpPort: holder.httpPort })).rejects.toThrow(/another server|exited/);
    await expect(startClickHouseServer({ tcpPort: holder.tcpPort })).rejects.toThrow(/Address already in use/);
    expect((await holder.query('SELECT 1')).trim()).toBe('1');
  });

  it('leaves no launcher process of this test run behind', async () => {
    await Promise.all(started.splice(0).map((s) => s.stop()));
    const children = execFileSync('ps', ['-e', '-o', 'ppid=,args=']).toString().split('\n')
      .filter((l) => l.trim().split(/\s+/)[0] === String(process.pid));
    expect(children.filter((l) => l.includes('upfleet-clickhouse-launcher'))).toEqual([]);
  });
});
