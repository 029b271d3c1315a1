// `upfleet db copy --to postgres://…`: runs the control plane's own entry (`main.ts db copy`), which
// holds the copy: the CLI never imports control-plane code, and the copy needs its schema and lock.
import { createRequire } from 'node:module';
import { Command } from 'commander';
import type { CliDeps, Env } from '../../context';
import { dataDirFor, REPO_ROOT, runStep, type SpawnStep } from '../start';

export function planDbCopy(opts: { to: string; dataDir?: string; env: Env; nodePath: string; tsxCli: string }): SpawnStep {
  const env: Env = { ...opts.env };
  if (opts.dataDir !== undefined) env.DATA_DIR = opts.dataDir;
  return { label: 'copy the database', command: opts.nodePath, args: [opts.tsxCli, 'control-plane/src/main.ts', 'db', 'copy', '--to', opts.to], cwd: REPO_ROOT, env };
}

export function dbCommand(deps: CliDeps, setExitCode: (code: number) => void): Command {
  const db = new Command('db').description("The control plane's database");
  db
    .command('copy')
    .description('Copy a stopped SQLite deployment (DATA_DIR) into an empty Postgres and print the rows per table; secrets stay encrypted with the same SECRET_KEY')
    .requiredOption('--to <postgres-url>', 'the empty Postgres database, postgres://USER:PASSWORD@HOST/DATABASE')
    .action(async (opts: { to: string }, cmd: Command) => {
      const globals = cmd.optsWithGlobals<{ dataDir?: string }>();
      const step = planDbCopy({
        to: opts.to,
        dataDir: dataDirFor(globals.dataDir ?? deps.env.DATA_DIR, deps.cwd),
        env: deps.env,
        nodePath: process.execPath,
        tsxCli: createRequire(import.meta.url).resolve('tsx/cli'),
      });
      setExitCode(await runStep(step, deps));
    });
  return db;
}
