// The ClickHouse connections of one result store: a query client and the insert lanes.
// Server mode: one HTTP client does both (settings travel with each request, the payload is the
// request body). Embedded chDB: the payload is written to a spool file the engine reads with
// INSERT ... FROM INFILE (settings in the INSERT's own SETTINGS clause), on connections of their
// own, each used serially, so one insert never waits behind a graph query. A file, not the query
// text: chDB takes inline data only as text (a binary payload is cut at a blank line), and a
// text format costs the engine four times RowBinary's parsing (docs/scaling.md).
import path from 'node:path';
import { mkdirSync, rmSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { createClient, type ClickHouseClient } from '@clickhouse/client';
import type { Payload } from './row-encoding';

export interface ConnectionOptions {
  clickhouseUrl: string | null;
  /** Embedded mode keeps its data under `${dataDir}/clickhouse`. */
  dataDir: string;
  /** Embedded mode: parallel insert connections. */
  insertLanes?: number;
}

export interface Connection {
  readonly mode: 'embedded' | 'server';
  /** For queries and DDL. */
  readonly query: ClickHouseClient;
  /** One INSERT of a payload, on the least busy lane after that lane's earlier inserts. */
  insertRows(insert: RowsInsert): Promise<void>;
  close(): Promise<void>;
}

export interface RowsInsert {
  /** `db.table` */
  table: string;
  columns: readonly string[];
  payload: Payload;
  settings: Record<string, string | number>;
}

/** A string literal for ClickHouse SQL: quotes, backslashes and control characters escaped. */
export function sqlString(s: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are what this escapes
  return `'${s.replace(/[\x00-\x1f'\\]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`)}'`;
}

function settingsClause(settings: Record<string, string | number>): string {
  return Object.entries(settings)
    .map(([k, v]) => {
      if (!/^[a-z_][a-z0-9_]*$/.test(k)) throw new Error(`invalid setting name '${k}'`);
      return `${k} = ${typeof v === 'number' && Number.isFinite(v) ? v : sqlString(String(v))}`;
    })
    .join(', ');
}

type ChdbConnection = ReturnType<typeof import('chdb/connection').createChdbConnection>;
interface Lane { conn: ChdbConnection; tail: Promise<unknown>; pending: number }

// libchdb binds one data directory per process: every embedded store in this process must share it.
let embeddedPath: string | null = null;
let embeddedStores = 0;

export async function openConnection(opts: ConnectionOptions): Promise<Connection> {
  if (opts.clickhouseUrl) {
    const client = createClient({
      url: opts.clickhouseUrl,
      max_open_connections: 16,
      request_timeout: 60_000,
      clickhouse_settings: { output_format_json_quote_64bit_integers: 0 },
    });
    return {
      mode: 'server',
      query: client,
      insertRows: async ({ table, columns, payload, settings }) => {
        const res = await client.exec({
          query: `INSERT INTO ${table} (${columns.join(', ')}) FORMAT ${payload.format}`,
          values: Readable.from([payload.body], { objectMode: false }),
          clickhouse_settings: settings,
        });
        // Drained, not destroyed: a destroyed socket leaves the client warning of ECONNRESET.
        res.stream.resume();
        await finished(res.stream);
      },
      close: () => client.close(),
    };
  }

  const dir = path.resolve(opts.dataDir, 'clickhouse');
  if (embeddedPath && embeddedPath !== dir) {
    throw new Error(`chDB is already open at ${embeddedPath} in this process; it binds one data directory per process (asked for ${dir})`);
  }
  mkdirSync(dir, { recursive: true });
  // Insert payloads on their way into the engine, one file per insert, deleted once it returns.
  const spool = path.resolve(opts.dataDir, 'ingest-spool');
  // Files left by a crash: what they held is in the ledger, or was never acked (the agent re-sends it).
  if (embeddedStores === 0) rmSync(spool, { recursive: true, force: true });
  mkdirSync(spool, { recursive: true, mode: 0o700 });
  // Imported here so server mode never loads the native engine.
  const { createChdbConnection } = await import('chdb/connection');
  const query = createClient({
    connection: createChdbConnection({ path: dir }),
    // Embedded shares the machine with everything else: cap each query.
    clickhouse_settings: { max_memory_usage: '2000000000', output_format_json_quote_64bit_integers: 0 },
  } as Parameters<typeof createClient>[0]);
  embeddedPath = dir;
  embeddedStores++;
  let lanes: Lane[] = Array.from({ length: Math.max(1, opts.insertLanes ?? 2) }, () => ({
    conn: createChdbConnection({ path: dir }),
    tail: Promise.resolve(),
    pending: 0,
  }));

  return {
    mode: 'embedded',
    query,
    async insertRows({ table, columns, payload, settings }) {
      const lane = lanes.reduce((a, b) => (b.pending < a.pending ? b : a));
      lane.pending++;
      const p = lane.tail.then(async () => {
        const file = path.join(spool, `${randomUUID()}.bin`);
        await writeFile(file, payload.body, { mode: 0o600 });
        try {
          await lane.conn.chdb.queryAsync(
            `INSERT INTO ${table} (${columns.join(', ')}) FROM INFILE ${sqlString(file)} ` +
            `SETTINGS ${settingsClause({ max_memory_usage: 2_000_000_000, ...settings })} FORMAT ${payload.format}`);
        } finally {
          await rm(file, { force: true });
        }
      });
      lane.tail = p.catch(() => undefined).finally(() => lane.pending--);
      await p;
    },
    async close() {
      await Promise.allSettled(lanes.map((l) => l.tail));
      await query.close();
      for (const l of lanes) await l.conn.close();
      lanes = [];
      embeddedStores--;
      if (embeddedStores === 0) {
        embeddedPath = null;
        // Lets a later store open another directory: the engine releases its old one only when idle.
        const { drainPending } = await import('chdb');
        await drainPending();
      }
    },
  };
}
