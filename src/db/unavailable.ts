// Whether an error means "the database cannot be reached right now" (it crashed, restarts, is still
// recovering, or the network to it is down) rather than a fault of the request or of the code. Such
// an error is answered 503 with a retry-after: retrying the same request later can succeed.

// Socket errors of the connection itself. Only with a `syscall`: Node's http server reports a client
// that went away mid-request as ECONNRESET without one, and that is not the database's doing.
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);

// SQLSTATEs of a server that goes away or is not accepting work yet: class 08 (connection
// exception), admin_shutdown, crash_shutdown, cannot_connect_now (starting up, in recovery,
// shutting down), and too_many_connections (every slot taken, as several web and worker processes
// on one server can do: a slot frees when another process's connection closes).
const SERVER_GONE = /^(08...|57P01|57P02|57P03|53300)$/;
// A database an operator closed to connections for maintenance (`allow_connections false`) refuses
// a new one with object_not_in_prerequisite_state, a code other faults share: known by its message.
const CLOSED_TO_CONNECTIONS = /^database ".{1,200}" is not currently accepting connections$/;

// node-postgres reports a connection that broke, or that could not be made in time, with these
// messages and no code.
const QUERY_TIMEOUT = /^Query read timeout$/;
const CLIENT_MESSAGES = [
  /^Connection terminated/,
  // A query the database did not answer in time (WEB_QUERY_TIMEOUT_MS): it hangs.
  QUERY_TIMEOUT,
  /^Client has encountered a connection error and is not queryable$/,
  /^timeout exceeded when trying to connect$/,
];

export function isDatabaseUnavailable(err: unknown, depth = 0): boolean {
  if (typeof err !== 'object' || err === null || depth > 3) return false;
  const { code, syscall, message, errors, cause } = err as { code?: unknown; syscall?: unknown; message?: unknown; errors?: unknown; cause?: unknown };
  if (typeof code === 'string' && typeof syscall === 'string' && NETWORK_CODES.has(code)) return true;
  if (typeof code === 'string' && SERVER_GONE.test(code)) return true;
  if (code === '55000' && typeof message === 'string' && CLOSED_TO_CONNECTIONS.test(message)) return true;
  if (typeof code !== 'string' && typeof message === 'string' && CLIENT_MESSAGES.some((pattern) => pattern.test(message))) return true;
  // Connecting to a host name with several addresses fails with an AggregateError of each attempt.
  if (Array.isArray(errors) && errors.length > 0 && errors.every((inner) => isDatabaseUnavailable(inner, depth + 1))) return true;
  return isDatabaseUnavailable(cause, depth + 1);
}

/** Whether node-postgres gave up waiting for a query's answer (the pool's query_timeout). */
export function isQueryTimeout(err: unknown): boolean {
  const message = (err as { message?: unknown } | null)?.message;
  return typeof message === 'string' && (err as { code?: unknown }).code === undefined && QUERY_TIMEOUT.test(message);
}
