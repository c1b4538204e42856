import { pino, type DestinationStream, type Logger } from 'pino';

// Secrets must never reach the logs: every header that carries a credential, and anything that
// looks like a key field.
const CREDENTIAL_HEADERS = ['authorization', 'x-api-key', 'api-key', 'cookie', 'proxy-authorization', 'set-cookie'];
export const REDACTED_PATHS = [
  ...CREDENTIAL_HEADERS.flatMap((header) => [`req.headers["${header}"]`, `headers["${header}"]`]),
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
    serializers: { err: serializeError },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  // Asynchronous writes to stdout: the lines written while one write is in flight go out together,
  // not as one write(2) each (one access-log line per request at info). pino flushes what is left
  // when the process exits. When stdout stops taking lines, those beyond 16 MiB waiting are
  // dropped: a stuck log reader must not grow the web process until it dies.
  return pino(options, destination ?? pino.destination({ dest: 1, sync: false, maxLength: 16 * 1024 * 1024 }));
}

// Postgres quotes the offending value in many of its messages (`invalid input syntax for type
// uuid: "…"`) and repeats it in `detail` and `where`, and pg keeps the statement's internal query:
// any of those can be a caller's prompt or an end-user's identifier. A database error is logged by
// its code, its names of schema objects and its message with the quoted parts taken out.
const DATABASE_ERROR_FIELDS = ['code', 'severity', 'routine', 'schema', 'table', 'column', 'constraint'] as const;
const MAX_MESSAGE_CHARS = 500;

function isDatabaseError(err: unknown): err is Error & Record<string, unknown> {
  return err instanceof Error && typeof (err as { code?: unknown }).code === 'string' && 'severity' in err && 'routine' in err;
}

function withoutQuotedValues(message: string): string {
  return message.slice(0, MAX_MESSAGE_CHARS).replace(/"[^"]*"/g, '"…"');
}

function serializeError(err: unknown, depth = 0): unknown {
  if (!isDatabaseError(err)) {
    const serialized = pino.stdSerializers.err(err as Error) as Record<string, unknown> | undefined;
    const cause = (err as { cause?: unknown } | null)?.cause;
    if (serialized && cause !== undefined && depth < 3) serialized.cause = serializeError(cause, depth + 1);
    return serialized;
  }
  const message = withoutQuotedValues(err.message);
  const frames = (err.stack ?? '').split('\n').slice(1).join('\n');
  const fields = Object.fromEntries(DATABASE_ERROR_FIELDS.filter((f) => err[f] !== undefined).map((f) => [f, err[f]]));
  return { type: err.constructor.name, message, ...fields, stack: `${err.name}: ${message}\n${frames}` };
}

export type { Logger };
