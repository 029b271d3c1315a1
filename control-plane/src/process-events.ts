// How the control-plane process meets signals and stray errors. main.ts installs this on `process`;
// tests pass an EventEmitter of their own.
import type { Logger } from './logger';

export interface ProcessEvents {
  // Node's EventEmitter types its listeners with any[]; a narrower type here would refuse `process`.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  on(event: string, listener: (...args: any[]) => void): unknown;
}

export type StopReason = 'SIGTERM' | 'SIGINT' | 'SIGHUP' | 'uncaughtException';

/**
 * - SIGTERM, SIGINT, SIGHUP: a graceful stop (in-flight requests finish, bounded), exit code 0.
 *   SIGHUP stops rather than reloads: configuration is read once at start, and the usual sender
 *   is a closed terminal under `npm start` / `upfleet start`, whose child must not linger.
 * - unhandledRejection: logged with its reason, and the process keeps serving. Every request and
 *   stream already handles its own errors, so a stray rejection comes from background work
 *   (a timer, a notification); exiting would drop every agent stream and in-flight ingest, and
 *   a persistent fault would become a restart loop instead of one failing part.
 * - uncaughtException: logged, then a graceful stop with exit code 1 (state may be inconsistent).
 */
export function handleProcessEvents(proc: ProcessEvents, logger: Logger, stop: (reason: StopReason, exitCode: number) => void): void {
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
    proc.on(signal, () => {
      if (signal === 'SIGHUP') logger.info({ signal }, 'SIGHUP: configuration is read only at start, so this stops gracefully; start again to apply changes');
      stop(signal, 0);
    });
  }
  proc.on('unhandledRejection', (reason: unknown) => {
    logger.error({ err: reason }, 'unhandled promise rejection (the control plane keeps serving)');
  });
  proc.on('uncaughtException', (err: Error) => {
    logger.fatal({ err }, 'uncaught exception: stopping');
    stop('uncaughtException', 1);
  });
}
