// `npm run build:agent`: the agent as one Node single executable application.
//   1. esbuild bundles agent/sea/main.ts (the agent and its dependencies) into one CommonJS script,
//      and the probe worker thread into one ES module;
//   2. `node --experimental-sea-config` turns the script and the assets (SQLite addon, .proto,
//      worker) into a blob;
//   3. postject injects the blob into a copy of this node binary (which carries the SEA fuse).
// Writes dist/agent/upfleet-agent-linux-x64 and its .sha256 (`sha256sum -c` format). Skips all of
// it when the sources are unchanged since the last build (hash in dist/agent/.build-id).
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const AGENT_DIST_DIR = path.join(REPO_ROOT, 'dist/agent');
export const AGENT_BINARY_NAME = 'upfleet-agent-linux-x64';
const SEA_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';

const requireAgent = createRequire(path.join(REPO_ROOT, 'agent/package.json'));

function filesUnder(dir: string, out: string[] = []): string[] {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) {
      if (e.name !== 'node_modules' && e.name !== 'testing') filesUnder(p, out);
    } else if (!e.name.endsWith('.test.ts')) out.push(p);
  }
  return out;
}

/** Hash of what goes into the executable: agent and proto sources, the lockfile, node itself. */
export function agentSourceHash(): string {
  const h = createHash('sha256');
  const files = [...filesUnder(path.join(REPO_ROOT, 'agent/src')), ...filesUnder(path.join(REPO_ROOT, 'agent/sea')), ...filesUnder(path.join(REPO_ROOT, 'proto'))];
  for (const f of [...files.sort(), path.join(REPO_ROOT, 'package-lock.json')]) {
    h.update(path.relative(REPO_ROOT, f)).update('\0').update(readFileSync(f)).update('\0');
  }
  h.update(process.version).update(String(statSync(process.execPath).size));
  return h.digest('hex').slice(0, 16);
}

export interface BuiltAgent {
  binary: string;
  sha256File: string;
  sha256: string;
  bytes: number;
  /** false when an up-to-date build was already there */
  built: boolean;
}

/**
 * undici's llhttp build is a CommonJS module whose exports is a Buffer. esbuild's ESM interop
 * (__toESM) copies every own property of a default-imported CommonJS module as a getter: one
 * closure per byte, 54,000 of them, ~10 MB of heap in the agent and in each probe thread. Served
 * as an ES module with the same bytes, the import is a plain binding.
 */
const llhttpWasmAsEsm: Plugin = {
  name: 'llhttp-wasm-as-esm',
  setup(b) {
    b.onLoad({ filter: /[\\/]undici[\\/]lib[\\/]llhttp[\\/]llhttp_simd-wasm\.js$/ }, (args) => {
      const bytes = createRequire(args.path)(args.path) as Buffer;
      return { contents: `import { Buffer } from 'node:buffer';\nexport default Buffer.from(${JSON.stringify(bytes.toString('base64'))}, 'base64');\n`, loader: 'js' };
    });
  },
};

/** Runs a build step quietly (postject warns about every ELF note); its output only when it fails. */
function run([cmd, ...args]: string[]): void {
  const r = spawnSync(cmd, args, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${path.basename(args[0] ?? cmd)} failed (${r.status ?? r.signal}): ${r.stdout}${r.stderr}`.trim());
}

function result(binary: string, built: boolean): BuiltAgent {
  const sha256File = `${binary}.sha256`;
  return { binary, sha256File, sha256: readFileSync(sha256File, 'utf8').split(/\s/)[0], bytes: statSync(binary).size, built };
}

/** Builds the executable into outDir unless the one there was built from the same sources. */
export async function buildAgentExecutable(opts: { outDir?: string; force?: boolean; log?: (line: string) => void } = {}): Promise<BuiltAgent> {
  const outDir = opts.outDir ?? AGENT_DIST_DIR;
  const log = opts.log ?? (() => {});
  const binary = path.join(outDir, AGENT_BINARY_NAME);
  const idFile = path.join(outDir, '.build-id');
  const id = agentSourceHash();
  if (!opts.force && existsSync(binary) && existsSync(`${binary}.sha256`) && existsSync(idFile) && readFileSync(idFile, 'utf8').trim() === id) {
    return result(binary, false);
  }
  mkdirSync(outDir, { recursive: true });
  const work = path.join(outDir, `.build-${process.pid}`);
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  try {
    // The version the agent sends on connect (agent/src/index.ts), also printed by --version.
    const version = /AGENT_VERSION = '([^']+)'/.exec(readFileSync(path.join(REPO_ROOT, 'agent/src/index.ts'), 'utf8'))?.[1];
    if (!version) throw new Error('AGENT_VERSION not found in agent/src/index.ts');
    const common = { bundle: true, platform: 'node' as const, target: 'node20', logLevel: 'warning' as const, legalComments: 'none' as const, minifyWhitespace: true, minifySyntax: true, plugins: [llhttpWasmAsEsm] };
    // The worker thread is loaded from the cache dir by node's ESM loader: an ES module whose
    // CommonJS dependencies get a require().
    await build({
      ...common,
      entryPoints: [path.join(REPO_ROOT, 'agent/src/probe-worker.ts')],
      format: 'esm',
      outfile: path.join(work, 'probe-worker-boot.mjs'),
      external: ['playwright-core'], // browser checks run on the main thread only
      banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
    });
    // Playwright (~5 MB of script) is an asset of its own, loaded on the first browser check
    // (agent/src/probers/browser/playwright.ts): in the agent's script it cost ~40 MB of RSS on
    // agents without browser checks. Its package.json and browsers.json go beside it, where it
    // reads them at run time (lib/ → ..).
    const playwrightDir = path.dirname(requireAgent.resolve('playwright-core/package.json'));
    await build({
      ...common,
      entryPoints: [path.join(playwrightDir, 'index.js')],
      format: 'cjs',
      outfile: path.join(work, 'playwright-core.cjs'),
    });
    const assets: Record<string, string> = {
      'better_sqlite3.node': path.join(path.dirname(requireAgent.resolve('better-sqlite3/package.json')), 'build/Release/better_sqlite3.node'),
      'agent_service.proto': path.join(REPO_ROOT, 'proto/upfleet/agent/v1/agent_service.proto'),
      'probe-worker-boot.mjs': path.join(work, 'probe-worker-boot.mjs'),
      'playwright-core.cjs': path.join(work, 'playwright-core.cjs'),
      'playwright-core/package.json': path.join(playwrightDir, 'package.json'),
      'playwright-core/browsers.json': path.join(playwrightDir, 'browsers.json'),
    };
    const assetSha256 = Object.fromEntries(Object.entries(assets).map(([name, file]) => [name, createHash('sha256').update(readFileSync(file)).digest('hex')]));
    await build({
      ...common,
      entryPoints: [path.join(REPO_ROOT, 'agent/sea/main.ts')],
      format: 'cjs',
      outfile: path.join(work, 'agent.cjs'),
      external: ['playwright-core'], // its own asset, see above
      define: {
        'import.meta.url': 'globalThis.__upfleetSeaUrl',
        __UPFLEET_BUILD_ID__: JSON.stringify(id),
        __UPFLEET_AGENT_VERSION__: JSON.stringify(version),
        __UPFLEET_ASSET_SHA256__: JSON.stringify(assetSha256),
      },
    });
    const seaConfig = {
      main: path.join(work, 'agent.cjs'),
      output: path.join(work, 'agent.blob'),
      disableExperimentalSEAWarning: true,
      useCodeCache: true,
      assets,
    };
    writeFileSync(path.join(work, 'sea-config.json'), JSON.stringify(seaConfig, null, 2));
    run([process.execPath, '--experimental-sea-config', path.join(work, 'sea-config.json')]);
    const exe = path.join(work, AGENT_BINARY_NAME);
    copyFileSync(process.execPath, exe);
    chmodSync(exe, 0o755);
    const postject = path.join(path.dirname(requireAgent.resolve('postject/package.json')), 'dist/cli.js');
    run([process.execPath, postject, exe, 'NODE_SEA_BLOB', path.join(work, 'agent.blob'), '--sentinel-fuse', SEA_FUSE]);
    const sha = createHash('sha256').update(readFileSync(exe)).digest('hex');
    writeFileSync(`${exe}.sha256`, `${sha}  ${AGENT_BINARY_NAME}\n`);
    // Moved in place last (binary, checksum, then the id), so a reader never pairs a new binary with an old checksum for long.
    renameSync(exe, binary);
    renameSync(`${exe}.sha256`, `${binary}.sha256`);
    writeFileSync(idFile, `${id}\n`);
    log(`built ${path.relative(process.cwd(), binary) || binary} (${id})`);
    return result(binary, true);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const started = Date.now();
  const built = await buildAgentExecutable({ force: process.argv.includes('--force'), log: (l) => console.log(l) });
  const gz = execFileSync('gzip', ['-c', '-6', built.binary], { maxBuffer: 512 * 1024 * 1024 }).length;
  console.log(`${built.built ? 'built' : 'up to date'}: ${built.binary}`);
  console.log(`size ${(built.bytes / 1e6).toFixed(1)} MB, gzip ${(gz / 1e6).toFixed(1)} MB, sha256 ${built.sha256} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
}
