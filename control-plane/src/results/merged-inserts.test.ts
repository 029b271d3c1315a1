// Merged inserts on real chDB: batches stored together, each exactly once in the raw table and
// both rollups, however it is re-sent (alone, next to new batches, after a failed or interrupted
// insert, after a restart).
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import Database from 'better-sqlite3';
import type { CheckResult } from '@upfleet/proto';
import { createResultStore, type ClickHouseResultStore, type ResultStoreOptions } from './clickhouse-store';
import { encodeRows } from './row-encoding';

const logger = pino({ level: 'silent' });
const HOUR = 3_600_000;
const T0 = Math.floor(Date.now() / HOUR) * HOUR - 3 * HOUR;
let nextEndpoint = 7000;

function batch(endpointId: number, n: number): CheckResult[] {
  return Array.from({ length: n }, (_, i) => ({
    check_id: `${endpointId}:http`, endpoint_id: endpointId, kind: 'CHECK_KIND_HTTP', region: 'EU-Germany',
    ts_ms: T0 + i * 60_000, ok: true, phase: '', error: '', status_code: 200, dns_ms: 1, connect_ms: 1, tls_ms: 0,
    ttfb_ms: 5, total_ms: 10 + i, cert_days_left: 0, cert_not_after_ms: 0, cert_issuer: '', cert_subject: '',
    ping_method: '', redirects: 0, retention_days: 30, result_id: `${endpointId}-${i}`,
  }));
}

describe('merged inserts on chDB', () => {
  let dir: string;
  let store: ClickHouseResultStore;
  const open = async (over: Partial<ResultStoreOptions> = {}) => {
    const s = createResultStore({ clickhouseUrl: null, dataDir: dir, logger, ...over });
    await s.init();
    return s;
  };
  /** Rows of one endpoint in the raw table and each rollup (the rollups count results, not rows). */
  const counts = async (ep: number) =>
    Promise.all((['raw', '1m', '1h'] as const).map((table) => store.countResults({ endpointId: ep, table })));
  const ledgerGroups = () => {
    const db = new Database(path.join(dir, 'ingest-ledger-upfleet.sqlite'), { readonly: true });
    try {
      return db.prepare('SELECT COUNT(*) FROM groups').pluck().get() as number;
    } finally {
      db.close();
    }
  };

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'upfleet-merged-'));
    store = await open();
  }, 60_000);
  afterAll(async () => {
    await store?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('stores batches that arrive together in fewer inserts, every result once in raw and rollups', async () => {
    const eps = Array.from({ length: 20 }, () => nextEndpoint++);
    const groupsBefore = ledgerGroups();
    await Promise.all(eps.map((ep) => store.insertBatch(`together-${ep}`, 'a', batch(ep, 30))));
    expect(ledgerGroups() - groupsBefore).toBeLessThan(20);
    for (const ep of eps) expect(await counts(ep)).toEqual([30, 30, 30]);
  });

  it('stores a re-sent batch once, whether re-sent alone, next to new batches or after a restart', async () => {
    const [a, b, c, d] = [nextEndpoint++, nextEndpoint++, nextEndpoint++, nextEndpoint++];
    await Promise.all([store.insertBatch('rs-a', 'x', batch(a, 40)), store.insertBatch('rs-b', 'x', batch(b, 40)), store.insertBatch('rs-c', 'x', batch(c, 40))]);
    await store.insertBatch('rs-a', 'x', batch(a, 40));
    await Promise.all([store.insertBatch('rs-b', 'x', batch(b, 40)), store.insertBatch('rs-d', 'x', batch(d, 40)), store.insertBatch('rs-a', 'x', batch(a, 40))]);
    await store.close();
    store = await open();
    await store.insertBatch('rs-c', 'x', batch(c, 40));
    for (const ep of [a, b, c, d]) expect(await counts(ep)).toEqual([40, 40, 40]);
  });

  it('re-runs a merged insert that failed after it had landed, with its own token, and counts it once', async () => {
    const eps = [nextEndpoint++, nextEndpoint++, nextEndpoint++];
    let failing = true;
    await store.close();
    // One insert lane: the first batch goes alone, the next two wait and are merged.
    store = await open({
      insertLanes: 1,
      wrapGroupInsert: (insert) => async (token, body) => {
        await insert(token, body);
        if (failing) throw new Error('connection lost after the insert');
      },
    });
    const groupsBefore = ledgerGroups();
    const first = await Promise.allSettled(eps.map((ep) => store.insertBatch(`fl-${ep}`, 'x', batch(ep, 25))));
    expect(first.every((r) => r.status === 'rejected')).toBe(true);
    expect(ledgerGroups() - groupsBefore).toBe(2);
    failing = false;
    // The agent re-sends what was not acked, one by one; then all at once, as after a reconnect.
    for (const ep of eps) await store.insertBatch(`fl-${ep}`, 'x', batch(ep, 25));
    await Promise.all(eps.map((ep) => store.insertBatch(`fl-${ep}`, 'x', batch(ep, 25))));
    for (const ep of eps) expect(await counts(ep)).toEqual([25, 25, 25]);
  });

  it('finishes at start-up a merged insert interrupted before or after it ran, and a re-send adds nothing', async () => {
    for (const when of ['before', 'after'] as const) {
      const eps = [nextEndpoint++, nextEndpoint++, nextEndpoint++];
      await store.close();
      // "Crash": the insert of a recorded group never returns (it ran or it did not), then a restart.
      store = await open({
        insertLanes: 1,
        wrapGroupInsert: (insert) => async (token, body) => {
          if (when === 'after') await insert(token, body);
          throw new Error('process killed');
        },
      });
      await Promise.allSettled(eps.map((ep) => store.insertBatch(`cr-${when}-${ep}`, 'x', batch(ep, 15))));
      await store.close();
      store = await open();
      for (const ep of eps) expect(await counts(ep)).toEqual([15, 15, 15]);
      await Promise.all(eps.map((ep) => store.insertBatch(`cr-${when}-${ep}`, 'x', batch(ep, 15))));
      for (const ep of eps) expect(await counts(ep)).toEqual([15, 15, 15]);
    }
  });

  it('replays a group an older version recorded as JSONCompactEachRow (a ledger without a format column), once', async () => {
    const ep = nextEndpoint++;
    const rows = batch(ep, 12);
    // The ledger as the previous version left it after a crash: the group recorded, never stored.
    const old = new Database(path.join(dir, 'ingest-ledger-legacy.sqlite'));
    old.exec(`
      CREATE TABLE groups (token TEXT PRIMARY KEY, payload BLOB, created_at INTEGER NOT NULL, stored_at INTEGER);
      CREATE TABLE batches (batch_id TEXT PRIMARY KEY, token TEXT NOT NULL REFERENCES groups(token));`);
    const json = rows.map((r) => JSON.stringify([
      (r.ts_ms / 1000).toFixed(3), r.endpoint_id, 'http', r.region, 1, '', r.status_code, r.dns_ms, r.connect_ms, r.tls_ms, r.ttfb_ms,
      r.total_ms, 0, null, '', '', '', '', 0, 30, r.result_id, 'x',
    ])).join('\n');
    old.prepare('INSERT INTO groups (token, payload, created_at) VALUES (?, ?, ?)').run('group-legacy', Buffer.from(json), Date.now());
    old.prepare('INSERT INTO batches (batch_id, token) VALUES (?, ?)').run('legacy-1', 'group-legacy');
    old.close();
    const legacy = createResultStore({ clickhouseUrl: null, dataDir: dir, logger, database: 'legacy' });
    try {
      await legacy.init();
      const count = (table: 'raw' | '1m' | '1h') => legacy.countResults({ endpointId: ep, table });
      expect([await count('raw'), await count('1m'), await count('1h')]).toEqual([12, 12, 12]);
      const stored = await legacy.select<{ total: number }>('SELECT sum(total_ms) AS total FROM legacy.check_results WHERE endpoint_id = {ep:UInt64}', { ep });
      expect(stored[0].total).toBe(rows.reduce((n, r) => n + r.total_ms, 0));
      // The agent re-sends it (now encoded as RowBinary): acknowledged, nothing added.
      await legacy.insertBatch('legacy-1', 'x', rows);
      await legacy.insertBatch('legacy-2', 'x', batch(nextEndpoint++, 5));
      expect([await count('raw'), await count('1m'), await count('1h')]).toEqual([12, 12, 12]);
    } finally {
      await legacy.command('DROP DATABASE IF EXISTS legacy');
      await legacy.close();
    }
  });
  it('replays a RowBinary group recorded before schema step 5 (without the browser columns) into the columns it has, once', async () => {
    const ep = nextEndpoint++;
    const rows = batch(ep, 7);
    // A row without browser details ends in 19 bytes of step-5 defaults; an older version wrote none.
    const STEP5_DEFAULT_BYTES = 19;
    const payload = Buffer.concat(rows.map((r) => encodeRows([r], 'x').subarray(0, -STEP5_DEFAULT_BYTES)));
    const old = new Database(path.join(dir, 'ingest-ledger-before5.sqlite'));
    old.exec(`
      CREATE TABLE groups (token TEXT PRIMARY KEY, payload BLOB, created_at INTEGER NOT NULL, stored_at INTEGER, format TEXT NOT NULL DEFAULT 'JSONCompactEachRow');
      CREATE TABLE batches (batch_id TEXT PRIMARY KEY, token TEXT NOT NULL REFERENCES groups(token));`);
    old.prepare('INSERT INTO groups (token, payload, created_at, format) VALUES (?, ?, ?, ?)').run('group-before5', payload, Date.now(), 'RowBinary');
    old.prepare('INSERT INTO batches (batch_id, token) VALUES (?, ?)').run('before5-1', 'group-before5');
    old.close();
    const store5 = createResultStore({ clickhouseUrl: null, dataDir: dir, logger, database: 'before5' });
    try {
      await store5.init();
      const stored = await store5.select<{ n: number; total: number; steps: number }>(
        'SELECT count() AS n, sum(total_ms) AS total, sum(length(step_ms)) AS steps FROM before5.check_results WHERE endpoint_id = {ep:UInt64}', { ep });
      expect(stored[0]).toEqual({ n: 7, total: rows.reduce((n, r) => n + r.total_ms, 0), steps: 0 });
      await store5.insertBatch('before5-1', 'x', rows);
      expect(await store5.countResults({ endpointId: ep })).toBe(7);
    } finally {
      await store5.command('DROP DATABASE IF EXISTS before5');
      await store5.close();
    }
  });
});
