// The ClickHouse connections of one result store: a query client and the insert lanes.
// Server mode: one HTTP client does both (settings travel with each request). Embedded chDB:
// inserts hand their payload bytes to the engine as they are (chDB's raw insert: no copy into
// an SQL string, settings in the INSERT's own SETTINGS clause), on connections of their own,
// each used serially, so one insert never waits behind a graph query.
import path from 'node:path';
import { mkdirSync } from 'node:fs';
import { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { createClient, type ClickHouseClient } from '@clickhouse/client';

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
  /** One INSERT of a JSONCompactEachRow payload, on the least busy lane after that lane's earlier inserts. */
  insertRows(insert: RowsInsert): Promise<void>;
  close(): Promise<void>;
}

export interface RowsInsert {
  /** `db.table` */
  table: string;
  columns: readonly string[];
  /** JSONCompactEachRow lines. */
  body: Buffer;
  settings: Record<string, string | number>;
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
      insertRows: async ({ table, columns, body, settings }) => {
        const res = await client.exec({
          query: `INSERT INTO ${table} (${columns.join(', ')}) FORMAT JSONCompactEachRow`,
          values: Readable.from([body], { objectMode: false }),
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
    async insertRows({ table, columns, body, settings }) {
      const lane = lanes.reduce((a, b) => (b.pending < a.pending ? b : a));
      lane.pending++;
      const p = lane.tail.then(() =>
        lane.conn.chdb.rawInsert({ table, columns, values: body, format: 'JSONCompactEachRow', settings: { max_memory_usage: 2_000_000_000, ...settings } }));
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
