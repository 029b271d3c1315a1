// The cluster commands against the real control-plane process: `upfleet cluster status`, and
// `upfleet db copy` from its SQLite DATA_DIR into Postgres (refused while it runs, done once it is
// stopped, refused again on a non-empty target), after which it starts on that Postgres.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresMissing, startPostgres, type PostgresServer } from '../helpers/postgres';
import { REPO_ROOT, startStack, type Stack } from '../helpers/start-stack';

const BIN = path.join(REPO_ROOT, 'cli/bin/upfleet.js');
const missing = postgresMissing();

describe.skipIf(missing)(`cluster status and db copy with the real control plane${missing ? ` (skipped: ${missing})` : ''}`, () => {
  let stack: Stack | undefined;
  let pg: PostgresServer;
  let dataDir: string;
  const upfleet = (...args: string[]) => {
    const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 120_000, env: { ...process.env, DATA_DIR: '' } });
    return { code: r.status, out: r.stdout, err: r.stderr };
  };

  beforeAll(async () => {
    pg = await startPostgres();
    stack = await startStack();
    dataDir = stack.dataDir;
    // Something of every day to copy: an account with an endpoint.
    const signup = await fetch(`${stack.baseUrl}/api/auth/signup`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'copied', email: 'copied@example.com', password: 'correct horse' }),
    });
    expect(signup.status).toBe(201);
  }, 180_000);
  afterAll(async () => {
    await stack?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
    await pg?.stop();
  });

  it('upfleet cluster status shows the one process holding the lease', () => {
    const r = upfleet('cluster', 'status', '--server', stack!.baseUrl, '--data-dir', dataDir);
    expect(r.code, r.err).toBe(0);
    const lines = r.out.split('\n');
    expect(lines[0]).toMatch(/^PROCESS\s+HOST\s+PID\s+VERSION\s+STARTED\s+LAST SEEN\s+LEADER$/);
    expect(lines[1]).toMatch(new RegExp(`^[0-9a-f]{8} \\(answered\\)\\s+\\S+\\s+${stack!.process.pid}\\s.*\\syes$`));
    expect(r.out).toMatch(/\nLeader: [0-9a-f]{8} on \S+ \(pid \d+\), epoch \d+, since /);
    expect(r.out).toContain('Lease and processes: SQLite (one process per DATA_DIR)');
  });

  it('upfleet db copy refuses while the control plane runs, copies once it is stopped, and refuses a second time', async () => {
    const url = await pg.createDatabase();
    const running = upfleet('db', 'copy', '--to', url, '--data-dir', dataDir);
    expect(running.code).toBe(1);
    expect(running.err).toMatch(/^upfleet: db copy failed: Another Upfleet control plane \(pid \d+\) is running on DATA_DIR /);

    await stack!.stop();
    stack = undefined;
    const done = upfleet('db', 'copy', '--to', url, '--data-dir', dataDir);
    expect(done.code, done.err).toBe(0);
    expect(done.out).toMatch(/\n {2}users +1\n/); // the one account signed up
    expect(done.out).toMatch(/\n {2}workspaces +1\n/); // and its personal workspace, copied (not made again by the trigger)
    expect(done.out).toMatch(/\n\d+ tables, \d+ rows; the counts are equal in both databases\./);

    const again = upfleet('db', 'copy', '--to', url, '--data-dir', dataDir);
    expect(again.code).toBe(1);
    expect(again.err).toMatch(/^upfleet: db copy failed: Postgres is not empty \(table \w+ has \d+ rows\): copy only into a new, empty database\n$/);

    const bad = upfleet('db', 'copy', '--to', 'mysql://x@y/z', '--data-dir', dataDir);
    expect(bad.code).toBe(2);
    expect(bad.err).toBe("upfleet: --to must be a postgres:// URL (got 'mysql://x@y/z')\n");

    // The control plane starts on the copied Postgres (its schema current there) and is ready.
    stack = await startStack({ dataDir, env: { DATABASE_URL: url } });
    const ready = await fetch(`${stack.baseUrl}/readyz`);
    expect(await ready.json()).toEqual({ status: 'ready', checks: { database: 'ok', postgres: 'ok', clickhouse: 'ok' } });
    const status = upfleet('cluster', 'status', '--server', stack.baseUrl, '--data-dir', dataDir, '--json');
    expect(JSON.parse(status.out)).toMatchObject({ database: 'postgres', processes: [{ leader: true, this_process: true }] });
  }, 240_000);
});
