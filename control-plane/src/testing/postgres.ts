// A real PostgreSQL for tests: Debian's postgresql-15 binaries (`.ci/run` installs them), a fresh
// cluster in a temp dir on a free loopback port, its unix socket in the same dir. Postgres refuses
// to run as root, and tests run as root in CI: the cluster then belongs to `nobody`.
// One server per test file (startPostgres in beforeAll), one database per test (createDatabase).
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';

export const POSTGRES_BIN = '/usr/lib/postgresql/15/bin';

/** Why Postgres tests cannot run here, or null when the binaries are present. */
export function postgresMissing(): string | null {
  return fs.existsSync(path.join(POSTGRES_BIN, 'postgres')) && fs.existsSync(path.join(POSTGRES_BIN, 'initdb'))
    ? null
    : `PostgreSQL 15 binaries not found in ${POSTGRES_BIN} (apt-get install postgresql)`;
}

export interface PostgresServer {
  port: number;
  /** Server URL without a database (connects to `postgres`). */
  url: string;
  /** Creates an empty database and returns its postgres:// URL. */
  createDatabase(name?: string): Promise<string>;
  stop(): Promise<void>;
}

const NOBODY = { uid: 65534, gid: 65534 };

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

/** The command line, run as `nobody` when we are root (setpriv execs, so the pid is postgres'). */
function asOwner(bin: string, args: string[]): [string, string[]] {
  if (process.getuid?.() !== 0) return [bin, args];
  return ['setpriv', [`--reuid=${NOBODY.uid}`, `--regid=${NOBODY.gid}`, '--clear-groups', '--', bin, ...args]];
}

export async function startPostgres(opts: { timeoutMs?: number } = {}): Promise<PostgresServer> {
  const missing = postgresMissing();
  if (missing) throw new Error(missing);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'upfleet-pg-'));
  const dataDir = path.join(dir, 'data');
  if (process.getuid?.() === 0) fs.chownSync(dir, NOBODY.uid, NOBODY.gid);
  const [initCmd, initArgs] = asOwner(path.join(POSTGRES_BIN, 'initdb'), [
    '-D', dataDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C', '--no-sync', '--no-instructions',
  ]);
  execFileSync(initCmd, initArgs, { stdio: 'pipe', cwd: dir });

  let child: ChildProcess | null = null;
  let port = 0;
  let output = '';
  const deadline = Date.now() + (opts.timeoutMs ?? 60_000);
  // A free port can be taken between the probe and the bind: another port then.
  for (let attempt = 0; attempt < 5 && !child; attempt++) {
    port = await freePort();
    const [cmd, args] = asOwner(path.join(POSTGRES_BIN, 'postgres'), [
      '-D', dataDir, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', `unix_socket_directories=${dir}`,
      // A test database: durability is not the point, speed on a shared machine is.
      '-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off', '-c', 'shared_buffers=16MB',
      '-c', 'max_connections=200',
    ]);
    const c = spawn(cmd, args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    output = '';
    c.stdout!.on('data', (d: Buffer) => { output += d.toString(); });
    c.stderr!.on('data', (d: Buffer) => { output += d.toString(); });
    let exited = false;
    c.once('exit', () => { exited = true; });
    while (!exited && Date.now() < deadline) {
      if (await canConnect(port)) { child = c; break; }
      await new Promise((r) => setTimeout(r, 100));
    }
    if (!child) c.kill('SIGKILL');
  }
  if (!child) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw new Error(`postgres did not start: ${output.trim().split('\n').slice(-5).join(' | ')}`);
  }
  const server = child;
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  let dbCount = 0;
  return {
    port,
    url,
    async createDatabase(name = `t${++dbCount}_${process.pid}`) {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE "${name.replace(/"/g, '')}"`);
      } finally {
        await client.end();
      }
      return `postgres://postgres@127.0.0.1:${port}/${name}`;
    },
    async stop() {
      if (server.exitCode === null && server.signalCode === null) {
        const exited = new Promise((r) => server.once('exit', r));
        server.kill('SIGINT'); // fast shutdown: ends open connections, no wait for clients
        await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
        if (server.exitCode === null && server.signalCode === null) server.kill('SIGKILL');
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function canConnect(port: number): Promise<boolean> {
  const client = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', database: 'postgres', connectionTimeoutMillis: 1000 });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.end();
    return true;
  } catch {
    await client.end().catch(() => {});
    return false;
  }
}
