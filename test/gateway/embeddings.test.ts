import { expect } from 'chai';
import OpenAI from 'openai';
import { countTokens } from '../../src/gateway/tokens.js';
import { changeNonEuAcceptance } from '../../src/tenancy/keys.js';
import { api } from '../helpers/app.js';
import { waitFor } from '../helpers/db.js';
import { startGatewayFixture, type GatewayFixture } from '../helpers/gateway.js';
import { stubEmbedding } from '../helpers/stubProvider.js';

describe('POST /v1/embeddings', () => {
  let gw: GatewayFixture;
  let acceptedKey: string;
  before(async () => {
    gw = await startGatewayFixture();
    await gw.app.startWorker();
    acceptedKey = (await gw.app.key({ org: 'accepting', workspace: 'w' })).key;
    await changeNonEuAcceptance(gw.app.db.pool, 'accepting', 'sofie');
    // A fresh key after the acceptance: the key cache holds what it read for a few seconds.
    acceptedKey = (await gw.app.key({ org: 'accepting', workspace: 'w' })).key;
  });
  after(async () => {
    await gw.close();
  });
  beforeEach(() => {
    gw.euA.reset();
    gw.euB.reset();
    gw.ext.reset();
  });

  const embed = (body: Record<string, unknown>, { key = gw.key, headers = {} }: { key?: string; headers?: Record<string, string> } = {}) =>
    api(gw.app.baseUrl, '/v1/embeddings', { method: 'POST', key, body, headers });

  const passages = (n: number) => Array.from({ length: n }, (_, i) => `Passage ${i}: de polisvoorwaarden van verzekering ${i}`);

  for (const n of [1, 3, 300]) {
    it(`answers one vector per input, in order, for a batch of ${n} (local/embed-1024)`, async () => {
      const input = passages(n);
      const response = await embed({ model: 'local/embed-1024', input });
      expect(response.status).to.equal(200);
      expect(response.body.object).to.equal('list');
      expect(response.body.model).to.equal('local/embed-1024');
      expect(response.body.data.map((d: any) => d.index)).to.deep.equal(input.map((_, i) => i));
      for (const item of response.body.data) {
        expect(item.object).to.equal('embedding');
        expect(item.embedding).to.have.length(1024);
      }
      // Identical text gives the identical vector wherever it stands in the batch.
      const single = await embed({ model: 'local/embed-1024', input: input[n - 1] });
      expect(single.body.data[0].embedding).to.deep.equal(response.body.data[n - 1].embedding);
      const tokens = input.reduce((sum, text) => sum + countTokens(text), 0);
      expect(response.body.usage).to.deep.equal({ prompt_tokens: tokens, total_tokens: tokens });
    });
  }

  it('bills by the tokenizer when the provider reports more tokens than the inputs can hold', async () => {
    const vector = Array.from({ length: 8 }, (_, i) => i / 8);
    gw.euA.script({ type: 'raw', body: JSON.stringify({ object: 'list', model: 'eu-embed', data: [{ object: 'embedding', index: 0, embedding: vector }], usage: { prompt_tokens: 900_000_000, total_tokens: 900_000_000 } }) });
    const response = await embed({ model: 'test/eu-embed', input: 'een' });
    expect(response.status).to.equal(200);
    expect(response.body.usage).to.deep.equal({ prompt_tokens: countTokens('een'), total_tokens: countTokens('een') });
  });

  it('splits a batch into provider-sized requests and reassembles them in order', async () => {
    gw.euA.script({ type: 'answer', reverse: true }, { type: 'answer' }, { type: 'answer', reverse: true });
    const input = ['een', 'twee', 'drie', 'vier', 'vijf'];
    const response = await embed({ model: 'test/eu-embed', input });
    expect(response.status).to.equal(200);
    expect(gw.euA.requests.map((r) => r.body.input)).to.have.deep.members([['een', 'twee'], ['drie', 'vier'], ['vijf']]);
    expect(response.body.data.map((d: any) => d.embedding)).to.deep.equal(input.map((text) => stubEmbedding(text, 8)));
  });

  it('bills a split call under its own id whatever the caller took before, and counts it as one request', async () => {
    // A chat first takes the id the second provider's line once had: it must not swallow that line.
    const taken = await api(gw.app.baseUrl, '/v1/chat/completions', {
      method: 'POST',
      key: gw.key,
      headers: { 'x-request-id': 'split-9:test/eu-embed@eu-b' },
      body: { model: 'local/echo', messages: [{ role: 'user', content: 'hallo' }] },
    });
    expect(taken.status).to.equal(200);
    const before = (await api(gw.app.baseUrl, '/v1/usage?group_by=kind', { key: gw.key })).body.total.requests;
    // And an id as long as may be, which a suffix once pushed past what a usage line holds.
    const longId = `split-${'x'.repeat(240)}`;
    for (const id of ['split-9', longId]) {
      gw.euA.script({ type: 'answer' }, { type: 'status', status: 503 });
      const response = await embed({ model: 'test/eu-embed', input: ['een', 'twee', 'drie'] }, { headers: { 'x-request-id': id } });
      expect(response.status, response.text).to.equal(200);
      const lines = (await gw.app.db.pool.query('select line, provider, prompt_tokens, credits_total::float8 as credits from usage where request_id = $1 order by line', [id])).rows;
      expect(lines.map((l) => [l.line, l.provider])).to.deep.equal([
        [0, 'eu-a'],
        [1, 'eu-b'],
      ]);
      expect(lines.reduce((sum, l) => sum + l.prompt_tokens, 0)).to.equal(response.body.usage.prompt_tokens);
      const trace = await api(gw.app.baseUrl, `/v1/traces/${encodeURIComponent(id)}`, { key: gw.key });
      expect(trace.body.usage.credits.total).to.be.closeTo(lines.reduce((sum, l) => sum + l.credits, 0), 1e-9);
    }
    // Each call is one request in GET /usage, whatever it was split into.
    const after = (await api(gw.app.baseUrl, '/v1/usage?group_by=kind', { key: gw.key })).body.total.requests;
    expect(after - before).to.equal(2);
  });

  it('fails the whole call when one part fails everywhere (no partial result)', async () => {
    gw.euA.script({ type: 'answer' }, { type: 'status', status: 503 });
    gw.euB.script({ type: 'status', status: 503 });
    const response = await embed({ model: 'test/eu-embed', input: ['a', 'b', 'c'] });
    expect(response.status).to.equal(503);
    expect(response.body).not.to.have.property('data');
  });

  it('asks the next provider when one answers with vectors of the wrong size or number, or impossible usage', async () => {
    gw.euA.script({ type: 'answer', dimensions: 2 }, { type: 'answer', count: 1 });
    const response = await embed({ model: 'test/eu-embed', input: ['een', 'twee'] });
    expect(response.status).to.equal(200);
    expect(response.headers.get('x-provider')).to.equal('eu-b');
    expect(response.body.data.map((d: any) => d.embedding)).to.deep.equal(['een', 'twee'].map((text) => stubEmbedding(text, 8)));

    gw.euA.script({ type: 'answer', count: 1 });
    gw.euB.script({ type: 'answer', dimensions: 2 });
    const failed = await embed({ model: 'test/eu-embed', input: ['een', 'twee'] });
    expect(failed.status).to.equal(503);
    expect(failed.body.attempts.map((a: any) => a.error)).to.deep.equal([
      'eu-a: asked for 2 embeddings, got 1',
      'eu-b: returned a vector of 2 dimensions for test/eu-embed, which has 8',
    ]);
  });

  it('asks the next provider when one answers with a vector holding something that is no finite number', async () => {
    // QA: "NaN" as a string inside a vector was handed to the caller as it was.
    const vector = Array.from({ length: 8 }, (_, i) => (i === 3 ? 'NaN' : 0.1));
    gw.euA.script({ type: 'raw', status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ object: 'list', data: [{ object: 'embedding', index: 0, embedding: vector }], model: 'eu-embed', usage: { prompt_tokens: 1, total_tokens: 1 } }) });
    const response = await embed({ model: 'test/eu-embed', input: 'een' });
    expect(response.status, response.text).to.equal(200);
    expect(response.headers.get('x-provider')).to.equal('eu-b');
    expect(response.body.data[0].embedding.every((value: unknown) => typeof value === 'number')).to.equal(true);
  });

  it('takes dimensions, user and encoding_format sent as null as not given', async () => {
    const response = await embed({ model: 'local/embed-1024', input: 'x', dimensions: null, user: null, encoding_format: null });
    expect(response.status, JSON.stringify(response.body)).to.equal(200);
    expect(response.body.data[0].embedding).to.have.length(1024);
  });

  it('applies the dimension rules', async () => {
    expect((await embed({ model: 'local/embed-1024', input: 'x', dimensions: 1024 })).status).to.equal(200);
    const reduced = await embed({ model: 'local/embed-1024', input: 'x', dimensions: 512 });
    expect(reduced.status).to.equal(400);
    expect(reduced.body.errors.dimensions[0]).to.contain('cannot reduce');
    const ext = await embed({ model: 'test/ext-embed', input: 'x', dimensions: 256 }, { key: acceptedKey });
    expect(ext.status).to.equal(200);
    expect(gw.ext.requests[0]!.body.dimensions).to.equal(256);
    expect(ext.body.data[0].embedding).to.have.length(256);
    const native = await embed({ model: 'test/ext-embed', input: 'x', dimensions: 1536 }, { key: acceptedKey });
    expect(native.status).to.equal(200);
    expect(gw.ext.requests[1]!.body).not.to.have.property('dimensions');
    const tooMany = await embed({ model: 'test/ext-embed', input: 'x', dimensions: 4000 }, { key: acceptedKey });
    expect(tooMany.status).to.equal(400);
    expect(tooMany.body.errors).to.have.property('dimensions');
  });

  it('refuses base64 with a message saying to pass float, and other bad input with 422', async () => {
    const base64 = await embed({ model: 'local/embed-1024', input: 'x', encoding_format: 'base64' });
    expect(base64.status).to.equal(422);
    expect(base64.body.errors.encoding_format[0]).to.contain('encoding_format: "float"');
    for (const [body, field] of [
      [{ input: 'x' }, 'model'],
      [{ model: 'local/embed-1024', input: [] }, 'input'],
      [{ model: 'local/embed-1024', input: ['ok', ''] }, 'input.1'],
      [{ model: 'local/embed-1024', input: 'x', dimensions: 0 }, 'dimensions'],
      [{ model: 'local/embed-1024', input: 'x', user: 'u'.repeat(256) }, 'user'],
      // An end-user named so could not be erased, as chat refuses it.
      [{ model: 'local/embed-1024', input: 'x', user: '\u200b' }, 'user'],
      [{ model: 'local/embed-1024', input: 'x', user: '  ' }, 'user'],
      [{ model: 'local/embed-1024', input: 'x', extra: true }, 'extra'],
      [{ model: 'embed-without-vendor', input: 'x' }, 'model'],
      [{ model: 'nope/never', input: 'x' }, 'model'],
      [{ model: 'local/echo', input: 'x' }, 'model'],
      [{ model: 'test/eu-embed', input: ['short', 'word '.repeat(60)] }, 'input.1'],
      // QA: a run of millions of letters overflowed the tokenizer's regex: a 500.
      [{ model: 'local/embed-1024', input: 'x'.repeat(7_000_000) }, 'input'],
    ] as const) {
      const response = await embed(body);
      const named = JSON.stringify(body).slice(0, 200);
      expect(response.status, named).to.equal(422);
      expect(response.body.errors, named).to.have.property(field);
    }
  });

  it('needs the embeddings.create scope on a restricted key', async () => {
    const without = await gw.app.key({ kind: 'restricted', scopes: ['chat.create'] });
    const refused = await embed({ model: 'local/embed-1024', input: 'x' }, { key: without.key });
    expect(refused.status).to.equal(403);
    expect(refused.body.code).to.equal('insufficient_scope');
    const withScope = await gw.app.key({ kind: 'restricted', scopes: ['embeddings.create'] });
    expect((await embed({ model: 'local/embed-1024', input: 'x' }, { key: withScope.key })).status).to.equal(200);
  });

  it('keeps text in the EU: an external model needs the acceptance', async () => {
    const refused = await embed({ model: 'test/ext-embed', input: 'x' }, { headers: { 'x-request-id': 'ext-embed-refused' } });
    expect(refused.status).to.equal(403);
    expect(refused.body.code).to.equal('egress_refused');
    expect(gw.ext.requests).to.have.length(0);
    // Traced and audited for the privacy officer; the id is not held by the refusal.
    const trace = await api(gw.app.baseUrl, '/v1/traces/ext-embed-refused', { key: gw.key });
    expect(trace.body).to.include({ status: 403, kind: 'embeddings' });
    const refusal = (await gw.app.db.pool.query("select details from audit_log where target = 'ext-embed-refused'")).rows;
    expect(refusal.map((r) => r.details.status)).to.deep.equal([403]);
    expect((await embed({ model: 'local/embed-1024', input: 'x' }, { headers: { 'x-request-id': 'ext-embed-refused' } })).status).to.equal(200);
    const allowed = await embed({ model: 'test/ext-embed', input: ['x', 'y', 'z'], user: 'end-user-9' }, { key: acceptedKey, headers: { 'x-request-id': 'ext-embed-1' } });
    expect(allowed.status).to.equal(200);
    expect(allowed.headers.get('x-provider')).to.equal('ext');
    expect(gw.ext.requests[0]!.body.user).to.equal('end-user-9');
    expect(gw.ext.requests[0]!.body.encoding_format).to.equal('float');
    const audit = await waitFor(
      async () => (await gw.app.db.pool.query("select * from audit_log where target = 'ext-embed-1'")).rows[0],
      { what: 'the audit entry' },
    );
    expect(audit.action).to.equal('embeddings.create');
    expect(audit.details).to.include({ user: 'end-user-9', model: 'test/ext-embed', inputs: 3 });
  });

  it('meters per input token as an embeddings line, billed once for a retry', async () => {
    const body = { model: 'test/eu-embed', input: ['a b c', 'd e'] };
    const first = await embed(body, { headers: { 'x-request-id': 'embed-retry' } });
    const retry = await embed(body, { headers: { 'x-request-id': 'embed-retry' } });
    expect(retry.status).to.equal(200);
    expect(retry.body).to.deep.equal(first.body);
    expect(gw.euA.requests).to.have.length(1);
    const row = (await gw.app.db.pool.query("select * from usage where request_id = 'embed-retry'")).rows[0];
    expect(row).to.include({ kind: 'embeddings', model: 'test/eu-embed', completion_tokens: 0 });
    expect(row.prompt_tokens).to.equal(first.body.usage.prompt_tokens);
    expect(Number(row.credits_base)).to.be.closeTo((first.body.usage.prompt_tokens * 0.1) / 1000, 1e-8);
    expect((await gw.app.db.pool.query("select * from usage where request_id = 'embed-retry'")).rows).to.have.length(1);
  });

  it('works with the official openai SDK when encoding_format is float', async () => {
    const client = new OpenAI({ baseURL: `${gw.app.baseUrl}/v1`, apiKey: gw.key, maxRetries: 0 });
    const result = await client.embeddings.create({ model: 'local/embed-1024', input: ['hallo', 'wereld'], encoding_format: 'float' });
    expect(result.data).to.have.length(2);
    expect(result.data[1]!.index).to.equal(1);
    expect(result.data[0]!.embedding).to.have.length(1024);
    try {
      await client.embeddings.create({ model: 'local/embed-1024', input: 'hallo' });
      expect.fail('the SDK asks for base64 by default, which is refused');
    } catch (err) {
      expect(err).to.be.instanceOf(OpenAI.UnprocessableEntityError);
      expect((err as Error).message).to.contain('float');
    }
  });
});
