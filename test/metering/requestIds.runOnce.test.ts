import { expect } from 'chai';
import type { CreatedKey } from '../../src/tenancy/keys.js';
import { api, startTestApp, type TestApp } from '../helpers/app.js';
import { waitFor } from '../helpers/db.js';
import { createCollection, prose, settled } from '../memory/documentsFixture.js';

// A caller-chosen request id on the POSTs that create something: a retry (a timeout, a lost
// answer) gets the first answer again and creates, enqueues and bills nothing more.

describe('metering/requestIds: runOnce', () => {
  let app: TestApp;
  let key: CreatedKey;
  let slug: string;
  before(async () => {
    app = await startTestApp();
    await app.startWorker();
    key = await app.key({ org: 'acme', workspace: 'main' });
    slug = await createCollection(app, key.key, 'Polissen');
  });
  after(async () => {
    await app.close();
  });

  const post = (path: string, body: unknown, requestId?: string, as = key.key) =>
    api(app.baseUrl, path, { method: 'POST', key: as, body, ...(requestId ? { headers: { 'x-request-id': requestId } } : {}) });
  const count = async (sql: string, values: unknown[]) => Number((await app.db.pool.query<{ n: string }>(sql, values)).rows[0]!.n);

  it('stores and bills a retried document ingest once, and replays its first answer', async () => {
    const body = { title: 'Voorwaarden 2026', text: prose(3_000), collection: slug };
    const first = await post('/v1/memory/documents', body, 'ingest-voorwaarden-1');
    const retry = await post('/v1/memory/documents', body, 'ingest-voorwaarden-1');
    expect(first.status, first.text).to.equal(201);
    expect(retry.status, retry.text).to.equal(201);
    expect(retry.body).to.deep.equal(first.body);
    expect(retry.headers.get('x-replay')).to.equal('true');
    expect(first.headers.get('x-replay')).to.equal(null);

    const listed = await api(app.baseUrl, `/v1/memory/documents?collection=${slug}`, { key: key.key });
    expect(listed.body.data.filter((d: { title: string }) => d.title === body.title)).to.have.length(1);
    expect((await settled(app, key.key, first.body.data.id)).status).to.equal('ready');
    const billed = await waitFor(
      async () => {
        const n = await count(`select count(*) as n from usage where workspace_id = $1 and kind = 'ingest'`, [key.workspace_id]);
        return n > 0 ? n : undefined;
      },
      { what: 'the ingest usage row' },
    );
    expect(billed).to.equal(1);
  });

  it('takes Idempotency-Key as the request id too', async () => {
    const body = { title: 'Bijlage A', text: prose(500), collection: slug };
    const headers = { 'idempotency-key': 'ingest-bijlage-a' };
    const first = await api(app.baseUrl, '/v1/memory/documents', { method: 'POST', key: key.key, headers, body });
    const retry = await api(app.baseUrl, '/v1/memory/documents', { method: 'POST', key: key.key, headers, body });
    expect(first.status).to.equal(201);
    expect(retry.body.data.id).to.equal(first.body.data.id);
    expect(await count('select count(*) as n from documents where workspace_id = $1 and title = $2', [key.workspace_id, 'Bijlage A'])).to.equal(1);
  });

  it('answers 422 for the same id with another body, and stores nothing for it', async () => {
    const first = await post('/v1/memory/documents', { title: 'Eerste', text: prose(400), collection: slug }, 'ingest-reused');
    expect(first.status).to.equal(201);
    const other = await post('/v1/memory/documents', { title: 'Tweede', text: prose(400), collection: slug }, 'ingest-reused');
    expect(other.status).to.equal(422);
    expect(other.body.errors['X-Request-Id'][0]).to.match(/another body/);
    expect(await count('select count(*) as n from documents where workspace_id = $1 and title = $2', [key.workspace_id, 'Tweede'])).to.equal(0);
  });

  it('lets the retry of a failed first attempt run anew', async () => {
    const body = { title: 'Later', text: prose(400), collection: 'not-yet' };
    const failed = await post('/v1/memory/documents', body, 'ingest-after-422');
    expect(failed.status).to.equal(422);
    expect(failed.body.errors.collection).to.have.length(1);
    expect(await count('select count(*) as n from requests where request_id = $1', ['ingest-after-422'])).to.equal(0);

    expect(await createCollection(app, key.key, 'Not yet')).to.equal('not-yet');
    const retry = await post('/v1/memory/documents', body, 'ingest-after-422');
    expect(retry.status, retry.text).to.equal(201);
    expect(retry.headers.get('x-replay')).to.equal(null);
  });

  it('creates one document when the same id arrives twice at once; the other gets the answer or a 409', async () => {
    const body = { title: 'Gelijktijdig', text: prose(400), collection: slug };
    const answers = await Promise.all([post('/v1/memory/documents', body, 'ingest-race'), post('/v1/memory/documents', body, 'ingest-race')]);
    expect([
      [201, 201],
      [201, 409],
    ]).to.deep.include(answers.map((a) => a.status).sort());
    expect(await count('select count(*) as n from documents where workspace_id = $1 and title = $2', [key.workspace_id, 'Gelijktijdig'])).to.equal(1);
  });

  it('keeps request ids per workspace: another workspace gets its own document under the same id', async () => {
    const other = await app.key({ org: 'other-org', workspace: 'elsewhere' });
    const otherSlug = await createCollection(app, other.key, 'Polissen');
    const body = { title: 'Eigen', text: prose(400), collection: otherSlug };
    const mine = await post('/v1/memory/documents', { ...body, collection: slug }, 'ingest-shared-id');
    const theirs = await post('/v1/memory/documents', body, 'ingest-shared-id', other.key);
    expect(mine.status).to.equal(201);
    expect(theirs.status).to.equal(201);
    expect(theirs.headers.get('x-replay')).to.equal(null);
    expect(theirs.body.data.id).not.to.equal(mine.body.data.id);
  });

  it('records a retried fact submission once', async () => {
    const body = { content: 'I live in Deventer.', user_ref: 'retrying-user' };
    const first = await post('/v1/recall/facts', body, 'facts-deventer');
    const retry = await post('/v1/recall/facts', body, 'facts-deventer');
    expect([first.status, retry.status]).to.deep.equal([202, 202]);
    expect(retry.body).to.deep.equal(first.body);
    expect(retry.body).to.include({ status: 'accepted' }).and.have.property('submission_id').that.is.a('string');
    expect(retry.headers.get('x-replay')).to.equal('true');
    expect(
      await count('select count(*) as n from fact_submissions where workspace_id = $1 and user_ref = $2', [key.workspace_id, 'retrying-user']),
    ).to.equal(1);
  });

  it('creates a retried collection once instead of a second one with a "-2" slug', async () => {
    const first = await post('/v1/recall/collections', { name: 'Archief' }, 'collection-archief');
    const retry = await post('/v1/recall/collections', { name: 'Archief' }, 'collection-archief');
    expect(first.status).to.equal(201);
    expect(retry.status).to.equal(201);
    expect(retry.body.data.slug).to.equal('archief');
    const listed = await api(app.baseUrl, '/v1/recall/collections', { key: key.key });
    expect(listed.body.data.map((c: { slug: string }) => c.slug).filter((s: string) => s.startsWith('archief'))).to.deep.equal(['archief']);

    // Without a caller's id each POST is a new request, as before.
    const fresh = await post('/v1/recall/collections', { name: 'Archief' });
    expect(fresh.body.data.slug).to.equal('archief-2');
  });

  it('records a retried score once', async () => {
    const chat = await post('/v1/chat/completions', { model: 'local/echo', messages: [{ role: 'user', content: 'Hallo' }] });
    expect(chat.status).to.equal(200);
    const traceId = chat.headers.get('x-request-id')!;
    await waitFor(async () => ((await api(app.baseUrl, `/v1/traces/${traceId}`, { key: key.key })).status === 200 ? true : undefined), {
      what: 'the trace to land',
    });
    const body = { trace_id: traceId, name: 'helpful', value: 1 };
    const first = await post('/v1/scores', body, 'score-helpful');
    const retry = await post('/v1/scores', body, 'score-helpful');
    expect(first.status, first.text).to.equal(201);
    expect(retry.status).to.equal(201);
    expect(retry.body.data.id).to.equal(first.body.data.id);
    const scores = await api(app.baseUrl, `/v1/scores?trace_id=${traceId}`, { key: key.key });
    expect(scores.body.data).to.have.length(1);
  });
});
