import { loadConfig, type Config } from './config.js';
import type { Logger } from './logger.js';

/**
 * The exit status of a process that cannot start as configured (sysexits' EX_CONFIG): a broken
 * catalogue, a bad environment variable, a port already taken. Starting it again changes nothing,
 * so scripts/run-processes.sh stops on it instead of restarting the process; any other status is a
 * crash, and restarted.
 */
export const EX_CONFIG = 78;

/**
 * Logs why the process cannot start, prints it plainly for a person at a terminal, and exits with
 * EX_CONFIG. What it is given is a configuration error (a broken catalogue, a port taken), which the
 * operator fixes from the message: the log line carries the message (and a catalogue's problems,
 * one by one), never a stack.
 */
export function startupFailure(log: Logger, err: unknown): never {
  const message = err instanceof Error ? err.message : String(err);
  const problems = (err as { problems?: unknown })?.problems;
  log.fatal(Array.isArray(problems) ? { problems } : {}, message);
  process.stderr.write(`polder: cannot start: ${message}\n`);
  process.exit(EX_CONFIG);
}

/**
 * The longest a stop may take: within the 30 s a platform commonly waits before SIGKILL
 * (Kubernetes' default grace period), past web's own 17 s (10 s for requests, 2 s for sockets, 5 s
 * for their records). A database that hangs (a frozen primary) would otherwise hold the stop, the
 * pool's close included, until it answers.
 */
export const STOP_DEADLINE_MS = 25_000;

/** Runs `stop` once on SIGTERM or SIGINT, then exits; a second signal exits at once, as does a stop past `deadlineMs`. */
export function onShutdown(log: Logger, name: string, stop: () => Promise<void>, deadlineMs = STOP_DEADLINE_MS): void {
  let stopping = false;
  const handler = (signal: NodeJS.Signals) => {
    if (stopping) process.exit(1);
    stopping = true;
    log.info({ signal }, `${name} shutting down`);
    setTimeout(() => {
      log.error(`${name} did not stop within ${deadlineMs / 1000} s (is the database hanging?); exiting`);
      process.exit(1);
    }, deadlineMs).unref();
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

/**
 * What a person should read when the database of DATABASE_URL cannot be used (missing, unreachable,
 * refusing the login, not migrated), or undefined for any other error. Names the server, the
 * database and the user, never the password.
 */
export function databaseProblem(err: unknown, databaseUrl: string): string | undefined {
  const { code, message } = (err ?? {}) as { code?: string; message?: string };
  const at = describeDatabaseUrl(databaseUrl);
  switch (code) {
    case '3D000':
      return (
        `database "${at.database}" does not exist on ${at.server}. Create it with npm run setup (a local server: ` +
        `it also installs pgvector), or: createdb -h ${at.host} -p ${at.port} -U ${at.user} ${at.database}; then run npm run migrate`
      );
    case '42P01':
    case '3F000':
      return `database "${at.database}" on ${at.server} is not migrated (${message ?? code}); run npm run migrate`;
    case '28P01':
    case '28000':
      return `the server ${at.server} refused user "${at.user}" for database "${at.database}" (${message ?? code}); check the user and password in DATABASE_URL`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'ECONNREFUSED':
    case 'ETIMEDOUT':
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return `cannot reach the PostgreSQL server of DATABASE_URL (${at.server}): ${code}; is it running, and is DATABASE_URL right?`;
    case 'SELF_SIGNED_CERT_IN_CHAIN':
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY':
    case 'CERT_HAS_EXPIRED':
    case 'ERR_TLS_CERT_ALTNAME_INVALID':
      // node-postgres verifies the certificate for every sslmode but no-verify (require included).
      return (
        `the PostgreSQL server of DATABASE_URL (${at.server}) presented a certificate that was not accepted (${code}); ` +
        `give its CA with sslrootcert=/path/to/ca.pem in DATABASE_URL, or use sslmode=no-verify to encrypt without checking it`
      );
    default:
      if (typeof message === 'string' && /timeout exceeded when trying to connect|Connection terminated due to connection timeout/i.test(message)) {
        return `the PostgreSQL server of DATABASE_URL (${at.server}) did not answer in time; is it running, and is DATABASE_URL right?`;
      }
      if (typeof message === 'string' && /does not support SSL/i.test(message)) {
        return (
          `the PostgreSQL server of DATABASE_URL (${at.server}) does not take SSL connections, and DATABASE_URL's sslmode asks for one; ` +
          `remove sslmode from DATABASE_URL (a server on this machine needs none), or turn SSL on at the server`
        );
      }
      return undefined;
  }
}

function describeDatabaseUrl(databaseUrl: string): { host: string; port: string; database: string; user: string; server: string } {
  try {
    const url = new URL(databaseUrl);
    const host = decodeURIComponent(url.hostname) || url.searchParams.get('host') || 'localhost';
    const port = url.port || '5432';
    const database = decodeURIComponent(url.pathname.slice(1)) || decodeURIComponent(url.username) || 'postgres';
    const user = decodeURIComponent(url.username) || 'postgres';
    return { host, port, database, user, server: `${host}:${port}` };
  } catch {
    return { host: '?', port: '?', database: '?', user: '?', server: 'the server of DATABASE_URL' };
  }
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
