import { loadConfig, type Config } from './config.js';
import type { Logger } from './logger.js';

/**
 * The exit status of a process that cannot start as configured (sysexits' EX_CONFIG): a broken
 * catalogue, a bad environment variable, a port already taken. Starting it again changes nothing,
 * so scripts/run-processes.sh stops on it instead of restarting the process; any other status is a
 * crash, and restarted.
 */
export const EX_CONFIG = 78;

/** Logs why the process cannot start, prints it plainly for a person at a terminal, and exits with EX_CONFIG. */
export function startupFailure(log: Logger, err: unknown): never {
  const message = err instanceof Error ? err.message : String(err);
  log.fatal({ err }, message);
  process.stderr.write(`polder: cannot start: ${message}\n`);
  process.exit(EX_CONFIG);
}

/** Runs `stop` once on SIGTERM or SIGINT, then exits; a second signal exits at once. */
export function onShutdown(log: Logger, name: string, stop: () => Promise<void>): void {
  let stopping = false;
  const handler = (signal: NodeJS.Signals) => {
    if (stopping) process.exit(1);
    stopping = true;
    log.info({ signal }, `${name} shutting down`);
    stop().then(
      () => {
        log.info(`${name} stopped`);
        process.exit(0);
      },
      (err: unknown) => {
        log.error({ err }, `${name} did not stop cleanly`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', handler);
  process.on('SIGINT', handler);
}

/** The configuration, or a plain message and exit EX_CONFIG when the environment is wrong. */
export function configOrExit(): Config {
  try {
    return loadConfig();
  } catch (err) {
    process.stderr.write(`polder: cannot start: ${(err as Error).message}\n`);
    process.exit(EX_CONFIG);
  }
}
