import pg from 'pg';

export type Pool = pg.Pool;
export type PoolClient = pg.PoolClient;
/** Anything that can run a query: the pool, or a client inside a transaction. */
export type Queryable = Pick<pg.Pool, 'query'> | pg.PoolClient;

/**
 * A pool whose idle and checked-out clients report connection errors instead of crashing the
 * process (pg emits 'error' on them when the server goes away, and an unheard 'error' throws).
 */
export const CONNECT_TIMEOUT_MS = 5_000;

/**
 * How long web waits for a query's answer: a database that hangs (a frozen primary, a partition)
 * would otherwise hold a request sent on an open connection until it answers. Far above any query a
 * request makes; a query given up on closes its connection (the server rolls its transaction back).
 */
export const WEB_QUERY_TIMEOUT_MS = 15_000;

export function createPool(
  connectionString: string,
  max = 10,
  onError: (err: Error) => void = () => undefined,
  { queryTimeoutMs }: { queryTimeoutMs?: number } = {},
): pg.Pool {
  // A database that does not answer (a hung primary, a partition) must not hold a request that
  // needs a new connection forever: it is refused after 5 s, and answered 503 like an outage.
  const pool = new pg.Pool({
    connectionString,
    max,
    application_name: 'polder',
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    ...(queryTimeoutMs !== undefined ? { query_timeout: queryTimeoutMs } : {}),
  });
  const report = (err: Error) => onError(withoutClient(err));
  pool.on('error', report);
  pool.on('connect', (client) => client.on('error', report));
  return pool;
}

// pg-pool hangs the whole client on the error of an idle one (err.client): logged as it is, that
// would write the connection parameters, password included, on every connection a database outage
// breaks. The handler gets the error without it.
function withoutClient(err: Error): Error {
  if (!('client' in err)) return err;
  const { client: _client, ...fields } = err as Error & { client?: unknown };
  return Object.assign(new Error(err.message), fields, { name: err.name, stack: err.stack });
}
