import { expect } from 'chai';
import { api } from '../helpers/app.js';
import { waitFor } from '../helpers/db.js';
import { chatBody, postChat, readSse, startGatewayFixture, type GatewayFixture } from '../helpers/gateway.js';

// What every billed request leaves behind (one usage row, one trace, one audit entry) is written
// before its answer is sent: the listing endpoints show it right after the answer, with no wait.
// Reads here are never retried: a record that came later would fail them.
describe('metering/records: each request is metered, traced and audited by the time it is answered', () => {
  let gw: GatewayFixture;
  before(async () => {
    gw = await startGatewayFixture();
    // For ingest and fact extraction, which run as jobs.
    await gw.app.startWorker();
  });
  after(async () => {
    await gw.close();
  });
  beforeEach(() => {
    gw.euA.reset();
    gw.euB.reset();
  });

  const get = async (path: string) => {
    const response = await api(gw.app.baseUrl, path, { key: gw.key });
    expect(response.status, `${path}: ${response.text}`).to.equal(200);
    return response.body;
  };
  const usageRequests = async () => (await get('/v1/usage')).total.requests as number;
  const usageLines = async (id: string) =>
    (await gw.app.db.pool.query('select * from usage where request_id = $1 order by line', [id])).rows;

  /** What the listings show of one request id, read once each. */
  const listed = async (id: string) => {
    const traces = (await get('/v1/traces?limit=100')).data.filter((t: any) => t.id === id);
    const audit = (await get('/v1/audit-log?limit=100')).data.filter((e: any) => e.target === id);
    const trace = await api(gw.app.baseUrl, `/v1/traces/${encodeURIComponent(id)}`, { key: gw.key });
    return { traces, audit, trace: trace.status === 200 ? trace.body : undefined, usage: await usageLines(id) };
  };

  /** Runs `request`, then checks that the usage listing grew by `billed` lines and the request's records are there, once each. */
  const expectRecorded = async (request: () => Promise<string>, { billed, kind, status = 200 }: { billed: number; kind: string; status?: number }) => {
    const before = await usageRequests();
    const id = await request();
    const seen = await listed(id);
    expect(await usageRequests(), 'GET /v1/usage requests').to.equal(before + billed);
    expect(seen.usage, 'usage lines').to.have.length(billed);
    expect(seen.traces, 'GET /v1/traces').to.have.length(1);
    expect(seen.traces[0]).to.include({ kind, status });
    expect(seen.trace, 'GET /v1/traces/{id}').to.include({ id, kind, status });
    expect(seen.audit, 'GET /v1/audit-log').to.have.length(1);
    return { id, ...seen };
  };

  const chat = async (body: Record<string, unknown>, headers: Record<string, string> = {}, expected = 200) => {
    const response = await postChat(gw, body, headers);
    expect(response.status).to.equal(expected);
    if (body.stream) expect((await readSse(response)).at(-1)).to.equal('[DONE]');
    else await response.text();
    return response;
  };

  it('a chat', async () => {
    const { usage, audit } = await expectRecorded(async () => (await chat(chatBody())).headers.get('x-request-id')!, {
      billed: 1,
      kind: 'chat',
    });
    expect(usage[0]).to.include({ kind: 'chat', model: 'test/chat-a', provider: 'eu-a' });
    expect(audit[0]).to.include({ action: 'chat.completion' });
  });

  it('a streamed chat', async () => {
    const { trace } = await expectRecorded(async () => (await chat(chatBody({ stream: true }))).headers.get('x-request-id')!, {
      billed: 1,
      kind: 'chat',
    });
    expect(trace.stream).to.equal(true);
  });

  it('a chat with a thread: the thread holds it too', async () => {
    await expectRecorded(
      async () => (await chat(chatBody({ thread: 'records-thread', messages: [{ role: 'user', content: 'Een draad' }] }))).headers.get('x-request-id')!,
      { billed: 1, kind: 'chat' },
    );
    const thread = await get('/v1/recall/threads/records-thread');
    expect(thread.messages.map((m: any) => m.role)).to.deep.equal(['user', 'assistant']);
  });

  it('a cache hit: billed without base credits, traced as a HIT', async () => {
    const body = chatBody();
    await chat(body);
    const { usage, trace } = await expectRecorded(
      async () => {
        const hit = await chat(body);
        expect(hit.headers.get('x-cache')).to.equal('HIT');
        return hit.headers.get('x-request-id')!;
      },
      { billed: 1, kind: 'chat' },
    );
    expect(Number(usage[0].credits_base)).to.equal(0);
    expect(trace.cache).to.equal('HIT');
    expect(gw.euA.requests).to.have.length(1);
  });

  it('a replay: the first answer is recorded once, the replay adds nothing', async () => {
    const body = chatBody();
    await expectRecorded(async () => (await chat(body, { 'x-request-id': 'records-replay' })).headers.get('x-request-id')!, {
      billed: 1,
      kind: 'chat',
    });
    const before = await usageRequests();
    const replay = await chat(body, { 'x-request-id': 'records-replay' });
    expect(replay.headers.get('x-replay')).to.equal('true');
    const seen = await listed('records-replay');
    expect(await usageRequests()).to.equal(before);
    expect([seen.usage.length, seen.traces.length, seen.audit.length]).to.deep.equal([1, 1, 1]);
  });

  it('a failed chain: traced and audited, not billed', async () => {
    gw.euA.script({ type: 'status', status: 503 });
    gw.euB.script({ type: 'status', status: 503 });
    const { audit } = await expectRecorded(async () => (await chat(chatBody(), {}, 503)).headers.get('x-request-id')!, {
      billed: 0,
      kind: 'chat',
      status: 503,
    });
    expect(audit[0].details).to.include({ status: 503 });
  });

  it('an embeddings call', async () => {
    const { usage, trace, audit } = await expectRecorded(
      async () => {
        const response = await api(gw.app.baseUrl, '/v1/embeddings', {
          method: 'POST',
          key: gw.key,
          body: { model: 'test/eu-embed', input: ['een', 'twee'], user: 'records-user' },
        });
        expect(response.status).to.equal(200);
        return response.headers.get('x-request-id')!;
      },
      { billed: 1, kind: 'embeddings' },
    );
    expect(usage[0]).to.include({ kind: 'embeddings', model: 'test/eu-embed', provider: 'eu-a' });
    expect(trace).to.include({ model: 'test/eu-embed', provider: 'eu-a', user: 'records-user' });
    // Neither the texts nor the vectors are kept.
    expect(JSON.stringify(trace)).not.to.contain('twee');
    expect(audit[0]).to.include({ action: 'embeddings.create' });
  });

  it('a failed embeddings call: traced and audited, not billed', async () => {
    gw.euA.script({ type: 'status', status: 503 });
    gw.euB.script({ type: 'status', status: 503 });
    const { trace, audit } = await expectRecorded(
      async () => {
        const response = await api(gw.app.baseUrl, '/v1/embeddings', { method: 'POST', key: gw.key, body: { model: 'test/eu-embed', input: 'een' } });
        expect(response.status).to.equal(503);
        return response.headers.get('x-request-id')!;
      },
      { billed: 0, kind: 'embeddings', status: 503 },
    );
    expect(trace.attempts.map((a: any) => a.provider)).to.deep.equal(['eu-a', 'eu-b']);
    expect(audit[0].details).to.include({ status: 503 });
  });

  it('an ingest: billed, traced and audited as the document becomes ready', async () => {
    const collection = await api(gw.app.baseUrl, '/v1/recall/collections', { method: 'POST', key: gw.key, body: { name: 'Records' } });
    const created = await api(gw.app.baseUrl, '/v1/memory/documents', {
      method: 'POST',
      key: gw.key,
      body: { title: 'Polis', text: 'De premie wordt jaarlijks aangepast. Het eigen risico is tweehonderd euro.', collection: collection.body.data.slug },
    });
    expect(created.status).to.equal(201);
    const documentId = created.body.data.id as string;
    const ready = await waitFor(
      async () => {
        const document = (await get(`/v1/memory/documents/${documentId}`)).data;
        return document.status === 'ready' ? document : undefined;
      },
      { what: 'the document to be ready' },
    );
    const id = `ingest:${documentId}`;
    const seen = await listed(id);
    expect(seen.usage).to.have.length(1);
    expect(seen.usage[0]).to.include({ kind: 'ingest', model: 'local/embed-1024' });
    expect(seen.traces).to.have.length(1);
    expect(seen.trace).to.include({ kind: 'ingest', model: 'local/embed-1024', status: 200 });
    expect(Number(seen.usage[0].credits_total)).to.equal(seen.trace.usage.credits.total);
    const audit = (await get('/v1/audit-log?action=document.ingested')).data.filter((e: any) => e.target === documentId);
    expect(audit).to.have.length(1);
    expect(audit[0].actor).to.deep.equal({ key_id: null, kind: 'service' });
    expect(audit[0].details).to.include({ chunks: ready.chunk_count, tokens: ready.token_count });
  });

  it('a fact extraction: billed, traced and audited as the submission is done', async () => {
    const submitted = await api(gw.app.baseUrl, '/v1/recall/facts', {
      method: 'POST',
      key: gw.key,
      body: { content: 'I live in Delft and I have a cat called Pip.', user_ref: 'records-user' },
    });
    expect(submitted.status, submitted.text).to.equal(202);
    const submission = await waitFor(
      async () =>
        (await gw.app.db.pool.query("select id, status from fact_submissions where user_ref = 'records-user' and status in ('done', 'empty', 'failed')"))
          .rows[0],
      { what: 'the extraction' },
    );
    expect(submission.status).to.equal('done');
    const id = `facts:${submission.id}`;
    const seen = await listed(id);
    // Under the trace's id: usage and trace join on it.
    expect(seen.usage.map((line: any) => [line.request_id, line.line, line.kind])).to.deep.equal([[id, 0, 'facts']]);
    expect(seen.traces).to.have.length(1);
    // The end-user's text is in neither the trace nor the audit entry.
    expect(seen.trace).to.include({ kind: 'facts', status: 200, user: null });
    expect(JSON.stringify(seen.trace)).not.to.contain('Delft');
    const audit = (await get('/v1/audit-log?action=facts.extracted')).data.filter((e: any) => e.target === submission.id);
    expect(audit).to.have.length(1);
    expect(audit[0].details).to.include({ user_ref: 'records-user' });
    expect(JSON.stringify(audit[0])).not.to.contain('Delft');
  });

  it('answers 32 identical requests that miss a cold cache together, each billed once', async () => {
    const body = chatBody({ model: 'local/echo' });
    const responses = await Promise.all(Array.from({ length: 32 }, () => postChat(gw, body)));
    expect(responses.map((r) => r.status)).to.deep.equal(Array.from({ length: 32 }, () => 200));
    const ids = responses.map((r) => r.headers.get('x-request-id')!);
    await Promise.all(responses.map((r) => r.text()));
    const { rows } = await gw.app.db.pool.query('select request_id from usage where request_id = any($1)', [ids]);
    expect(rows.map((r) => r.request_id).sort()).to.deep.equal([...ids].sort());
    const audited = await gw.app.db.pool.query('select count(*)::int as n from audit_log where target = any($1)', [ids]);
    expect(audited.rows[0].n).to.equal(32);
  });

  it('bills each provider its part of a split embeddings call', async () => {
    // test/eu-embed takes two inputs per call: four inputs are two parts. eu-a answers one and
    // fails the other, which falls back to eu-b.
    gw.euA.script({ type: 'answer' }, { type: 'status', status: 503 });
    const response = await api(gw.app.baseUrl, '/v1/embeddings', {
      method: 'POST',
      key: gw.key,
      body: { model: 'test/eu-embed', input: ['een twee', 'drie', 'vier vijf zes', 'zeven'] },
    });
    expect(response.status, response.text).to.equal(200);
    const id = response.headers.get('x-request-id')!;
    const lines = await usageLines(id);
    expect(lines.map((line) => line.provider).sort()).to.deep.equal(['eu-a', 'eu-b']);
    // One request, a line per provider.
    expect(lines.map((line) => [line.request_id, line.line])).to.deep.equal([
      [id, 0],
      [id, 1],
    ]);
    expect(lines.reduce((sum, line) => sum + line.prompt_tokens, 0)).to.equal(response.body.usage.prompt_tokens);
    const trace = await get(`/v1/traces/${id}`);
    expect(trace.notes.join(' ')).to.match(/split over 2 providers/);
  });
});
