// `upfleet agent run`: the agent in this process. The agent package owns its config schema
// (flags > UPFLEET_* env > --config file > defaults) and its lifecycle; this command maps flags
// onto loadAgentConfig's overrides and turns SIGTERM/SIGINT into a clean stop().
import { Command } from 'commander';
import type { AgentConfig, AgentConfigOverrides } from '@upfleet/agent';
import type { CliDeps, RunningAgent } from '../../context';
import { CliError, oneLine } from '../../errors';

export type AgentRunOverrides = AgentConfigOverrides;

// What the CLI uses of '@upfleet/agent' is declared with the other injected dependencies (context.ts).
export type { AgentModule, RunningAgent } from '../../context';

/** Exit code when the control plane refuses the agent for good (revoked token or credential), as agent/src/main.ts. */
export const EXIT_FATAL = 3;
/** How long stop() may take before the CLI gives up waiting (as agent/src/main.ts). */
export const STOP_TIMEOUT_MS = 15_000;

type Flags = Record<string, string | boolean | undefined>;

const KEYS: Array<keyof AgentRunOverrides> = [
  'controlPlane', 'region', 'token', 'dataDir', 'caFile', 'serverFingerprint', 'metricsPort', 'concurrency',
  'outboxCap', 'batchSize', 'flushIntervalMs', 'maxBatchesInFlight', 'allowPrivateTargets', 'probeCaFile',
  'hostname', 'logLevel',
];

/**
 * Only the flags given, so the agent's env, config file and defaults still apply to the rest.
 * An empty value counts as not given: systemd expands an unset ${UPFLEET_AGENT_TOKEN} to ''.
 */
export function agentRunOverrides(flags: Flags): AgentRunOverrides {
  const overrides: Record<string, string | boolean> = {};
  for (const key of KEYS) {
    const value = flags[key];
    if (typeof value === 'string' && value !== '') overrides[key] = value;
  }
  if (typeof flags.config === 'string' && flags.config !== '') overrides.configFile = flags.config;
  if (flags.insecure === true) overrides.insecure = true;
  return overrides;
}

export function defaultOnSignal(signal: NodeJS.Signals, handler: () => void): () => void {
  process.on(signal, handler);
  return () => process.off(signal, handler);
}

/** "invalid agent configuration: a; b" from the agent's multi-line list of problems. */
function configMessage(err: unknown): string {
  const problems = (err as { problems?: unknown }).problems;
  if (Array.isArray(problems) && problems.length > 0) return `invalid agent configuration: ${problems.map(String).join('; ')}`;
  return oneLine(err instanceof Error ? err.message : String(err));
}

/**
 * Runs until SIGTERM/SIGINT (exit 0) or a fatal link error (exit 3), then awaits stop(); a second
 * signal or a stop() slower than STOP_TIMEOUT_MS gives up waiting (exit 1).
 */
export async function runAgent(flags: Flags, deps: CliDeps): Promise<number> {
  const overrides = agentRunOverrides(flags);
  if (!deps.loadAgent) throw new CliError('agent', 'the agent is not available in this build');
  const agentModule = await deps.loadAgent();

  let config: AgentConfig;
  try {
    config = agentModule.loadAgentConfig(deps.env, overrides);
  } catch (err) {
    throw new CliError('usage', configMessage(err));
  }
  agentModule.tuneAgentHeap?.(deps.env); // this process is the agent now

  const onSignal = deps.onSignal ?? defaultOnSignal;
  const offs: Array<() => void> = [];
  let shutdown: (code: number) => void = () => {};
  const exited = new Promise<number>((resolve) => {
    let agent: RunningAgent | null = null;
    let exiting = false;
    let pendingCode: number | null = null;
    shutdown = (code) => {
      if (exiting) return resolve(1);
      if (!agent) {
        pendingCode = code; // a signal before startAgent resolved: stop as soon as it has
        return;
      }
      exiting = true;
      const giveUp = setTimeout(() => resolve(1), STOP_TIMEOUT_MS);
      giveUp.unref?.();
      agent.stop().then(
        () => {
          clearTimeout(giveUp);
          resolve(code);
        },
        (err: unknown) => {
          clearTimeout(giveUp);
          deps.stderr(`upfleet: the agent did not stop cleanly: ${oneLine((err as Error).message)}\n`);
          resolve(1);
        },
      );
    };
    for (const signal of ['SIGTERM', 'SIGINT'] as const) offs.push(onSignal(signal, () => shutdown(0)));
    agentModule
      .startAgent(config, undefined, {
        onFatal: (message) => {
          deps.stderr(`upfleet: fatal: ${oneLine(message)}\n`);
          shutdown(EXIT_FATAL);
        },
      })
      .then(
        (started) => {
          agent = started;
          if (pendingCode !== null) shutdown(pendingCode);
        },
        (err: unknown) => {
          deps.stderr(`upfleet: the agent could not start: ${oneLine((err as Error).message)}\n`);
          resolve(1);
        },
      );
  });
  const code = await exited;
  offs.forEach((off) => off());
  return code;
}

export function agentRunCommand(deps: CliDeps, setExitCode: (code: number) => void): Command {
  return new Command('run')
    .description(
      'Run a probe agent here: registers once with a bootstrap token, then pulls its checks and streams results.\n' +
        'Every flag also has an UPFLEET_* environment twin (UPFLEET_CONTROL_PLANE, UPFLEET_REGION, UPFLEET_TOKEN, ...).',
    )
    .option('--control-plane <host:port>', "control plane's gRPC address, e.g. upfleet.example.com:50051")
    .option('--region <REGION-City>', 'region this agent serves, e.g. US-Virginia')
    .option('--token <token>', 'bootstrap token from `upfleet agent token create` (first start only; it pins the control plane\'s CA, so no --ca-file is needed)')
    .option('--data-dir <dir>', 'identity, last assignments and result outbox (default ./agent-data)')
    .option('--ca-file <file>', "trust this CA for the control plane (its DATA_DIR/grpc-tls/ca.pem) instead of the token's fingerprint")
    .option('--server-fingerprint <sha256>', "pin the control plane's certificate by SHA-256 instead")
    .option('--insecure', 'plaintext gRPC (only for a control plane without TLS, on a trusted network)')
    .option('--metrics-port <port>', 'Prometheus metrics on 127.0.0.1 (default 9464, 0 turns it off)')
    .option('--allow-private-targets <bool>', 'check targets on private/loopback addresses (set false for multi-tenant)')
    .option('--concurrency <n>', 'checks running at once (default 256)')
    .option('--outbox-cap <n>', 'results kept while the control plane is away; oldest dropped beyond (default 1000000)')
    .option('--batch-size <n>', 'results per batch sent (default 2000, at most 5000)')
    .option('--flush-interval-ms <ms>', 'longest wait before a partial batch is sent (default 1000)')
    .option('--max-batches-in-flight <n>', 'unacknowledged batches at once (default 4)')
    .option('--probe-ca-file <file>', 'extra CAs the HTTPS and TLS checks trust besides the system roots')
    .option('--hostname <name>', 'name shown in `upfleet agent list` (default: this host)')
    .option('--log-level <level>', 'fatal, error, warn, info, debug, trace or silent (default info)')
    .option('--config <file.json>', 'JSON file with any of the settings above (camelCase keys)')
    .action(async (_opts, cmd: Command) => {
      // --token and --data-dir also exist as global options; optsWithGlobals finds them either way.
      setExitCode(await runAgent(cmd.optsWithGlobals<Flags>(), deps));
    });
}
