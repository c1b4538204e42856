import { expect } from 'chai';
import { addJob } from '../../src/jobs/registry.js';
import { createKey } from '../../src/tenancy/keys.js';
import { api } from '../helpers/app.js';
import { startWeb, startWorker, stopProcess, type WebProcess, type WorkerProcess } from '../helpers/cluster.js';
import { createTestDatabase, waitFor, type TestDatabase } from '../helpers/db.js';

// A web process that dies without giving back the credits it leased (killed, out of memory) must
// not hold a budget until its month ends: its leases are traced to it (sql/0033) and the worker's
// limits__reclaim gives them back once it has not been seen for two minutes.
describe('credit leases of a web process that died', function () {
  this.timeout(60_000);
  let db: TestDatabase;
  let first: WebProcess;
  let second: WebProcess;
  let worker: WorkerProcess;
  before(async () => {
    db = await createTestDatabase();
    [first, second, worker] = await Promise.all([startWeb({ DATABASE_URL: db.url }), startWeb({ DATABASE_URL: db.url }), startWorker({ DATABASE_URL: db.url })]);
  });
  after(async () => {
    for (const process of [first, second, worker]) await stopProcess(process);
    await db.drop();
  });

  // Without max_tokens a request reserves the model's whole context (about 31.5 credits of local/echo).
  const uncapped = (web: WebProcess, key: string, content: string) =>
    api(web.url, '/v1/chat/completions', { method: 'POST', key, body: { model: 'local/echo', cache: false, messages: [{ role: 'user', content }] } });
  const monthCounter = async (workspaceId: string) =>
    (
      await db.pool.query<{ leased: number; held: number }>(
        `select c.leased::float8 as leased,
                (select coalesce(sum(l.amount), 0)::float8 from limit_leases l
                  where (l.scope_kind, l.scope_id, l.counter, l.window_start) = (c.scope_kind, c.scope_id, c.counter, c.window_start)) as held
           from limit_counters c where c.scope_kind = 'workspace' and c.scope_id = $1 and c.counter = 'credits_month'`,
        [workspaceId],
      )
    ).rows[0]!;

  it('a budget held by a killed process is given back by limits__reclaim, and a stopped one gives back its own', async () => {
    const { key, workspace_id: workspaceId } = await createKey(db.pool, { organization: 'crash', workspace: 'w', kind: 'organization' });
    expect((await api(first.url, '/v1/settings/limits', { method: 'PUT', key, body: { workspace: { credits_per_month: 40 } } })).status).to.equal(200);

    const answered = await uncapped(first, key, 'eerste vraag');
    expect(answered.status, answered.text).to.equal(200);
    // The first process holds what the answer did not use: the counter counts it, as the holder's.
    const afterAnswer = await monthCounter(workspaceId);
    expect(afterAnswer.leased).to.be.greaterThan(30);
    expect(afterAnswer.held).to.equal(afterAnswer.leased);

    first.child.kill('SIGKILL');
    await waitFor(async () => first.child.exitCode !== null || first.child.signalCode !== null, { what: 'the first web to die' });
    // A live process would give back what it holds unused when asked (decision 0023); a dead one
    // cannot. One whose presence is known is reclaimed by the asker at once (twoProcesses.test.ts);
    // one without (a release before sql/0038) leaves the second process refused after waiting for
    // it a moment, until limits__reclaim.
    await db.pool.query('update limit_holders set presence = null');
    expect((await uncapped(second, key, 'tweede vraag')).status).to.equal(402);
    // Two minutes without a sign of life, as the worker would find it later.
    await db.pool.query(`update limit_holders set seen_at = now() - interval '3 minutes' where holder in (select holder from limit_leases)`);
    await addJob(db.pool, 'limits__reclaim', {} as never);
    await waitFor(async () => (await monthCounter(workspaceId)).leased === 0, { what: 'the dead process’s lease given back', timeoutMs: 20_000 });
    expect((await monthCounter(workspaceId)).held).to.equal(0);

    // The second process asks Postgres again a moment after it found the budget exhausted.
    await waitFor(async () => (await uncapped(second, key, 'derde vraag')).status === 200, { what: 'the budget free again', timeoutMs: 5_000 });
    const held = await monthCounter(workspaceId);
    expect(held.leased).to.be.greaterThan(30);
    // A process that stops gives back everything it held, and is forgotten.
    await stopProcess(second);
    expect(await monthCounter(workspaceId)).to.deep.equal({ leased: 0, held: 0 });
    const { rows } = await db.pool.query<{ holders: number }>('select count(*)::int as holders from limit_holders');
    expect(rows[0]!.holders).to.equal(0);
  });
});
