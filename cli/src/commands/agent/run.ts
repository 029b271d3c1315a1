// `upfleet agent run`: the agent in this process. The agent package owns config and lifecycle;
// this command maps flags onto its overrides and turns SIGTERM/SIGINT into a clean stop().
import { Command } from 'commander';
import type { CliDeps, Env } from '../../context';
import { CliError, oneLine } from '../../errors';

/** Flags of `agent run`; each one left out falls back to the agent's own env/config file. */
export interface AgentRunOverrides {
  controlPlane?: string;
  region?: string;
  token?: string;
  dataDir?: string;
  caFile?: string;
  insecure?: boolean;
  metricsPort?: number;
}

export interface RunningAgent {
  stop(): Promise<void>;
}

/** What the CLI needs from '@upfleet/agent'. */
export interface AgentModule {
  loadAgentConfig(env: Env, overrides: AgentRunOverrides): unknown;
  startAgent(config: never): Promise<RunningAgent>;
}

export interface AgentRunFlags {
  controlPlane?: string;
  region?: string;
  token?: string;
  dataDir?: string;
  caFile?: string;
  insecure?: boolean;
  metricsPort?: string;
}

export function agentRunOverrides(flags: AgentRunFlags): AgentRunOverrides {
  if (flags.caFile && flags.insecure) {
    throw new CliError('usage', '--ca-file and --insecure cannot be used together');
  }
  if (flags.controlPlane !== undefined && !/^(\[[0-9a-fA-F:.]+\]|[^\s:/[\]]+):\d{1,5}$/.test(flags.controlPlane)) {
    throw new CliError('usage', `--control-plane must be HOST:PORT, e.g. upfleet.example.com:50051 (got '${flags.controlPlane}')`);
  }
  if (flags.region !== undefined && !/^[^\s-]+-\S+$/.test(flags.region)) {
    throw new CliError('usage', `--region must be REGION-City, e.g. EU-Germany (got '${flags.region}')`);
  }
  let metricsPort: number | undefined;
  if (flags.metricsPort !== undefined) {
    metricsPort = Number(flags.metricsPort);
    if (!/^\d+$/.test(flags.metricsPort) || metricsPort > 65535) {
      throw new CliError('usage', `--metrics-port must be a port number from 0 to 65535 (got '${flags.metricsPort}')`);
    }
  }
  const overrides: AgentRunOverrides = {
    controlPlane: flags.controlPlane,
    region: flags.region,
    token: flags.token,
    dataDir: flags.dataDir,
    caFile: flags.caFile,
    insecure: flags.insecure ? true : undefined,
    metricsPort,
  };
  // Only what was given, so the agent's env and defaults still apply to the rest. An empty value
  // counts as not given: systemd expands an unset ${UPFLEET_AGENT_TOKEN} to ''.
  return Object.fromEntries(Object.entries(overrides).filter(([, v]) => v !== undefined && v !== '')) as AgentRunOverrides;
}

export function defaultOnSignal(signal: NodeJS.Signals, handler: () => void): () => void {
  process.on(signal, handler);
  return () => process.off(signal, handler);
}

/** Runs until SIGTERM/SIGINT, then awaits stop(); a second signal gives up waiting (exit 1). */
export async function runAgent(flags: AgentRunFlags, deps: CliDeps): Promise<number> {
  const overrides = agentRunOverrides(flags);
  if (!deps.loadAgent) throw new CliError('agent', 'The agent is not available in this build');
  const agentModule = await deps.loadAgent();

  let config: unknown;
  try {
    config = agentModule.loadAgentConfig(deps.env, overrides);
  } catch (err) {
    throw new CliError('usage', oneLine((err as Error).message));
  }
  let agent: RunningAgent;
  try {
    agent = await agentModule.startAgent(config as never);
  } catch (err) {
    throw new CliError('agent', `The agent could not start: ${oneLine((err as Error).message)}`);
  }

  const onSignal = deps.onSignal ?? defaultOnSignal;
  const offs: Array<() => void> = [];
  const code = await new Promise<number>((resolve) => {
    let stopping = false;
    const handle = () => {
      if (stopping) return resolve(1);
      stopping = true;
      agent.stop().then(
        () => resolve(0),
        (err: unknown) => {
          deps.stderr(`upfleet: the agent did not stop cleanly: ${oneLine((err as Error).message)}\n`);
          resolve(1);
        },
      );
    };
    for (const signal of ['SIGTERM', 'SIGINT'] as const) offs.push(onSignal(signal, handle));
  });
  offs.forEach((off) => off());
  return code;
}

export function agentRunCommand(deps: CliDeps, setExitCode: (code: number) => void): Command {
  return new Command('run')
    .description('Run a probe agent here: registers with a bootstrap token once, then pulls checks and streams results')
    .option('--control-plane <host:port>', "control plane's gRPC address, e.g. upfleet.example.com:50051")
    .option('--region <REGION-City>', 'region this agent serves, e.g. US-Virginia')
    .option('--token <token>', 'bootstrap token from `upfleet agent token create` (needed only for the first start)')
    .option('--data-dir <dir>', 'where the agent keeps its identity, assignments and result outbox')
    .option('--ca-file <file>', "PEM file to trust for the control plane's TLS certificate")
    .option('--insecure', 'connect without TLS (only for a control plane started with GRPC_INSECURE=1)')
    .option('--metrics-port <port>', 'serve Prometheus metrics on this local port')
    .action(async (_opts, cmd: Command) => {
      // --token and --data-dir also exist as global options; optsWithGlobals finds them either way.
      const flags = cmd.optsWithGlobals<AgentRunFlags>();
      setExitCode(await runAgent(flags, deps));
    });
}
