// Runnable agent: `tsx agent/src/main.ts --control-plane HOST:PORT --region EU-Germany --token T --data-dir DIR`.
import pino from 'pino';
import { AGENT_USAGE, AgentConfigError, loadAgentConfig, parseAgentArgv, redactConfig } from './config';
import { tuneAgentHeap } from './heap';
import { startAgent } from './index';

async function main(): Promise<number> {
  tuneAgentHeap(); // heap sizing for this agent process (agent/src/heap.ts)
  let parsed;
  try {
    parsed = parseAgentArgv(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n${AGENT_USAGE}\n`);
    return 2;
  }
  if (parsed.help) {
    process.stdout.write(`${AGENT_USAGE}\n`);
    return 0;
  }
  let config;
  try {
    config = loadAgentConfig(undefined, parsed.overrides);
  } catch (err) {
    if (err instanceof AgentConfigError) {
      process.stderr.write(`${err.message}\n${AGENT_USAGE}\n`);
      return 2;
    }
    throw err;
  }
  const logger = pino({ name: 'upfleet-agent', level: config.logLevel });
  logger.info({ config: redactConfig(config) }, 'starting agent');

  return new Promise<number>((resolve) => {
    let agent: Awaited<ReturnType<typeof startAgent>> | undefined;
    let exiting = false;
    const shutdown = (code: number, why: string): void => {
      if (exiting) return;
      exiting = true;
      logger.info({ why }, 'stopping agent');
      const hard = setTimeout(() => resolve(code || 1), 15_000);
      hard.unref();
      void (agent ? agent.stop() : Promise.resolve()).then(() => {
        clearTimeout(hard);
        resolve(code);
      });
    };
    process.once('SIGTERM', () => shutdown(0, 'SIGTERM'));
    process.once('SIGINT', () => shutdown(0, 'SIGINT'));
    startAgent(config, logger, {
      onFatal: (message) => {
        process.stderr.write(`upfleet agent: fatal: ${message}\n`);
        shutdown(3, 'fatal link error');
      },
    }).then(
      (a) => {
        agent = a;
      },
      (err) => {
        logger.fatal({ err }, 'agent failed to start');
        resolve(1);
      },
    );
  });
}

void main().then((code) => {
  process.exitCode = code;
  // gRPC keepalive timers or a stuck socket must not keep a stopped agent alive
  setTimeout(() => process.exit(code), 500).unref();
});
