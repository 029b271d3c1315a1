// What every command gets: the environment and output streams passed in by index.ts (tests pass
// their own), the global options resolved once, and the admin client built from them.
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { createAdminClient, type AdminClient } from './api/client';
import { CliError, oneLine } from './errors';
import { stripControls } from './safe-text';
import type { AgentConfig, AgentConfigOverrides } from '@upfleet/agent';

export type Env = Record<string, string | undefined>;

// The dependencies index.ts injects (tests pass their own), declared here so that commands import
// this module and never the other way round.

export interface RunningAgent {
  stop(): Promise<void>;
}

/** What the CLI uses of '@upfleet/agent' (index.ts loads the real module lazily; tests may pass their own). */
export interface AgentModule {
  loadAgentConfig(env: Env, overrides: AgentConfigOverrides): AgentConfig;
  startAgent(config: AgentConfig, logger?: undefined, opts?: { onFatal?: (message: string) => void }): Promise<RunningAgent>;
  /** V8 heap sizing for a process that is an agent (agent/src/heap.ts). */
  tuneAgentHeap?(env: Env): boolean;
}

export interface ChildLike {
  on(event: 'exit', listener: (code: number | null, signal: NodeJS.Signals | null) => void): unknown;
  on(event: 'error', listener: (err: Error) => void): unknown;
  kill(signal?: NodeJS.Signals): boolean;
}

export type SpawnFn = (command: string, args: string[], options: { cwd: string; env: Env; stdio: 'inherit' }) => ChildLike;

export interface CliDeps {
  env: Env;
  cwd: string;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** stderr is a terminal: long commands draw progress there (`results export`). */
  stderrIsTTY?: boolean;
  fetch?: typeof fetch;
  now?: () => number;
  /** How `agent run` loads the agent; index.ts imports '@upfleet/agent' lazily. */
  loadAgent?: () => Promise<AgentModule>;
  /** How `start` runs child processes; node:child_process.spawn unless a test passes one. */
  spawn?: SpawnFn;
  /** Process signals for long-running commands (`start`, `agent run`). */
  onSignal?: (signal: NodeJS.Signals, handler: () => void) => () => void;
}

export interface GlobalOptions {
  server: string;
  json: boolean;
  token: () => string;
  dataDir: string;
}

export const DEFAULT_SERVER = 'http://localhost:8080';
export const ADMIN_TOKEN_FILE = 'admin-token';

interface RawGlobals {
  server?: string;
  token?: string;
  dataDir?: string;
  json?: boolean;
}

/** Flags first, then environment, then defaults; the token file is read only when a request needs it. */
export function resolveGlobals(raw: RawGlobals, deps: Pick<CliDeps, 'env' | 'cwd'>): GlobalOptions {
  const env = deps.env;
  const dataDir = path.resolve(deps.cwd, raw.dataDir ?? nonEmpty(env.DATA_DIR) ?? './data');
  const server = raw.server ?? nonEmpty(env.UPFLEET_SERVER) ?? localServer(env, dataDir);
  const flagToken = raw.token ?? nonEmpty(env.UPFLEET_ADMIN_TOKEN);
  let cached: string | null = null;
  return {
    server,
    dataDir,
    json: raw.json === true,
    token: () => (cached ??= flagToken ?? readAdminTokenFile(dataDir)),
  };
}

/**
 * The control plane on this machine, found as the server finds its own address: PORT and HOST
 * from the environment, else the port a running server wrote to DATA_DIR/runtime.json (PORT=0
 * picks a free one), else the server's default port.
 */
export function localServer(env: Env, dataDir: string): string {
  const rawHost = nonEmpty(env.HOST);
  const host = !rawHost || rawHost === '0.0.0.0' || rawHost === '::' ? 'localhost' : rawHost.includes(':') ? `[${rawHost}]` : rawHost;
  const port = nonEmpty(env.PORT);
  if (port && /^\d+$/.test(port) && Number(port) > 0 && Number(port) < 65536) return `http://${host}:${Number(port)}`;
  const running = runningPort(dataDir);
  return running ? `http://${host}:${running}` : DEFAULT_SERVER.replace('localhost', host);
}

function runningPort(dataDir: string): number | null {
  try {
    const info = JSON.parse(fs.readFileSync(path.join(dataDir, 'runtime.json'), 'utf8')) as { pid?: unknown; httpPort?: unknown };
    if (typeof info.httpPort !== 'number' || typeof info.pid !== 'number') return null;
    process.kill(info.pid, 0); // throws when that server is gone: its port may belong to someone else now
    return info.httpPort;
  } catch {
    return null;
  }
}

export function readAdminTokenFile(dataDir: string): string {
  const file = path.join(dataDir, ADMIN_TOKEN_FILE);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') {
      throw new CliError(
        'usage',
        `No admin token: pass --token, set UPFLEET_ADMIN_TOKEN, or point --data-dir at the control plane's data directory (${file} does not exist)`,
      );
    }
    throw new CliError('usage', `Cannot read the admin token from ${file}: ${oneLine((err as Error).message)}`);
  }
  const token = text.trim();
  if (!token) throw new CliError('usage', `The admin token file ${file} is empty`);
  return token;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

/** Per-command context: resolved globals, an admin client, and the output helpers. */
export interface CommandContext {
  globals: GlobalOptions;
  client: AdminClient;
  deps: CliDeps;
  now: () => number;
  /** Prints `data` as JSON with --json, otherwise the human text made by `human`. */
  print<T>(data: T, human: (data: T) => string): void;
}

export function commandContext(cmd: Command, deps: CliDeps): CommandContext {
  const globals = resolveGlobals(cmd.optsWithGlobals<RawGlobals>(), deps);
  const client = createAdminClient({ server: globals.server, token: globals.token, fetch: deps.fetch });
  return {
    globals,
    client,
    deps,
    now: deps.now ?? Date.now,
    print(data, human) {
      // JSON escapes control characters itself; human text is stripped of them.
      deps.stdout(globals.json ? `${JSON.stringify(data, null, 2)}\n` : stripControls(human(data)));
    },
  };
}
