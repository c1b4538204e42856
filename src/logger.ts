import { pino, type DestinationStream, type Logger } from 'pino';

// Secrets must never reach the logs: the bearer token, and anything that looks like a key field.
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'headers.authorization',
  'authorization',
  '*.api_key',
  '*.apiKey',
  'key',
];

export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options = {
    level,
    base: { service: 'polder' },
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  // Asynchronous writes to stdout: the lines written while one write is in flight go out together,
  // not as one write(2) each (one access-log line per request at info). pino flushes what is left
  // when the process exits. When stdout stops taking lines, those beyond 16 MiB waiting are
  // dropped: a stuck log reader must not grow the web process until it dies.
  return pino(options, destination ?? pino.destination({ dest: 1, sync: false, maxLength: 16 * 1024 * 1024 }));
}

export type { Logger };
