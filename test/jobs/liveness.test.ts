import { expect } from 'chai';
import { WorkerLiveness } from '../../src/jobs/liveness.js';
import { addJob } from '../../src/jobs/registry.js';
import { createTestDatabase, waitFor, type TestDatabase } from '../helpers/db.js';
import { capturedLogger } from '../helpers/logs.js';

// A pool this process gives up on (released, or stuck in its shutdown: JobRunner) stops beating,
// and the jobs it still locks run again.
describe('WorkerLiveness', () => {
  let db: TestDatabase;
  before(async () => {
    db = await createTestDatabase();
  });
  after(async () => {
    await db.drop();
  });

  it('frees the jobs of a pool it abandons and forgets its heartbeat', async () => {
    const liveness = new WorkerLiveness(db.pool, capturedLogger('info').log, { beatMs: 50, sweepMs: 60_000 }).start();
    try {
      liveness.events.emit('pool:create', { workerPool: { id: 'pool-abandoned' } } as never);
      await waitFor(async () => (await db.pool.query("select 1 from worker_heartbeats where pool_id = 'pool-abandoned'")).rowCount === 1, {
        what: 'the first heartbeat',
      });
      await addJob(db.pool, 'requests__prune', {});
      await db.pool.query("update graphile_worker._private_jobs set locked_by = 'pool-abandoned', locked_at = now()");

      liveness.abandon(['pool-abandoned']);
      await waitFor(async () => (await db.pool.query('select 1 from graphile_worker._private_jobs where locked_by is not null')).rowCount === 0, {
        what: 'the job freed',
      });
      // No beat brings it back.
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect((await db.pool.query("select 1 from worker_heartbeats where pool_id = 'pool-abandoned'")).rowCount).to.equal(0);
    } finally {
      await liveness.stop();
    }
  });
});
