// Entry of the single executable (dist/agent/upfleet-agent-linux-x64, built by agent/sea/build.ts).
// The executable carries the agent as one script plus assets: the SQLite addon, the .proto file,
// the probe worker thread's script, and Playwright (for browser checks, written out on the first
// one). They are written once to a private cache dir (owner only, named by the build's hash) and
// loaded from there; then agent/src/main.ts runs with the same flags and UPFLEET_* variables as
// `upfleet agent run`.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, lstatSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { getAsset } from 'node:sea';
import { AGENT_USAGE } from '../src/config';

declare const __UPFLEET_BUILD_ID__: string;
declare const __UPFLEET_AGENT_VERSION__: string;
/** sha256 (hex) of each asset, computed at build time. */
declare const __UPFLEET_ASSET_SHA256__: Record<string, string>;

/** The assets, where they go under the cache dir (the bundle's import.meta.url is cacheDir/agent.js). */
export const SEA_ASSETS: Record<string, string> = {
  'better_sqlite3.node': 'better_sqlite3.node',
  'agent_service.proto': 'upfleet/agent/v1/agent_service.proto',
  'probe-worker-boot.mjs': 'probe-worker-boot.mjs',
};

/** Set for the child that writes assets out (extractAssets): the job, as JSON. */
const EXTRACT_ENV = 'UPFLEET_SEA_EXTRACT';

/** Playwright and the files it reads beside itself: written out on the first browser check only. */
export const SEA_BROWSER_ASSETS: Record<string, string> = {
  'playwright-core.cjs': 'playwright-core/lib/playwright-core.cjs',
  'playwright-core/package.json': 'playwright-core/package.json',
  'playwright-core/browsers.json': 'playwright-core/browsers.json',
};

/** $UPFLEET_CACHE_DIR, systemd's $CACHE_DIRECTORY, $XDG_CACHE_HOME or ~/.cache, else the temp dir (per user). */
function cacheRoot(): string {
  const env = process.env;
  if (env.UPFLEET_CACHE_DIR) return env.UPFLEET_CACHE_DIR;
  if (env.CACHE_DIRECTORY) return env.CACHE_DIRECTORY.split(':')[0];
  const home = os.homedir();
  const xdg = env.XDG_CACHE_HOME || (home && home !== '/' ? path.join(home, '.cache') : '');
  if (xdg) {
    try {
      mkdirSync(xdg, { recursive: true, mode: 0o700 });
      return path.join(xdg, 'upfleet-agent');
    } catch {
      // not writable (a system user without a home): the temp dir below
    }
  }
  return path.join(os.tmpdir(), `upfleet-agent-${process.getuid?.() ?? 'user'}`);
}

/** A dir only this user can write: anyone else could swap the addon we are about to load. */
function privateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = lstatSync(dir);
  if (!st.isDirectory() || (process.getuid && st.uid !== process.getuid())) throw new Error(`${dir} is not a directory of this user`);
  if ((st.mode & 0o077) !== 0) chmodSync(dir, 0o700);
}

function cacheDir(): string {
  const root = cacheRoot();
  privateDir(root);
  const dir = path.join(root, __UPFLEET_BUILD_ID__);
  privateDir(dir);
  return dir;
}

const sha256 = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');

/** The assets of a list whose file under dir is missing or not exactly the carried one. */
function staleAssets(dir: string, assets: Record<string, string>): string[] {
  // checked against the build's hash, so the carried copy is not read
  return Object.keys(assets).filter((name) => {
    const file = path.join(dir, assets[name]);
    return !existsSync(file) || sha256(readFileSync(file)) !== __UPFLEET_ASSET_SHA256__[name];
  });
}

/** Writes carried assets under dir (in the extracting child, see extractAssets). */
function writeAssets(dir: string, names: string[]): void {
  const where = { ...SEA_ASSETS, ...SEA_BROWSER_ASSETS };
  for (const name of names) {
    const file = path.join(dir, where[name]);
    const data = Buffer.from(getAsset(name));
    if (sha256(data) !== __UPFLEET_ASSET_SHA256__[name]) throw new Error(`asset ${name} does not match its build hash`);
    mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, data, { mode: 0o600 });
    renameSync(tmp, file);
  }
}

/** Makes sure the files of the assets are under dir; returns dir. */
function extractAssets(dir: string, assets: Record<string, string>): string {
  const stale = staleAssets(dir, assets);
  if (!stale.length) return dir;
  // A short-lived copy of this executable reads the carried copies: the executable's pages it
  // touches (~3.5 MB on a first start) then count in its RSS, never in the agent's.
  const r = spawnSync(process.execPath, [], {
    env: { ...process.env, [EXTRACT_ENV]: JSON.stringify({ dir, names: stale }) }, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(r.stderr.trim() || `extracting the assets failed (${r.status ?? r.signal})`);
  if (staleAssets(dir, assets).length) throw new Error(`assets not written under ${dir}`);
  return dir;
}

function main(): void {
  const job = process.env[EXTRACT_ENV];
  if (job) {
    try {
      const { dir, names } = JSON.parse(job) as { dir: string; names: string[] };
      writeAssets(dir, names);
    } catch (err) {
      process.stderr.write(`${(err as Error).message}\n`);
      process.exitCode = 1;
    }
    return;
  }
  const argv = process.argv.slice(2);
  if (argv.includes('--version') || argv.includes('-v')) {
    process.stdout.write(`upfleet-agent ${__UPFLEET_AGENT_VERSION__} (node ${process.version}, linux-x64)\n`);
    return;
  }
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(`${AGENT_USAGE.replace('upfleet agent run', 'upfleet-agent')}\n  [--version] [--help]\n`);
    return;
  }
  let dir: string;
  try {
    dir = extractAssets(cacheDir(), SEA_ASSETS);
  } catch (err) {
    process.stderr.write(`upfleet-agent: cannot prepare the cache dir (set UPFLEET_CACHE_DIR to a writable dir): ${(err as Error).message}\n`);
    process.exitCode = 1;
    return;
  }
  const g = globalThis as { __upfleetSeaUrl?: string; __upfleetSqliteBinding?: object };
  g.__upfleetSeaUrl = pathToFileURL(path.join(dir, 'agent.js')).href;
  const addon = { exports: {} as object };
  process.dlopen(addon, path.join(dir, SEA_ASSETS['better_sqlite3.node']));
  g.__upfleetSqliteBinding = addon.exports;
  // agent/src/probers/browser/playwright.ts: the first browser check writes Playwright out and loads it from disk
  (g as { __upfleetLoadPlaywright?: () => unknown }).__upfleetLoadPlaywright = () => {
    const file = path.join(extractAssets(dir, SEA_BROWSER_ASSETS), SEA_BROWSER_ASSETS['playwright-core.cjs']);
    return createRequire(file)(file);
  };
  // Loaded after the setup above: the agent's modules read import.meta.url when they load.
  void import('../src/main');
}

main();
