import { fromRoot } from './paths.js';

// Every environment variable the service reads, parsed and checked once at start.
export interface Config {
  databaseUrl: string;
  port: number;
  catalogFile: string;
  logLevel: string;
  workerConcurrency: number;
  bodyLimitBytes: number;
  /**
   * The most characters the personal-data firewall scans for one chat request (every text that
   * leaves: messages, names, file names, URLs, tool-call arguments); more is a 413.
   */
  firewallMaxChars: number;
  /** synchronous_commit of the group commit that writes every request's records (metering/groupCommit.ts): on unless set off. */
  meteringSynchronousCommit: 'on' | 'off';
  /** How long an answer is kept for a retry under the same request id to replay (requests__prune). */
  replayRetentionHours: number;
  /** How many days a response stored by the Responses door is kept (responses__prune). */
  responsesRetentionDays: number;
  /** Worker only: the port of its GET /metrics listener (METRICS_PORT); unset, it has none. */
  metricsPort: number | undefined;
  /** WEBHOOKS_ALLOW_HTTP=1: webhooks may go to http URLs and to loopback or private addresses (development, tests). */
  webhooksAllowHttp: boolean;
}

export const DEFAULT_RESPONSES_RETENTION_DAYS = 30;
export const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/polder';
/**
 * 1 MiB of characters: about 260,000 tokens, as much as the largest EU model of the catalogue
 * takes (262,144), and scanned within about a second of CPU in the worst case (see
 * docs/decisions/0002-firewall-cost-bound.md).
 */
export const DEFAULT_FIREWALL_MAX_CHARS = 1_048_576;
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export class ConfigError extends Error {
  override name = 'ConfigError';
}

function positiveInteger(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) {
    throw new ConfigError(`${name} must be a positive integer, got ${JSON.stringify(raw)}`);
  }
  return value;
}

function flag(env: NodeJS.ProcessEnv, name: string): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '' || raw === '0') return false;
  if (raw === '1') return true;
  throw new ConfigError(`${name} must be 1 or 0, got ${JSON.stringify(raw)}`);
}

/**
 * The worker's pool holds about twice WORKER_CONCURRENCY Postgres connections (its jobs, and as
 * many webhook deliveries, src/worker.ts): past this many, one worker would take a default
 * server's every connection slot (max_connections 100), and a typo (80 for 8) stops here instead.
 */
const MAX_WORKER_CONCURRENCY = 48;

function workerConcurrencyOf(env: NodeJS.ProcessEnv): number {
  const concurrency = positiveInteger(env, 'WORKER_CONCURRENCY', 8);
  if (concurrency > MAX_WORKER_CONCURRENCY) {
    throw new ConfigError(
      `WORKER_CONCURRENCY must be at most ${MAX_WORKER_CONCURRENCY} (the worker holds about twice as many Postgres connections), got ${concurrency}`,
    );
  }
  return concurrency;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const logLevel = env.LOG_LEVEL || 'info';
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got ${JSON.stringify(logLevel)}`);
  }
  const port = positiveInteger(env, 'PORT', 8080);
  if (port > 65535) throw new ConfigError(`PORT must be at most 65535, got ${port}`);
  const metricsPort = env.METRICS_PORT ? positiveInteger(env, 'METRICS_PORT', 0) : undefined;
  if (metricsPort !== undefined && metricsPort > 65535) throw new ConfigError(`METRICS_PORT must be at most 65535, got ${metricsPort}`);
  // The worker listens on METRICS_PORT, web on PORT: one port cannot take both (web would then say its port is taken).
  if (metricsPort === port) throw new ConfigError(`METRICS_PORT must differ from PORT (${port}): the worker's metrics and web cannot listen on one port`);
  const meteringSynchronousCommit = env.METERING_SYNCHRONOUS_COMMIT || 'on';
  if (meteringSynchronousCommit !== 'on' && meteringSynchronousCommit !== 'off') {
    throw new ConfigError(`METERING_SYNCHRONOUS_COMMIT must be on or off, got ${JSON.stringify(meteringSynchronousCommit)}`);
  }
  const databaseUrl = env.DATABASE_URL || DEFAULT_DATABASE_URL;
  // Anything else reaches pg as a host name (DATABASE_URL=garbage: "getaddrinfo ENOTFOUND base").
  // The value is not quoted back: it may hold a password.
  if (!/^postgres(ql)?:\/\//.test(databaseUrl) || !URL.canParse(databaseUrl)) {
    throw new ConfigError('DATABASE_URL must be a postgres:// URL, such as postgres://user:password@host:5432/polder; the value set is not one');
  }
  return {
    meteringSynchronousCommit,
    databaseUrl,
    port,
    catalogFile: env.CATALOG_FILE || fromRoot('catalog/catalog.yaml'),
    logLevel,
    workerConcurrency: workerConcurrencyOf(env),
    bodyLimitBytes: positiveInteger(env, 'BODY_LIMIT', 20 * 1024 * 1024),
    replayRetentionHours: positiveInteger(env, 'REPLAY_RETENTION_HOURS', 24),
    responsesRetentionDays: positiveInteger(env, 'RESPONSES_RETENTION_DAYS', DEFAULT_RESPONSES_RETENTION_DAYS),
    firewallMaxChars: positiveInteger(env, 'FIREWALL_MAX_CHARS', DEFAULT_FIREWALL_MAX_CHARS),
    metricsPort,
    webhooksAllowHttp: flag(env, 'WEBHOOKS_ALLOW_HTTP'),
  };
}
