import { expect } from 'chai';
import type { CreatedKey } from '../../../src/tenancy/keys.js';
import { api, startTestApp, type TestApp } from '../../helpers/app.js';

// Postgres stores no U+0000: a NUL a client sends is a field error (or, in a path, a name nothing
// has), never a 500, and it stores nothing.
describe('http/middleware/refuseNul', () => {
  let app: TestApp;
  let key: CreatedKey;
  before(async () => {
    app = await startTestApp();
    key = await app.key();
  });
  after(async () => {
    await app.close();
  });

  const post = (path: string, raw: string) => api(app.baseUrl, path, { method: 'POST', key: key.key, raw });

  it('answers 422 naming the field for a NUL in a chat message, as JSON sends it (\\u0000)', async () => {
    const response = await post('/v1/chat/completions', '{"model":"local/echo","messages":[{"role":"user","content":"hi \\u0000 there"}]}');
    expect(response.status, response.text).to.equal(422);
    expect(response.body.errors).to.deep.equal({ 'messages.0.content': ['must not contain the NUL character (U+0000)'] });
    expect(response.body.error.param).to.equal('messages.0.content');
  });

  it('answers 422 naming the field for a lone surrogate, which stored as UTF-8 would merge two end-users into one; an escaped pair (an emoji) is kept', async () => {
    // QA: facts of user_ref "sur\ud800" were retrieved for "sur\udfff" and "sur\ufffd" alike.
    const fact = await post('/v1/recall/facts', '{"content":"The customer owns a purple bicycle.","user_ref":"sur\\ud800"}');
    expect(fact.status, fact.text).to.equal(422);
    expect(fact.body.errors.user_ref[0]).to.contain('lone UTF-16 surrogate');
    const chat = await post('/v1/chat/completions', '{"model":"local/echo","messages":[{"role":"user","content":"hoi \\udfff"}],"user":"sur"}');
    expect(chat.status).to.equal(422);
    expect(Object.keys(chat.body.errors)).to.deep.equal(['messages.0.content']);
    const emoji = await post('/v1/chat/completions', '{"model":"local/echo","messages":[{"role":"user","content":"hoi \\ud83d\\ude00"}]}');
    expect(emoji.status, emoji.text).to.equal(200);
    expect(emoji.body.choices[0].message.content).to.contain('hoi 😀');
    expect((await app.db.pool.query('select count(*)::int as n from fact_submissions')).rows[0].n).to.equal(0);
  });

  it('answers 422 for a NUL in a key, and for each field that has one, storing nothing', async () => {
    const keyed = await post('/v1/chat/completions', '{"model":"local/echo","messages":[{"role":"user","content":"hi"}],"x\\u0000":1}');
    expect(keyed.status).to.equal(422);
    expect(keyed.body.errors.body[0]).to.match(/key/);

    await api(app.baseUrl, '/v1/recall/collections', { method: 'POST', key: key.key, body: { name: 'Boeken' } });
    const document = await post('/v1/memory/documents', '{"title":"Nul\\u0000","text":"tekst\\u0000","collection":"boeken"}');
    expect(document.status).to.equal(422);
    expect(Object.keys(document.body.errors).sort()).to.deep.equal(['text', 'title']);
    const fact = await post('/v1/recall/facts', '{"content":"I live in Delft.","user_ref":"u\\u0000"}');
    expect(fact.status).to.equal(422);
    expect(Object.keys(fact.body.errors)).to.deep.equal(['user_ref']);
    const stored = await app.db.pool.query(
      'select (select count(*) from documents)::int as documents, (select count(*) from fact_submissions)::int as submissions',
    );
    expect(stored.rows[0]).to.deep.equal({ documents: 0, submissions: 0 });
  });

  it('takes the text "\\u0000" (an escaped backslash), which holds no NUL', async () => {
    const response = await post('/v1/chat/completions', '{"model":"local/echo","messages":[{"role":"user","content":"C:\\\\u0000"}]}');
    expect(response.status, response.text).to.equal(200);
  });

  it('answers 422 for a NUL in a query parameter and 404 for one in a path', async () => {
    const query = await api(app.baseUrl, '/v1/scores?trace_id=%00', { key: key.key });
    expect(query.status).to.equal(422);
    expect(query.body.errors).to.deep.equal({ trace_id: ['must not contain the NUL character (U+0000)'] });
    expect((await api(app.baseUrl, '/v1/recall/threads/a%00b', { key: key.key })).status).to.equal(404);
    expect((await api(app.baseUrl, '/v1/memory/threads/%00', { method: 'DELETE', key: key.key })).status).to.equal(404);
    expect((await api(app.baseUrl, '/v1/recall/collections/%00', { method: 'DELETE', key: key.key })).status).to.equal(404);
    // Without a key the answer is 401, as for any other URL.
    expect((await api(app.baseUrl, '/v1/recall/threads/a%00b')).status).to.equal(401);
    expect((await api(app.baseUrl, '/v1/scores?trace_id=%00')).status).to.equal(401);
  });

  it('answers 422 for a query parameter whose percent-encoded bytes are no UTF-8, as a body with a lone surrogate', async () => {
    // QA: "?user_ref=sur%ED%BF%BF" erased the end-user "sur\ufffd", as "sur%ED%A0%80" would have.
    for (const query of ['user_ref=rep%ED%A0%80', 'user_ref=sur%ED%BF%BF', 'user_ref=x%C3%28']) {
      const response = await api(app.baseUrl, `/v1/recall/facts?${query}`, { key: key.key });
      expect(response.status, query).to.equal(422);
      expect(response.body.errors.user_ref[0]).to.contain('not valid UTF-8');
    }
    expect((await api(app.baseUrl, '/v1/memory?user_ref=sur%ED%BF%BF', { method: 'DELETE', key: key.key })).status).to.equal(422);
    // Encoded as itself, U+FFFD is a character like any other; so is an emoji.
    expect((await api(app.baseUrl, '/v1/recall/facts?user_ref=rep%EF%BF%BD', { key: key.key })).status).to.equal(200);
    expect((await api(app.baseUrl, '/v1/recall/facts?user_ref=%F0%9F%98%80', { key: key.key })).status).to.equal(200);
  });
});
