// One control plane per DATA_DIR: a second process on the same data refuses to start with one
// line, and the lock goes with its holder, also when the holder is killed with SIGKILL.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DataDirInUse, lockDataDir } from './data-dir-lock';

const REPO_ROOT = path.resolve(import.meta.dirname, '../../..');
const MAIN = path.join(REPO_ROOT, 'control-plane/src/main.ts');

const dirs: string[] = [];
const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'upfleet-lock-'));
  dirs.push(d);
  return d;
}

function startMain(dataDir: string) {
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN], {
    cwd: REPO_ROOT,
    env: { ...process.env, PORT: '0', GRPC_PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, EMBEDDED_AGENT: '0', LOG_LEVEL: 'info', NODE_ENV: 'test', WEB_DIST_DIR: path.join(dataDir, 'no-web') },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  return { child, output: () => out, exit };
}

async function running(p: ReturnType<typeof startMain>, dataDir: string): Promise<number> {
  const runtime = path.join(dataDir, 'runtime.json');
  await expect.poll(() => (fs.existsSync(runtime) && JSON.parse(fs.readFileSync(runtime, 'utf8')).pid === p.child.pid) || p.child.exitCode !== null, { timeout: 120_000, interval: 200 }).toBe(true);
  expect(p.child.exitCode, p.output()).toBeNull();
  return JSON.parse(fs.readFileSync(runtime, 'utf8')).httpPort as number;
}

describe('lockDataDir', () => {
  it('refuses a second holder of the same directory, naming the holder, until the first releases it', () => {
    const dir = tempDir();
    const first = lockDataDir(dir);
    expect(() => lockDataDir(dir)).toThrow(DataDirInUse);
    expect(() => lockDataDir(dir)).toThrow(`Another Upfleet control plane (pid ${process.pid}) is running on DATA_DIR ${dir}`);
    first.release();
    lockDataDir(dir).release();
  });
});

describe('two control-plane processes on one DATA_DIR', () => {
  it('the second stops with one line and exit code 1 while the first keeps serving; after kill -9 of the first a new one starts', async () => {
    const dataDir = tempDir();
    const first = startMain(dataDir);
    const port = await running(first, dataDir);

    const second = startMain(dataDir);
    expect((await second.exit).code).toBe(1);
    const lines = second.output().split('\n').filter((l) => l.startsWith('upfleet:'));
    expect(lines).toEqual([
      `upfleet: failed to start: Another Upfleet control plane (pid ${first.child.pid}) is running on DATA_DIR ${dataDir}: its SQLite database and embedded ClickHouse serve one process. Stop that one first, or give this one a DATA_DIR of its own.`,
    ]);
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);

    first.child.kill('SIGKILL');
    await first.exit;
    const third = startMain(dataDir);
    const thirdPort = await running(third, dataDir);
    expect((await fetch(`http://127.0.0.1:${thirdPort}/readyz`)).status).toBe(200);
    third.child.kill('SIGTERM');
    expect((await third.exit).code).toBe(0);
  }, 300_000);
});
