// Starts the real control plane (as `npm start` does, minus the web build) in a child process,
// on ephemeral ports with a fresh DATA_DIR. For e2e and browser tests.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface Stack {
  baseUrl: string;
  httpPort: number;
  grpcPort: number;
  dataDir: string;
  adminToken: string;
  process: ChildProcess;
  output(): string;
  /** SIGTERM and wait for exit. */
  stop(): Promise<void>;
  /** SIGKILL, no clean-up: for loss tests. */
  kill(): Promise<void>;
}

export interface StackOptions {
  env?: Record<string, string>;
  embeddedAgent?: boolean;
  /** Reuse a data dir (restart tests); a fresh temp dir otherwise. */
  dataDir?: string;
  timeoutMs?: number;
  /** Extra node flags before main.ts (e.g. `--import` of a bench probe). */
  nodeArgs?: string[];
}

export async function startStack(opts: StackOptions = {}): Promise<Stack> {
  const dataDir = opts.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'upfleet-stack-'));
  const runtimeFile = path.join(dataDir, 'runtime.json');
  fs.rmSync(runtimeFile, { force: true });
  const child = spawn(process.execPath, ['--import', 'tsx', ...(opts.nodeArgs ?? []), path.join(REPO_ROOT, 'control-plane/src/main.ts')], {
    cwd: REPO_ROOT,
    env: {
      ...process.env,
      PORT: '0',
      GRPC_PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      EMBEDDED_AGENT: opts.embeddedAgent ? '1' : '0',
      LOG_LEVEL: 'warn',
      NODE_ENV: 'test',
      RATE_LIMIT_IP_SIGNUPS: '100000',
      RATE_LIMIT_IP_LOGINS: '100000',
      RATE_LIMIT_IP_REFRESHES: '100000', RATE_LIMIT_ENDPOINT_MUTATIONS_PER_MINUTE: '100000',
      ...opts.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const deadline = Date.now() + (opts.timeoutMs ?? 90_000);
  while (!fs.existsSync(runtimeFile)) {
    if (child.exitCode !== null) throw new Error(`control plane exited with ${child.exitCode}:\n${out}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`control plane did not start in time:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  const runtime = JSON.parse(fs.readFileSync(runtimeFile, 'utf8')) as { httpPort: number; grpcPort: number };
  return {
    baseUrl: `http://127.0.0.1:${runtime.httpPort}`,
    httpPort: runtime.httpPort,
    grpcPort: runtime.grpcPort,
    dataDir,
    adminToken: fs.readFileSync(path.join(dataDir, 'admin-token'), 'utf8').trim(),
    process: child,
    output: () => out,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
    async kill() {
      if (child.exitCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}
