import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresMissing, startPostgres, type PostgresServer } from './postgres';

const missing = postgresMissing();

describe.skipIf(missing)(`test Postgres${missing ? ` (skipped: ${missing})` : ''}`, () => {
  let server: PostgresServer;
  beforeAll(async () => { server = await startPostgres(); });
  afterAll(async () => { await server?.stop(); });

  it('serves a fresh database per call on loopback, owned by a non-root server', async () => {
    const a = await server.createDatabase();
    const b = await server.createDatabase();
    expect(a).not.toBe(b);
    const client = new pg.Client({ connectionString: a });
    await client.connect();
    try {
      await client.query('CREATE TABLE t (x int)');
      const { rows } = await client.query('SELECT current_database() AS db, version() AS v');
      expect(a.endsWith(`/${rows[0].db}`)).toBe(true);
      expect(rows[0].v).toMatch(/^PostgreSQL 15/);
    } finally {
      await client.end();
    }
    const other = new pg.Client({ connectionString: b });
    await other.connect();
    try {
      expect((await other.query("SELECT count(*)::int AS n FROM pg_tables WHERE tablename = 't'")).rows[0].n).toBe(0);
    } finally {
      await other.end();
    }
  });
});
