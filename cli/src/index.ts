// `upfleet`: the admin CLI. Commands call the control plane's admin REST API through api/client
// and print through formatters/; everything the outside world gives (env, cwd, streams, fetch,
// signals) comes in as CliDeps so tests run the real program against a local server.
import { Command, CommanderError } from 'commander';
import { agentCommand } from './commands/agent/index';
import { clusterCommand } from './commands/cluster/index';
import { dbCommand } from './commands/db/index';
import type { AgentModule } from './commands/agent/run';
import { incidentsCommand } from './commands/incidents/index';
import { monitorsCommand } from './commands/monitors/index';
import { packageCommand } from './commands/package/index';
import { regionCommand } from './commands/region/index';
import { resultsCommand } from './commands/results/index';
import { startCommand } from './commands/start';
import { userCommand } from './commands/user/index';
import { workspaceCommand } from './commands/workspace/index';
import { DEFAULT_SERVER, type CliDeps } from './context';
import { CliError, oneLine } from './errors';

export { CliError } from './errors';
export type { CliDeps } from './context';

export function buildProgram(deps: CliDeps, setExitCode: (code: number) => void = () => {}): Command {
  const program = new Command('upfleet')
    .description('Upfleet CLI: start the product, manage users, packages, regions and probe agents (admin token); monitoring as code (API key)')
    .option('--server <url>', `control plane URL (env UPFLEET_SERVER; default from PORT and HOST, else the running server's port in the data dir, else ${DEFAULT_SERVER})`)
    .option('--token <token>', "admin token (env UPFLEET_ADMIN_TOKEN, else the admin-token file in the data dir)")
    .option('--data-dir <dir>', "control plane's data directory holding admin-token (env DATA_DIR, default ./data)")
    .option('--json', 'print the raw data as JSON for scripts')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride()
    .configureOutput({
      writeOut: (text) => deps.stdout(text),
      writeErr: (text) => deps.stderr(text),
      outputError: (text, write) => write(`upfleet: ${text.replace(/^error: /, '')}`),
    });

  program.addCommand(startCommand(deps, setExitCode));
  program.addCommand(userCommand(deps));
  program.addCommand(packageCommand(deps));
  program.addCommand(workspaceCommand(deps));
  program.addCommand(regionCommand(deps));
  program.addCommand(agentCommand(deps, setExitCode));
  program.addCommand(monitorsCommand(deps));
  program.addCommand(clusterCommand(deps));
  program.addCommand(incidentsCommand(deps));
  program.addCommand(resultsCommand(deps));
  program.addCommand(dbCommand(deps, setExitCode));

  // Subcommands inherit output and exit handling.
  const inherit = (cmd: Command) => {
    for (const sub of cmd.commands) {
      sub
        .exitOverride()
        .configureOutput(program.configureOutput())
        .configureHelp({ showGlobalOptions: true })
        .showHelpAfterError('(run with --help for usage)');
      inherit(sub);
    }
  };
  inherit(program);
  return program;
}

/** Runs one invocation (argv without node and script); resolves to the process exit code. */
export async function runCli(argv: string[], deps: CliDeps): Promise<number> {
  let exitCode = 0;
  const program = buildProgram(deps, (code) => {
    exitCode = code;
  });
  try {
    await program.parseAsync(argv, { from: 'user' });
    return exitCode;
  } catch (err) {
    if (err instanceof CommanderError) {
      // Commander already printed its message (or the help text).
      return err.exitCode;
    }
    if (err instanceof CliError) {
      deps.stderr(`upfleet: ${err.message}\n`);
      return 1;
    }
    // A bug, not a user error: still one line, with a hint where to look.
    deps.stderr(`upfleet: unexpected error: ${oneLine(err instanceof Error ? err.message : String(err))}\n`);
    return 1;
  }
}

export async function main(argv: string[]): Promise<number> {
  return runCli(argv, {
    env: process.env,
    cwd: process.cwd(),
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    stderrIsTTY: process.stderr.isTTY === true,
    // Loaded only for `agent run`, so admin commands never load gRPC or SQLite.
    loadAgent: async (): Promise<AgentModule> => import('@upfleet/agent'),
  });
}
