import { expect } from 'chai';
import { addJob } from '../../src/jobs/registry.js';
import { bodyHash } from '../../src/metering/requestIds.js';
import type { CreatedKey } from '../../src/tenancy/keys.js';
import { api, startTestApp, type TestApp } from '../helpers/app.js';
import { waitFor } from '../helpers/db.js';

// The requests table keeps what a retry needs, not a row per request forever.
describe('tasks/requests__prune', () => {
  let app: TestApp;
  let key: CreatedKey;
  before(async () => {
    app = await startTestApp();
    key = await app.key();
    await app.startWorker();
  });
  after(async () => {
    await app.close();
  });

  const body = { model: 'local/echo', messages: [{ role: 'user', content: 'Goedemorgen' }], cache: false };
  const chat = (headers: Record<string, string> = {}) => api(app.baseUrl, '/v1/chat/completions', { method: 'POST', key: key.key, headers, body });
  const requestRow = async (id: string) =>
    (await app.db.pool.query('select state, response is not null as kept from requests where request_id = $1', [id])).rows[0] as
      | { state: string; kept: boolean }
      | undefined;
  const usageCount = async (id: string) => (await app.db.pool.query('select 1 from usage where request_id = $1', [id])).rowCount;
  const age = async (id: string, interval: string) => {
    await app.db.pool.query('update requests set created_at = now() - $2::interval where request_id = $1', [id, interval]);
  };
  const prune = async () => {
    await addJob(app.db.pool, 'requests__prune', {});
    await waitFor(
      async () => {
        const { rows } = await app.db.pool.query("select last_error from graphile_worker.jobs where task_identifier = 'requests__prune'");
        if (rows[0]?.last_error) throw new Error(`the prune job failed: ${rows[0].last_error}`);
        return rows.length === 0;
      },
      { what: 'the prune job to finish' },
    );
  };
  const billed = async () => {
    const response = await chat();
    expect(response.status).to.equal(200);
    const id = response.headers.get('x-request-id')!;
    await waitFor(async () => (await usageCount(id)) === 1, { what: 'the usage row' });
    return id;
  };

  it('leaves no row for a generated id, and still refuses to run that id again once it is billed', async () => {
    const generated = await billed();
    expect(await requestRow(generated)).to.equal(undefined);
    await prune();
    const reused = await chat({ 'x-request-id': generated });
    expect(reused.status).to.equal(422);
    expect(reused.body.errors['X-Request-Id'][0]).to.match(/not kept for replay/);
    expect(await usageCount(generated)).to.equal(1);
    expect(await requestRow(generated)).to.equal(undefined);
  });

  it('keeps an answer for replay for REPLAY_RETENTION_HOURS (24 by default), then deletes it and never bills its id again', async () => {
    const chosen = await chat({ 'x-request-id': 'prune-chosen-1' });
    expect(chosen.status).to.equal(200);
    await chat({ 'x-request-id': 'prune-chosen-2' });
    await app.db.pool.query(`update requests set created_at = now() - interval '23 hours', completed_at = now() - interval '23 hours' where request_id = 'prune-chosen-1'`);
    await app.db.pool.query(`update requests set created_at = now() - interval '25 hours', completed_at = now() - interval '25 hours' where request_id = 'prune-chosen-2'`);
    await prune();
    expect(await requestRow('prune-chosen-1')).to.deep.equal({ state: 'completed', kept: true });
    const replay = await chat({ 'x-request-id': 'prune-chosen-1' });
    expect(replay.status).to.equal(200);
    expect(replay.headers.get('x-replay')).to.equal('true');
    expect(replay.body).to.deep.equal(chosen.body);
    // Past the retention the answer is gone; its id still bills the first request only.
    expect(await requestRow('prune-chosen-2')).to.equal(undefined);
    const late = await chat({ 'x-request-id': 'prune-chosen-2' });
    expect(late.status).to.equal(422);
    expect(late.body.errors['X-Request-Id'][0]).to.match(/not kept for replay/);
    expect(await usageCount('prune-chosen-2')).to.equal(1);
  });

  it('frees an id whose claim a dead process left running for an hour, so that its retry runs', async () => {
    await app.db.pool.query(
      `insert into requests (workspace_id, request_id, organization_id, kind, body_hash, state, created_at)
       values ($1, 'prune-stuck', $2, 'chat', $3, 'running', now() - interval '61 minutes'),
              ($1, 'prune-busy', $2, 'chat', $3, 'running', now() - interval '10 minutes')`,
      [key.workspace_id, key.organization_id, bodyHash(body)],
    );
    expect((await chat({ 'x-request-id': 'prune-stuck' })).status).to.equal(409);
    await prune();
    expect(await requestRow('prune-busy')).to.deep.equal({ state: 'running', kept: false });
    const retry = await chat({ 'x-request-id': 'prune-stuck' });
    expect(retry.status).to.equal(200);
    await waitFor(async () => (await usageCount('prune-stuck')) === 1, { what: 'the retry billed' });
  });
});
