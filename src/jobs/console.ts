import { format } from 'node:util';
import type { Logger } from '../logger.js';

// graphile-worker 0.17.3 writes some things to the console rather than to its logger option: a
// worker that exits with an error (console.trace of the error, a stack over many lines, seen when
// fetching fails while a pool shuts down), retries of its outcome batcher, and a few warnings. Our
// logs are pino JSON, one object a line, so in the worker process the console is routed to the log:
// the Error among the arguments as `err` (its stack inside the JSON), the rest as the message.

type Method = 'trace' | 'debug' | 'info' | 'log' | 'warn' | 'error';
const LEVELS: Record<Method, 'debug' | 'info' | 'warn'> = {
  debug: 'debug',
  info: 'info',
  log: 'info',
  // A trace is graphile-worker reporting an error it also logs through its logger.
  trace: 'warn',
  warn: 'warn',
  error: 'warn',
};

/** Routes console output to the log; returns a function that puts the console back. */
export function routeConsoleToLog(log: Logger, target: Pick<Console, Method> = console): () => void {
  const originals = new Map<Method, (...args: unknown[]) => void>();
  for (const method of Object.keys(LEVELS) as Method[]) {
    originals.set(method, target[method]);
    target[method] = (...args: unknown[]) => {
      const err = args.find((arg): arg is Error => arg instanceof Error);
      const rest = args.filter((arg) => arg !== err);
      const msg = rest.length > 0 ? format(...rest) : (err?.message ?? '');
      log[LEVELS[method]]({ ...(err ? { err } : {}), console: method }, msg);
    };
  }
  return () => {
    for (const [method, original] of originals) target[method] = original;
  };
}
