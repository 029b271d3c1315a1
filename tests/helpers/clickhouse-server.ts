// A real ClickHouse server without Docker: chDB's engine library (libchdb.so, installed with the
// `chdb` package) runs clickhouse-local, which opens the server's HTTP and TCP listeners. A tiny C
// launcher (clickhouse-launcher.c, compiled once per machine into the temp dir) dlopens the
// library and calls chdb_query_cmdline(); a long-running query keeps the process serving.
// No Keeper in this build: plain MergeTree and Distributed work, Replicated* and ON CLUSTER do not.
// The `default` database uses the Overlay engine: create a database of your own.
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const LAUNCHER_SOURCE = path.join(path.dirname(fileURLToPath(import.meta.url)), 'clickhouse-launcher.c');
// Listeners first (TCP before HTTP, so an answer over HTTP means both are bound); then a query
// that sleeps a second per row of an endless table keeps the process serving until SIGTERM.
const SERVE_QUERY =
  'SYSTEM START LISTEN TCP; SYSTEM START LISTEN HTTP; ' +
  'SELECT sleepEachRow(1) FROM system.numbers SETTINGS max_block_size = 1 FORMAT Null';

export interface ClickHouseServer {
  /** HTTP interface, e.g. http://127.0.0.1:41234 (user `default`, no password). */
  url: string;
  httpPort: number;
  tcpPort: number;
  dataDir: string;
  pid: number;
  /** Milliseconds from spawn until the server answered over HTTP. */
  startMs: number;
  /** Runs one statement over HTTP and returns the body; throws with ClickHouse's message on an error. */
  query(sql: string): Promise<string>;
  output(): string;
  /** SIGTERM and wait for the process to exit; removes the data dir unless the caller gave it. */
  stop(): Promise<void>;
}

export interface ClickHouseServerOptions {
  /** Reuse a data dir (restarts); it is then kept on stop(). A fresh temp dir otherwise. */
  dataDir?: string;
  /** Fixed ports (restarts, cluster members); free ports otherwise. */
  httpPort?: number;
  tcpPort?: number;
  /** An XML config (remote_servers, macros) passed as --config-file. */
  configFile?: string;
  timeoutMs?: number;
}

const require = createRequire(import.meta.url);

function libchdbPath(): string | null {
  try {
    const dir = path.dirname(require.resolve('@chdb/lib-linux-x64-gnu/package.json'));
    const lib = path.join(dir, 'libchdb.so');
    return fs.existsSync(lib) ? lib : null;
  } catch {
    return null;
  }
}

/** Why a server cannot run on this machine, or null when it can. */
export function clickhouseServerUnavailable(): string | null {
  if (!libchdbPath()) return 'libchdb.so (@chdb/lib-linux-x64-gnu) is not installed on this platform';
  try {
    execFileSync('cc', ['--version'], { stdio: 'ignore' });
  } catch {
    return 'no C compiler (cc) to build the launcher';
  }
  return null;
}

let launcher: string | null = null;

/** Compiles the launcher once per source version; concurrent compiles race harmlessly via rename. */
function launcherPath(): string {
  if (launcher && fs.existsSync(launcher)) return launcher;
  const source = fs.readFileSync(LAUNCHER_SOURCE);
  const hash = createHash('sha256').update(source).digest('hex').slice(0, 16);
  const dir = path.join(os.tmpdir(), 'upfleet-clickhouse-launcher');
  const bin = path.join(dir, `launcher-${hash}`);
  if (!fs.existsSync(bin)) {
    fs.mkdirSync(dir, { recursive: true });
    const tmp = `${bin}.${process.pid}.tmp`;
    execFileSync('cc', ['-O2', '-o', tmp, LAUNCHER_SOURCE, '-ldl'], { stdio: ['ignore', 'ignore', 'pipe'] });
    fs.renameSync(tmp, bin);
  }
  launcher = bin;
  return bin;
}

/** A port free at the time of asking (the kernel's choice for port 0). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

async function httpQuery(url: string, sql: string): Promise<string> {
  const res = await fetch(`${url}/`, { method: 'POST', body: sql });
  const body = await res.text();
  if (!res.ok) throw new Error(`ClickHouse at ${url}: ${body.trim()}`);
  return body;
}

export async function startClickHouseServer(opts: ClickHouseServerOptions = {}): Promise<ClickHouseServer> {
  const fixedPorts = opts.httpPort !== undefined || opts.tcpPort !== undefined;
  // A free port can be taken between asking and binding: try again with new ones.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(opts);
    } catch (err) {
      if (fixedPorts || attempt >= 3 || !(err instanceof PortInUseError)) throw err;
    }
  }
}

/** The server could not bind its ports (taken since they were picked). */
export class PortInUseError extends Error {}

async function startOnce(opts: ClickHouseServerOptions): Promise<ClickHouseServer> {
  const lib = libchdbPath();
  if (!lib) throw new Error(clickhouseServerUnavailable() ?? 'libchdb.so not found');
  const bin = launcherPath();
  const ownDir = opts.dataDir === undefined;
  const dataDir = opts.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'upfleet-clickhouse-'));
  const httpPort = opts.httpPort ?? (await freePort());
  const tcpPort = opts.tcpPort ?? (await freePort());
  const url = `http://127.0.0.1:${httpPort}`;
  const args = [
    lib,
    ...(opts.configFile ? [`--config-file=${opts.configFile}`] : []),
    `--path=${dataDir}`,
    '--listen_host=127.0.0.1',
    `--http_port=${httpPort}`,
    `--tcp_port=${tcpPort}`,
    `--query=${SERVE_QUERY}`,
  ];
  const started = performance.now();
  const child = spawn(bin, args, { cwd: dataDir, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const keep = (d: Buffer) => {
    out = (out + d.toString()).slice(-20_000);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const removeDir = () => {
    if (ownDir) fs.rmSync(dataDir, { recursive: true, force: true });
  };

  const deadline = Date.now() + (opts.timeoutMs ?? 60_000);
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      removeDir();
      const msg = `clickhouse server exited (${child.exitCode ?? child.signalCode}) before answering:\n${out}`;
      throw /address already in use|NETWORK_ERROR|Cannot bind|Net Exception/i.test(out) ? new PortInUseError(msg) : new Error(msg);
    }
    try {
      // Ours, not another process that holds the port: it must serve our data dir and TCP port.
      const [servedPath, servedTcp] = (await httpQuery(url, "SELECT getServerSetting('path'), tcpPort() FORMAT TSV")).trim().split('\t');
      if (path.resolve(servedPath) === path.resolve(dataDir) && Number(servedTcp) === tcpPort) break;
      throw new PortInUseError(`port ${httpPort} answers for another server (${servedPath})`);
    } catch (err) {
      if (err instanceof PortInUseError) {
        child.kill('SIGKILL');
        await exited;
        removeDir();
        throw err;
      }
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      await exited;
      removeDir();
      throw new Error(`clickhouse server did not answer on ${url} in time:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  const startMs = Math.round(performance.now() - started);

  return {
    url,
    httpPort,
    tcpPort,
    dataDir,
    pid: child.pid!,
    startMs,
    query: (sql) => httpQuery(url, sql),
    output: () => out,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
        await exited;
        clearTimeout(timer);
      }
      removeDir();
    },
  };
}
