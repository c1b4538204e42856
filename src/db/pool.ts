import pg from 'pg';

export type Pool = pg.Pool;
export type PoolClient = pg.PoolClient;
/** Anything that can run a query: the pool, or a client inside a transaction. */
export type Queryable = Pick<pg.Pool, 'query'> | pg.PoolClient;

/**
 * A pool whose idle and checked-out clients report connection errors instead of crashing the
 * process (pg emits 'error' on them when the server goes away, and an unheard 'error' throws).
 */
export function createPool(
  connectionString: string,
  max = 10,
  onError: (err: Error) => void = () => undefined,
): pg.Pool {
  const pool = new pg.Pool({ connectionString, max, application_name: 'polder' });
  pool.on('error', onError);
  pool.on('connect', (client) => client.on('error', onError));
  return pool;
}
