import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { addJob } from '../../src/jobs.js';
import { revokeKey } from '../../src/tenancy/keys.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { waitFor } from '../helpers/db.js';

describe('tasks/audit__record', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
    await app.startWorker();
  });
  after(async () => {
    await app.close();
  });

  it('writes the row of an enqueued entry, once', async () => {
    const key = await app.key();
    const eventId = randomUUID();
    const entry = {
      event_id: eventId,
      organization_id: key.organization_id,
      workspace_id: key.workspace_id,
      at: new Date().toISOString(),
      actor: { key_id: key.key_id, kind: 'organization' as const },
      action: 'test.happened',
      target: 'thing-1',
      details: { n: 1 },
    };
    await addJob(app.db.pool, 'audit__record', { entries: [entry] });
    await addJob(app.db.pool, 'audit__record', { entries: [entry] });
    const row = await waitFor(
      async () => (await app.db.pool.query('select * from audit_log where event_id = $1', [eventId])).rows[0],
      { what: 'the audit row' },
    );
    expect(row).to.include({ action: 'test.happened', target: 'thing-1', actor_kind: 'organization' });
    expect(row.details).to.deep.equal({ n: 1 });
    await waitFor(
      async () =>
        (await app.db.pool.query("select count(*)::int as n from graphile_worker.jobs where task_identifier = 'audit__record'"))
          .rows[0].n === 0,
      { what: 'the queue to drain' },
    );
    const { rows } = await app.db.pool.query('select count(*)::int as n from audit_log where event_id = $1', [eventId]);
    expect(rows[0].n).to.equal(1);
  });

  it('audits every key creation and revocation', async () => {
    const key = await app.key({ org: 'audited', workspace: 'w' });
    await revokeKey(app.db.pool, key.key_id);
    const actions = await waitFor(
      async () => {
        const { rows } = await app.db.pool.query(
          'select action from audit_log where target = $1 order by id',
          [key.key_id],
        );
        return rows.length === 2 ? rows.map((r) => r.action) : undefined;
      },
      { what: 'two audit rows for the key' },
    );
    expect(actions).to.deep.equal(['api_key.created', 'api_key.revoked']);
  });

  it('fails a job whose payload is malformed instead of writing half a row', async () => {
    await app.db.pool.query(
      "select graphile_worker.add_job('audit__record', $1::json, max_attempts => 1)",
      [JSON.stringify({ action: 'missing-everything' })],
    );
    const failed = await waitFor(
      async () =>
        (
          await app.db.pool.query(
            "select last_error from graphile_worker.jobs where task_identifier = 'audit__record' and attempts >= 1 and last_error is not null",
          )
        ).rows[0],
      { what: 'the malformed job to fail' },
    );
    expect(failed.last_error).to.contain('invalid payload');
    const { rows } = await app.db.pool.query("select count(*)::int as n from audit_log where action = 'missing-everything'");
    expect(rows[0].n).to.equal(0);
  });
});
