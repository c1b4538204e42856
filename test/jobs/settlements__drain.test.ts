import { expect } from 'chai';
import { auditEntry } from '../../src/jobs.js';
import { GroupCommitter, type Settlement } from '../../src/metering/groupCommit.js';
import { eraseEndUser } from '../../src/memory/erasure.js';
import type { CreatedKey } from '../../src/tenancy/keys.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { waitFor } from '../helpers/db.js';

// What the group commit leaves in pending_settlements reaches usage, traces, audit_log and
// thread_messages through the settlements__drain job, which a committed batch triggers.
describe('tasks/settlements__drain', () => {
  let app: TestApp;
  let key: CreatedKey;
  let committer: GroupCommitter;
  before(async () => {
    app = await startTestApp();
    key = await app.key();
    committer = new GroupCommitter(app.db.url);
  });
  after(async () => {
    await committer.close();
    await app.close();
  });

  const pendingCount = async () => (await app.db.pool.query('select count(*)::int as n from pending_settlements where failed_at is null')).rows[0].n as number;
  /** Waits for the drain; when it does not come, says what the rows and the drain jobs were left at. */
  const drained = async () => {
    try {
      await waitFor(async () => (await pendingCount()) === 0, { what: 'the pending settlements to drain' });
    } catch (err) {
      const rows = await app.db.pool.query('select id, failed_at is not null as set_aside, error from pending_settlements order by id');
      const jobs = await app.db.pool.query(
        "select attempts, run_at, locked_at, last_error from graphile_worker.jobs where task_identifier = 'settlements__drain'",
      );
      throw new Error(`${(err as Error).message}; pending rows: ${JSON.stringify(rows.rows)}; drain jobs: ${JSON.stringify(jobs.rows)}`);
    }
  };

  function settlement(requestId: string, { user = null as string | null, thread = null as string | null } = {}): Settlement {
    const now = new Date().toISOString();
    const ids = { workspace_id: key.workspace_id, organization_id: key.organization_id };
    return {
      workspaceId: key.workspace_id,
      usage: {
        ...ids,
        request_id: requestId,
        kind: 'chat',
        model: 'test/model',
        provider: 'eu-a',
        prompt_tokens: 10,
        completion_tokens: 5,
        cached_tokens: 0,
        credits: { base: 0.002, services: 0, total: 0.002 },
        created_at: now,
      },
      trace: {
        ...ids,
        id: requestId,
        key_id: key.key_id,
        name: null,
        tags: ['t'],
        thread,
        end_user: user,
        application: null,
        trace_id: null,
        parent_span_id: null,
        model: 'test/model',
        provider: 'eu-a',
        attempts: [],
        status: 200,
        latency_ms: 1.5,
        prompt_tokens: 10,
        completion_tokens: 5,
        cached_tokens: 0,
        credits: { base: 0.002, services: 0, total: 0.002 },
        stream: false,
        cache: 'MISS',
        input: { messages: [{ role: 'user', content: 'hi' }] },
        output: [],
        notes: [],
        sources: [],
        firewall: null,
        created_at: now,
      },
      audit: auditEntry({ ...ids, actor: { key_id: key.key_id, kind: 'organization' }, action: 'chat.completion', target: requestId, details: {} }),
      ...(thread
        ? {
            thread: {
              ...ids,
              thread,
              request_id: requestId,
              created_at: now,
              messages: [
                { role: 'user', content: 'hi' },
                { role: 'assistant', content: 'hello' },
              ],
            },
          }
        : {}),
    };
  }

  it('keeps a settled batch pending until a worker runs, then writes every part once', async () => {
    const ids = ['drain-1', 'drain-2', 'drain-3'];
    await Promise.all(ids.map((id, i) => committer.settle(settlement(id, { thread: i === 0 ? 'drain-thread' : null }))));
    expect(await pendingCount()).to.equal(3);
    expect((await app.db.pool.query('select 1 from usage where request_id = any($1)', [ids])).rowCount).to.equal(0);

    await app.startWorker();
    await drained();
    const usage = await app.db.pool.query('select request_id, prompt_tokens, credits_total from usage where request_id = any($1) order by request_id', [ids]);
    expect(usage.rows.map((r) => r.request_id)).to.deep.equal(ids);
    expect(Number(usage.rows[0].credits_total)).to.be.closeTo(0.002, 1e-9);
    expect((await app.db.pool.query('select 1 from traces where id = any($1)', [ids])).rowCount).to.equal(3);
    expect((await app.db.pool.query("select 1 from audit_log where action = 'chat.completion' and target = any($1)", [ids])).rowCount).to.equal(3);
    const messages = await app.db.pool.query("select role from thread_messages where thread_id = 'drain-thread' order by position");
    expect(messages.rows.map((r) => r.role)).to.deep.equal(['user', 'assistant']);
  });

  it('writes nothing twice when the same records are settled again', async () => {
    const again = settlement('drain-1');
    await committer.settle(again);
    await drained();
    expect((await app.db.pool.query("select 1 from usage where request_id = 'drain-1'")).rowCount).to.equal(1);
    expect((await app.db.pool.query("select 1 from traces where id = 'drain-1'")).rowCount).to.equal(1);
  });

  it('sets a row it cannot write aside, with the reason, and writes the rest of its batch', async () => {
    const bad = settlement('drain-bad');
    // Valid by the drain's schema, refused by the usage table: more tokens than its integer column holds.
    bad.usage = { ...bad.usage!, prompt_tokens: 2 ** 31 };
    const unreadable = settlement('drain-unreadable');
    (unreadable.usage as unknown as Record<string, unknown>).prompt_tokens = 'many';
    await Promise.all([committer.settle(bad), committer.settle(unreadable), committer.settle(settlement('drain-good'))]);
    await waitFor(async () => (await app.db.pool.query("select 1 from usage where request_id = 'drain-good'")).rowCount === 1, {
      what: 'the good row of the batch',
    });
    const failed = await waitFor(
      async () => {
        const { rows } = await app.db.pool.query('select error from pending_settlements where failed_at is not null order by id');
        return rows.length === 2 ? rows : undefined;
      },
      { what: 'two rows set aside' },
    );
    expect(failed[0].error).to.match(/out of range for type integer/);
    expect(failed[1].error).to.match(/usage\/prompt_tokens must be integer/);
    expect((await app.db.pool.query("select 1 from usage where request_id in ('drain-bad', 'drain-unreadable')")).rowCount).to.equal(0);
    expect(await pendingCount()).to.equal(0);
  });

  it('never bills a negative token count: the batch falls back to checking each row, and only that row is set aside', async () => {
    const negative = settlement('drain-negative');
    negative.usage = { ...negative.usage!, completion_tokens: -5 };
    const before = (await app.db.pool.query('select count(*)::int as n from pending_settlements where failed_at is not null')).rows[0].n as number;
    await Promise.all([committer.settle(negative), committer.settle(settlement('drain-alongside'))]);
    await drained();
    const { rows } = await app.db.pool.query('select error from pending_settlements where failed_at is not null order by id offset $1', [before]);
    expect(rows).to.have.length(1);
    expect(rows[0].error).to.match(/usage\/completion_tokens must be >= 0/);
    const billed = await app.db.pool.query("select request_id from usage where request_id in ('drain-negative', 'drain-alongside')");
    expect(billed.rows.map((r) => r.request_id)).to.deep.equal(['drain-alongside']);
    expect((await app.db.pool.query("select 1 from traces where id = 'drain-alongside'")).rowCount).to.equal(1);
  });

  it('lets no malformed trace or over-long request id land by the fast path: both are set aside with their reasons', async () => {
    const listless = settlement('drain-listless');
    (listless.trace as unknown as Record<string, unknown>).attempts = { first: 'eu-a' };
    const overlong = settlement(`drain-${'x'.repeat(300)}`);
    const before = (await app.db.pool.query('select count(*)::int as n from pending_settlements where failed_at is not null')).rows[0].n as number;
    await Promise.all([committer.settle(listless), committer.settle(overlong), committer.settle(settlement('drain-shapely'))]);
    await drained();
    const { rows } = await app.db.pool.query('select error from pending_settlements where failed_at is not null order by id offset $1', [before]);
    expect(rows.map((r) => r.error)).to.have.length(2);
    expect(rows[0].error).to.match(/trace\/attempts must be array/);
    expect(rows[1].error).to.match(/usage\/request_id must NOT have more than 255 characters/);
    const landed = await app.db.pool.query("select id from traces where id in ('drain-listless', 'drain-shapely') or length(id) > 255");
    expect(landed.rows.map((r) => r.id)).to.deep.equal(['drain-shapely']);
    expect((await app.db.pool.query('select 1 from usage where length(request_id) > 255')).rowCount).to.equal(0);
  });

  it('lets an erasure drop the trace of the end-user before it lands, and still bills the request', async () => {
    await app.close();
    app = await startTestApp();
    key = await app.key();
    await committer.close();
    committer = new GroupCommitter(app.db.url);
    await committer.settle(settlement('erased-1', { user: 'ann' }));
    await committer.settle(settlement('kept-1', { user: 'bob' }));
    const erasure = await eraseEndUser(app.db.pool, { workspaceId: key.workspace_id, organizationId: key.organization_id, keyId: key.key_id, kind: 'organization' }, 'ann');
    expect(erasure.traces).to.equal(1);
    await app.startWorker();
    await drained();
    expect((await app.db.pool.query("select id from traces order by id")).rows.map((r) => r.id)).to.deep.equal(['kept-1']);
    expect((await app.db.pool.query("select request_id from usage order by request_id")).rows.map((r) => r.request_id)).to.deep.equal(['erased-1', 'kept-1']);
  });
});
