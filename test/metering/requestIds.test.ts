import { expect } from 'chai';
import type { CreatedKey } from '../../src/tenancy/keys.js';
import type { Pool } from '../../src/db/pool.js';
import { releaseRequestId, unreleasedClaims } from '../../src/metering/requestIds.js';
import { api, startTestApp, type TestApp } from '../helpers/app.js';
import { waitFor } from '../helpers/db.js';

describe('metering/requestIds', () => {
  let app: TestApp;
  let key: CreatedKey;
  before(async () => {
    app = await startTestApp();
    key = await app.key();
  });
  after(async () => {
    await app.close();
  });

  it('frees the claim of a failed request once the database is back, when releasing it failed while it was away', async () => {
    await app.db.pool.query(
      `insert into requests (workspace_id, request_id, organization_id, kind, body_hash, state)
       values ($1, 'outage-1', $2, 'chat', '\\x00', 'running')`,
      [key.workspace_id, key.organization_id],
    );
    // The database is away for the first two attempts.
    let refusals = 2;
    const flaky = {
      query: (text: string, values: unknown[]) => (refusals-- > 0 ? Promise.reject(new Error('connect ECONNREFUSED')) : app.db.pool.query(text, values)),
    } as unknown as Pool;
    let thrown: unknown;
    await releaseRequestId(flaky, key.workspace_id, 'outage-1').catch((err: unknown) => (thrown = err));
    expect(thrown).to.be.instanceOf(Error);
    await waitFor(async () => (await app.db.pool.query(`select 1 from requests where request_id = 'outage-1'`)).rowCount === 0 || undefined, {
      what: 'the claim released once the database answered',
      timeoutMs: 10_000,
    });
    expect(unreleasedClaims()).to.equal(0);
  });

  it('refuses the id forms the service bills its own work under, before or after that work', async () => {
    await app.db.pool.query(
      `insert into usage (organization_id, workspace_id, request_id, kind, model, prompt_tokens, created_at)
       values ($1, $2, 'ingest:3f1c2a9e-0000-4000-8000-000000000001', 'ingest', 'local/embed-1024', 12, now())`,
      [key.organization_id, key.workspace_id],
    );
    const response = await api(app.baseUrl, '/v1/chat/completions', {
      method: 'POST',
      key: key.key,
      headers: { 'x-request-id': 'ingest:3f1c2a9e-0000-4000-8000-000000000001' },
      body: { model: 'local/echo', messages: [{ role: 'user', content: 'Hoi' }] },
    });
    expect(response.status).to.equal(422);
    expect(response.body.errors['X-Request-Id'][0]).to.match(/reserved for the service's own work/);
    const claims = await app.db.pool.query('select 1 from requests where request_id = $1', ['ingest:3f1c2a9e-0000-4000-8000-000000000001']);
    expect(claims.rowCount).to.equal(0);
    // Sent first, before the work it names has been billed: refused all the same, so the
    // service's usage row can never be pre-empted by a caller's.
    for (const id of ['ingest:3f1c2a9e-0000-4000-8000-000000000002', 'facts:3f1c2a9e-0000-4000-8000-000000000003']) {
      for (const [path, body] of [
        ['/v1/chat/completions', { model: 'local/echo', messages: [{ role: 'user', content: 'Hoi' }] }],
        ['/v1/embeddings', { model: 'local/embed-1024', input: 'Hoi' }],
        ['/v1/recall/collections', { name: 'Gereserveerd' }],
      ] as const) {
        const early = await api(app.baseUrl, path, { method: 'POST', key: key.key, headers: { 'x-request-id': id }, body });
        expect(early.status, path).to.equal(422);
        expect(early.body.errors['X-Request-Id'][0]).to.match(/reserved/);
      }
      expect((await app.db.pool.query('select 1 from usage where request_id = $1', [id])).rowCount).to.equal(0);
      expect((await app.db.pool.query('select 1 from requests where request_id = $1', [id])).rowCount).to.equal(0);
    }
  });

  it('replays a retry whose Idempotency-Key is longer than 255 characters, billed once: its UUID is made from the key', async () => {
    const body = { model: 'local/echo', messages: [{ role: 'user', content: 'Een lange sleutel' }], cache: false };
    const headers = { 'idempotency-key': `order-2026-11-27-${'k'.repeat(300)}` };
    const first = await api(app.baseUrl, '/v1/chat/completions', { method: 'POST', key: key.key, headers, body });
    const retry = await api(app.baseUrl, '/v1/chat/completions', { method: 'POST', key: key.key, headers, body });
    expect(first.status).to.equal(200);
    expect(retry.status).to.equal(200);
    const id = first.headers.get('x-request-id')!;
    expect(id).to.match(/^[0-9a-f-]{36}$/);
    expect(retry.headers.get('x-request-id')).to.equal(id);
    expect(retry.headers.get('x-replay')).to.equal('true');
    expect(retry.body).to.deep.equal(first.body);
    expect((await app.db.pool.query('select 1 from usage where request_id = $1', [id])).rowCount).to.equal(1);
  });

  it('refuses a generated id sent back right after its answer, and claims nothing', async () => {
    // No worker runs in this file: what takes the id was written before the answer was sent.
    const body = { model: 'local/echo', messages: [{ role: 'user', content: 'Goedemiddag' }] };
    const first = await api(app.baseUrl, '/v1/chat/completions', { method: 'POST', key: key.key, body });
    expect(first.status).to.equal(200);
    const generated = first.headers.get('x-request-id')!;
    expect((await app.db.pool.query('select 1 from usage where request_id = $1', [generated])).rowCount).to.equal(1);

    const reused = await api(app.baseUrl, '/v1/chat/completions', { method: 'POST', key: key.key, headers: { 'x-request-id': generated }, body });
    expect(reused.status).to.equal(422);
    expect(reused.body.errors['X-Request-Id'][0]).to.match(/not kept for replay/);
    expect((await app.db.pool.query('select 1 from requests where request_id = $1', [generated])).rowCount).to.equal(0);
    expect((await app.db.pool.query('select 1 from usage where request_id = $1', [generated])).rowCount).to.equal(1);
  });
});
