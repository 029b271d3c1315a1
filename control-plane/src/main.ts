// Entry point for `npm start` / `upfleet start`: config once, then startControlPlane().
import fs from 'node:fs';
import path from 'node:path';
import { ConfigError, loadConfig, redactConfig } from './config';
import { createLogger } from './logger';
import { startControlPlane } from './server';

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
  const logger = createLogger(config.logLevel);
  logger.info({ config: redactConfig(config) }, 'starting control plane');
  const cp = await startControlPlane(config, logger);
  // Tests and tools find the actual ports (PORT=0) here.
  fs.writeFileSync(path.join(config.dataDir, 'runtime.json'), JSON.stringify({ pid: process.pid, httpPort: cp.httpPort, grpcPort: cp.grpcPort }));
  process.stdout.write(`\nUpfleet is running: open ${cp.url}\n\n`);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'stopping');
    const force = setTimeout(() => process.exit(1), 15_000);
    force.unref();
    await cp.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

main().catch((e) => {
  process.stderr.write(`upfleet: failed to start: ${(e as Error).message}\n`);
  process.exit(1);
});
