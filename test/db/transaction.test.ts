import { expect } from 'chai';
import type { Pool, PoolClient } from '../../src/db/pool.js';
import { withTransaction } from '../../src/db/transaction.js';
import { answerableError, CommitOutcomeUnknown } from '../../src/errors.js';

// A pool whose one connection fails the statements named, and records what it was asked and how it went back.
function poolFailing(failing: Record<string, Error>) {
  const asked: string[] = [];
  const released: (Error | undefined)[] = [];
  const client = {
    query: async (sql: string) => {
      asked.push(sql);
      if (failing[sql]) throw failing[sql];
      return { rows: [] };
    },
    release: (err?: Error) => released.push(err),
  } as unknown as PoolClient;
  return { pool: { connect: async () => client } as unknown as Pool, asked, released };
}

describe('withTransaction', () => {
  it('says that a commit the database went away during may have been done, and tells the caller how to retry safely', async () => {
    const lost = new Error('Connection terminated unexpectedly');
    const { pool, asked, released } = poolFailing({ commit: lost });
    const err = await withTransaction(pool, async (client) => client.query('insert')).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(CommitOutcomeUnknown);
    expect((err as CommitOutcomeUnknown).cause).to.equal(lost);
    const answer = answerableError(err)!;
    expect(answer.status).to.equal(503);
    expect(answer.code).to.equal('service_unavailable');
    expect(answer.message).to.match(/may have been done: sent again under the same X-Request-Id it is safe/);
    // No rollback on a connection that is gone, and the connection is closed, not reused.
    expect(asked).to.deep.equal(['begin', 'insert', 'commit']);
    expect(released).to.deep.equal([lost]);
  });

  it('rolls back work that failed and reuses the connection; a commit refused by the database is its error, the connection reused', async () => {
    const refused = Object.assign(new Error('deferred constraint'), { code: '23505' });
    const failedWork = poolFailing({ insert: new Error('bad row') });
    await withTransaction(failedWork.pool, async (client) => client.query('insert')).catch(() => undefined);
    expect(failedWork.asked).to.deep.equal(['begin', 'insert', 'rollback']);
    expect(failedWork.released).to.deep.equal([undefined]);
    const failedCommit = poolFailing({ commit: refused });
    expect(await withTransaction(failedCommit.pool, async (client) => client.query('insert')).catch((e: unknown) => e)).to.equal(refused);
    expect(failedCommit.released).to.deep.equal([undefined]);
  });

  it('closes a connection whose query timed out (it is still busy with it) instead of rolling back on it', async () => {
    const timedOut = new Error('Query read timeout');
    const { pool, asked, released } = poolFailing({ insert: timedOut });
    expect(await withTransaction(pool, async (client) => client.query('insert')).catch((e: unknown) => e)).to.equal(timedOut);
    expect(asked).to.deep.equal(['begin', 'insert']);
    expect(released).to.deep.equal([timedOut]);
    expect(answerableError(timedOut)!.status).to.equal(503);
  });
});
