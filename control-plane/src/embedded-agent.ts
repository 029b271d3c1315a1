// `npm start` runs one agent for the primary region next to the control plane. It is a child
// process speaking gRPC like any other agent: the two still meet only in proto/.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Logger } from './logger';

export interface EmbeddedAgent {
  stop(): Promise<void>;
}

const AGENT_MAIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../agent/src/main.ts');

export interface EmbeddedAgentOptions {
  grpcPort: number; region: string; token: string; dataDir: string; caFile: string | null; fingerprint: string | null;
  allowPrivateTargets: boolean; logger: Logger;
}

/**
 * The child's command line and environment. The bootstrap token goes in the environment
 * (UPFLEET_TOKEN), never on the command line, where any local user could read it in `ps`.
 */
export function embeddedAgentCommand(opts: Omit<EmbeddedAgentOptions, 'logger'>, env: NodeJS.ProcessEnv = process.env): { args: string[]; env: NodeJS.ProcessEnv } {
  const args = ['--import', 'tsx', AGENT_MAIN, '--control-plane', `localhost:${opts.grpcPort}`, '--region', opts.region,
    '--data-dir', opts.dataDir, '--metrics-port', '0', '--allow-private-targets', String(opts.allowPrivateTargets)];
  if (opts.caFile) args.push('--ca-file', opts.caFile);
  else if (opts.fingerprint) args.push('--server-fingerprint', opts.fingerprint);
  else args.push('--insecure');
  return { args, env: { ...env, UPFLEET_TOKEN: opts.token } };
}

export function startEmbeddedAgent(opts: EmbeddedAgentOptions): EmbeddedAgent {
  const log = opts.logger.child({ component: 'embedded-agent' });
  const { args, env } = embeddedAgentCommand(opts);
  let child: ChildProcess | null = null;
  let stopping = false;
  let restarts = 0;

  const launch = () => {
    child = spawn(process.execPath, args, { stdio: ['ignore', 'inherit', 'inherit'], env });
    log.info({ pid: child.pid, region: opts.region }, 'embedded agent started');
    child.once('exit', (code, signal) => {
      if (stopping) return;
      log.warn({ code, signal }, 'embedded agent exited; restarting');
      const delay = Math.min(30_000, 1000 * 2 ** Math.min(restarts++, 5));
      setTimeout(() => !stopping && launch(), delay).unref();
    });
  };
  launch();

  return {
    stop: () =>
      new Promise<void>((resolve) => {
        stopping = true;
        const c = child;
        if (!c || c.exitCode !== null || c.signalCode !== null) return resolve();
        const force = setTimeout(() => c.kill('SIGKILL'), 8000);
        c.once('exit', () => {
          clearTimeout(force);
          resolve();
        });
        c.kill('SIGTERM');
      }),
  };
}
