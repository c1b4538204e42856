import { CommitOutcomeUnknown } from '../errors.js';
import { isDatabaseUnavailable, isQueryTimeout } from './unavailable.js';
import type { Pool, PoolClient } from './pool.js';

export async function withTransaction<T>(pool: Pool, work: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  // A connection lost mid-commit, one whose query timed out (it is still busy with it) or one that
  // cannot be rolled back is closed rather than reused: the server rolls back an open transaction
  // whose connection closes.
  let broken: Error | undefined;
  let committing = false;
  try {
    await client.query('begin');
    const result = await work(client);
    committing = true;
    await client.query('commit');
    return result;
  } catch (err) {
    if (committing && isDatabaseUnavailable(err)) {
      broken = err as Error;
      throw new CommitOutcomeUnknown(err);
    }
    if (isQueryTimeout(err)) broken = err as Error;
    // A failed commit has ended the transaction already.
    else if (!committing) {
      await client.query('rollback').catch((rollbackErr: Error) => {
        broken = rollbackErr;
      });
    }
    throw err;
  } finally {
    client.release(broken);
  }
}
