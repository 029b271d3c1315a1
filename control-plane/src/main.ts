// Entry point for `npm start` / `upfleet start`: config once, then startControlPlane(); with
// `db copy --to …` (npm run db:copy, upfleet db copy) a database command instead.
import fs from 'node:fs';
import path from 'node:path';
import { ConfigError, configWarnings, loadConfig, redactConfig, redactSecretsIn } from './config';
import { runDbCommand } from './db-command';
import { createLogger } from './logger';
import { handleProcessEvents, type StopReason } from './process-events';
import { startControlPlane, type ControlPlane } from './server';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (e) {
    if (e instanceof ConfigError) {
      process.stderr.write(`upfleet: ${e.message}\n`);
      process.exit(2);
    }
    throw e;
  }
  // `db copy --to …`: a database command instead of the server (the control plane must be stopped).
  if (process.argv[2] === 'db') {
    const io = { dataDir: config.dataDir, stdout: (t: string) => process.stdout.write(t), stderr: (t: string) => process.stderr.write(t) };
    process.exit(await runDbCommand(process.argv.slice(3), io));
  }
  const logger = createLogger(config.logLevel);
  // A signal during start waits for the start to finish, then stops cleanly.
  let starting: Promise<ControlPlane> | null = null;
  let stopping = false;
  const stop = async (reason: StopReason, exitCode: number) => {
    if (stopping) return;
    stopping = true;
    logger.info({ reason }, 'stopping');
    // The HTTP drain is bounded by SHUTDOWN_TIMEOUT_SECONDS; this catches anything else that hangs.
    const force = setTimeout(() => {
      logger.error({ reason }, 'stop took too long: exiting');
      process.exit(exitCode || 1);
    }, (config.shutdownTimeoutSeconds + 15) * 1000);
    force.unref();
    try {
      await (await starting)?.close();
    } catch (err) {
      logger.error({ err }, 'error while stopping');
      exitCode ||= 1;
    }
    process.exit(exitCode);
  };
  handleProcessEvents(process, logger, (reason, code) => void stop(reason, code));

  logger.info({ config: redactConfig(config) }, 'starting control plane');
  for (const warning of configWarnings(config)) logger.warn(warning);
  let cp: ControlPlane;
  try {
    starting = startControlPlane(config, logger);
    cp = await starting;
  } catch (e) {
    // A setting checked against the data (DEFAULT_PACKAGE) fails like any other bad setting.
    if (e instanceof ConfigError) {
      process.stderr.write(`upfleet: Invalid configuration: ${e.message}\n`);
      process.exit(2);
    }
    // The ClickHouse and database URLs may carry a password; no error text repeats it.
    const message = redactSecretsIn(redactSecretsIn((e as Error).message, config.clickhouseUrl), config.databaseUrl);
    process.stderr.write(`upfleet: failed to start: ${message}\n`);
    process.exit(1);
  }
  // Tests and tools find the actual ports (PORT=0) here.
  fs.writeFileSync(path.join(config.dataDir, 'runtime.json'), JSON.stringify({ pid: process.pid, httpPort: cp.httpPort, grpcPort: cp.grpcPort }));
  process.stdout.write(`\nUpfleet is running: open ${cp.url}\n\n`);
  // npm start: the agent executable for GET /downloads is built now when missing (in the
  // background, cached by source hash in dist/agent); a request before it is done waits for it.
  if (process.env.NODE_ENV !== 'test') cp.prepareAgentDownload();
}

main().catch((e) => {
  process.stderr.write(`upfleet: failed to start: ${(e as Error).message}\n`);
  process.exit(1);
});
