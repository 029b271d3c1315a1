// `upfleet start` does what `npm start` does (root package.json): build the web app, then run the
// control plane with tsx from the repo root. planStart is pure so tests can check the plan.
import { spawn as nodeSpawn } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Command } from 'commander';
import { defaultOnSignal } from './agent/run';
import type { CliDeps, Env } from '../context';
import { CliError, oneLine } from '../errors';

export interface SpawnStep {
  label: string;
  command: string;
  args: string[];
  cwd: string;
  env: Env;
}

export interface StartOptions {
  repoRoot: string;
  /** node itself, so the control plane does not depend on tsx being on PATH */
  nodePath: string;
  tsxCli: string;
  env: Env;
  build: boolean;
  dataDir?: string;
  port?: string;
}

// How child processes are run is declared with the other injected dependencies (context.ts).
export type { ChildLike, SpawnFn } from '../context';

/** The repo root, three levels above cli/src/commands. */
export const REPO_ROOT = path.resolve(import.meta.dirname, '../../..');

export function planStart(opts: StartOptions): SpawnStep[] {
  const env: Env = { ...opts.env };
  if (opts.dataDir !== undefined) env.DATA_DIR = opts.dataDir;
  if (opts.port !== undefined) env.PORT = opts.port;
  const steps: SpawnStep[] = [];
  if (opts.build) {
    steps.push({ label: 'build the web app', command: 'npm', args: ['run', 'build', '-w', 'web'], cwd: opts.repoRoot, env });
  }
  steps.push({
    label: 'start the control plane',
    command: opts.nodePath,
    args: [opts.tsxCli, 'control-plane/src/main.ts'],
    cwd: opts.repoRoot,
    env,
  });
  return steps;
}

const SIGNAL_NUMBERS: Partial<Record<NodeJS.Signals, number>> = { SIGHUP: 1, SIGINT: 2, SIGKILL: 9, SIGTERM: 15 };

/** Runs one step with the terminal attached; our SIGINT/SIGTERM/SIGHUP go to the child. */
export function runStep(step: SpawnStep, deps: Pick<CliDeps, 'spawn' | 'onSignal'>): Promise<number> {
  const spawn = deps.spawn ?? (nodeSpawn);
  const onSignal = deps.onSignal ?? defaultOnSignal;
  return new Promise((resolve, reject) => {
    const child = spawn(step.command, step.args, { cwd: step.cwd, env: step.env, stdio: 'inherit' });
    const offs = (['SIGINT', 'SIGTERM', 'SIGHUP'] as const).map((signal) => onSignal(signal, () => child.kill(signal)));
    const done = () => offs.forEach((off) => off());
    child.on('error', (err) => {
      done();
      reject(new CliError('server', `Could not ${step.label} (${step.command}): ${oneLine(err.message)}`));
    });
    child.on('exit', (code, signal) => {
      done();
      resolve(code ?? 128 + (signal ? (SIGNAL_NUMBERS[signal] ?? 0) : 1));
    });
  });
}

export async function runStart(opts: StartOptions, deps: Pick<CliDeps, 'spawn' | 'onSignal' | 'stderr'>): Promise<number> {
  const steps = planStart(opts);
  for (const [i, step] of steps.entries()) {
    const code = await runStep(step, deps);
    const last = i === steps.length - 1;
    // The control plane prints its own reason; a failed build only says so in npm's output.
    if (code !== 0 && !last) deps.stderr(`upfleet: could not ${step.label} (exit code ${code})\n`);
    if (code !== 0 || last) return code;
  }
  return 0;
}

/**
 * The control plane runs from the repo root; a relative --data-dir or DATA_DIR means the caller's
 * directory, as for the admin commands. Unset keeps the control plane's default (./data at the root).
 */
export function dataDirFor(dir: string | undefined, cwd: string): string | undefined {
  return dir === undefined || dir.trim() === '' ? undefined : path.resolve(cwd, dir);
}

export function startCommand(deps: CliDeps, setExitCode: (code: number) => void): Command {
  return new Command('start')
    .description('Start Upfleet on embedded defaults, like `npm start` (PORT, GRPC_PORT, DATA_DIR, EMBEDDED_AGENT apply)')
    .option('--port <port>', 'web and REST port (sets PORT)')
    .option('--no-build', 'skip building the web app (use the last build in web/dist)')
    .action(async (opts: { port?: string; build: boolean }, cmd: Command) => {
      const globals = cmd.optsWithGlobals<{ dataDir?: string }>();
      const tsxCli = createRequire(import.meta.url).resolve('tsx/cli');
      const code = await runStart(
        {
          repoRoot: REPO_ROOT,
          nodePath: process.execPath,
          tsxCli,
          env: deps.env,
          build: opts.build,
          dataDir: dataDirFor(globals.dataDir ?? deps.env.DATA_DIR, deps.cwd),
          port: opts.port,
        },
        deps,
      );
      setExitCode(code);
    });
}
