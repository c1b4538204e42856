import { expect } from 'chai';
import type { CreatedKey } from '../../src/tenancy/keys.js';
import { api, startTestApp, type TestApp } from '../helpers/app.js';
import { waitFor } from '../helpers/db.js';

// A lone surrogate (JSON "\ud800") is valid JSON but no character, which Postgres' json and jsonb
// refuse. Stored with U+FFFD in its place, it made two names one (end-users "sur\ud800" and
// "sur\udfff" shared their facts): what a client sends with one is a 422 naming the field, never a
// 500, and nothing is stored. (What a provider answers with one is stored so: src/db/storable.ts.)
describe('http: a lone surrogate in what a client sends', () => {
  let app: TestApp;
  let key: CreatedKey;
  before(async () => {
    app = await startTestApp();
    await app.startWorker();
    key = await app.key();
  });
  after(async () => {
    await app.close();
  });

  const post = (path: string, raw: string, requestId?: string) =>
    api(app.baseUrl, path, { method: 'POST', key: key.key, raw, ...(requestId ? { headers: { 'x-request-id': requestId } } : {}) });

  it('refuses a score whose name and value hold one with a 422 naming both, storing nothing', async () => {
    const chat = await api(app.baseUrl, '/v1/chat/completions', {
      method: 'POST',
      key: key.key,
      body: { model: 'local/echo', messages: [{ role: 'user', content: 'Hoi' }] },
    });
    const traceId = chat.headers.get('x-request-id')!;
    await waitFor(async () => ((await api(app.baseUrl, `/v1/traces/${traceId}`, { key: key.key })).status === 200 ? true : undefined), {
      what: 'the trace',
    });
    const score = await post('/v1/scores', `{"trace_id":"${traceId}","name":"label \\ud800","value":"half \\udc00"}`);
    expect(score.status, score.text).to.equal(422);
    expect(Object.keys(score.body.errors).sort()).to.deep.equal(['name', 'value']);
    expect(score.body.errors.value[0]).to.contain('lone UTF-16 surrogate');
    expect((await app.db.pool.query('select count(*)::int as n from scores')).rows[0].n).to.equal(0);
  });

  it('answers a retry of a collection whose name holds one with the same 422, creating none', async () => {
    const first = await post('/v1/recall/collections', '{"name":"Map \\ud800"}', 'surrogate-collection');
    const retry = await post('/v1/recall/collections', '{"name":"Map \\ud800"}', 'surrogate-collection');
    expect([first.status, retry.status]).to.deep.equal([422, 422]);
    expect(retry.body.errors).to.have.property('name');
    expect((await app.db.pool.query('select count(*)::int as n from collections')).rows[0].n).to.equal(0);
    // The same name with the pair it lacked is a name, and is created.
    expect((await post('/v1/recall/collections', '{"name":"Map \\ud83d\\uddfa"}')).status).to.equal(201);
  });
});
