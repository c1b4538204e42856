import { expect } from 'chai';
import type { CreatedKey } from '../../src/tenancy/keys.js';
import { api, startTestApp, type TestApp } from '../helpers/app.js';
import { waitFor } from '../helpers/db.js';

// A lone surrogate (JSON "\ud800") is valid JSON that Postgres' json and jsonb refuse. What a client
// sends with one is stored with U+FFFD in its place, as text columns already do, never a 500.
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

  it('stores a score whose value holds one, and audits it', async () => {
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
    expect(score.status, score.text).to.equal(201);
    expect(score.body.data.value).to.equal('half \ufffd');
    const audited = await waitFor(
      async () => (await app.db.pool.query("select details from audit_log where action = 'score.created'")).rows[0],
      { what: 'the audit entry (written by a job)' },
    );
    expect(audited.details).to.include({ name: 'label \ufffd', value: 'half \ufffd' });
  });

  it('answers a retry of a collection whose name holds one with the first answer', async () => {
    const first = await post('/v1/recall/collections', '{"name":"Map \\ud800"}', 'surrogate-collection');
    const retry = await post('/v1/recall/collections', '{"name":"Map \\ud800"}', 'surrogate-collection');
    expect([first.status, retry.status]).to.deep.equal([201, 201]);
    expect(retry.headers.get('x-replay')).to.equal('true');
    expect(retry.body.data.slug).to.equal(first.body.data.slug);
  });
});
