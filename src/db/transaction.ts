import { isQueryTimeout } from './unavailable.js';
import type { Pool, PoolClient } from './pool.js';

export async function withTransaction<T>(pool: Pool, work: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  // A connection that cannot be rolled back, or whose query timed out (it is still busy with it), is
  // closed rather than reused: the server rolls back a transaction whose connection closes.
  let broken: Error | undefined;
  try {
    await client.query('begin');
    const result = await work(client);
    await client.query('commit');
    return result;
  } catch (err) {
    if (isQueryTimeout(err)) broken = err as Error;
    else {
      await client.query('rollback').catch((rollbackErr: Error) => {
        broken = rollbackErr;
      });
    }
    throw err;
  } finally {
    client.release(broken);
  }
}
