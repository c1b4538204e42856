import { expect } from 'chai';
import { serializeRecords } from '../../src/metering/records.js';
import { writeRecords } from '../../src/metering/writeRecords.js';
import type { TraceRecord } from '../../src/traces/store.js';
import { api } from '../helpers/app.js';
import { waitFor } from '../helpers/db.js';
import { chatBody, postChat, startGatewayFixture, type GatewayFixture } from '../helpers/gateway.js';

describe('the trace explorer and scores', () => {
  let gw: GatewayFixture;
  let main: { key: string; organization_id: string; workspace_id: string; key_id: string };
  let other: { key: string; workspace_id: string };

  // What each scripted call sends: [request id, body extras, headers].
  const calls: [string, Record<string, unknown>, Record<string, string>][] = [
    ['t-1', { model: 'local/echo', thread: 'conv-1', tags: ['billing'], user: 'cust-1', name: 'greet' }, { 'x-application-name': 'Helpdesk' }],
    ['t-2', { model: 'local/echo', thread: 'conv-1', tags: ['billing', 'vip'], user: 'cust-2' }, { 'x-application-name': 'Helpdesk' }],
    ['t-3', { model: 'test/chat-a', thread: 'conv-2', name: 'greet' }, { 'x-title': 'Backoffice' }],
    ['t-4', { model: 'test/chat-b', tags: ['vip'], user: 'cust-1' }, {}],
    [
      't-5',
      { model: 'local/echo', messages: [{ role: 'user', content: 'Mail me at jan.jansen@voorbeeld.nl please' }], name: 'masked' },
      { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' },
    ],
  ];

  before(async () => {
    gw = await startGatewayFixture();
    await gw.app.startWorker();
    main = await gw.app.key({ org: 'acme', workspace: 'main' });
    other = await gw.app.key({ org: 'acme', workspace: 'other' });
    for (const [id, extra, headers] of calls) {
      const response = await postChat(gw, chatBody(extra), { 'x-request-id': id, ...headers }, main.key);
      expect(response.status, id).to.equal(200);
    }
    // A failed call is traced too.
    gw.euA.script({ type: 'status', status: 503 });
    gw.euB.script({ type: 'status', status: 503 });
    expect((await postChat(gw, chatBody({ model: 'test/chat-a' }), { 'x-request-id': 't-failed' }, main.key)).status).to.equal(503);
    // The other workspace's trace, under an id that also exists in main.
    expect((await postChat(gw, chatBody({ model: 'local/echo' }), { 'x-request-id': 'shared-id' }, other.key)).status).to.equal(200);
    expect((await postChat(gw, chatBody({ model: 'local/echo' }), { 'x-request-id': 'other-only' }, other.key)).status).to.equal(200);
    expect((await postChat(gw, chatBody({ model: 'local/echo' }), { 'x-request-id': 'shared-id' }, main.key)).status).to.equal(200);
    // Older traces with known times, written as the group commit writes them.
    const old = (id: string, at: string): TraceRecord => ({
      workspace_id: main.workspace_id,
      organization_id: main.organization_id,
      id,
      kind: 'chat',
      key_id: main.key_id,
      name: null,
      tags: [],
      thread: null,
      end_user: null,
      application: 'Archive',
      trace_id: null,
      parent_span_id: null,
      model: 'local/echo',
      provider: 'local',
      attempts: [],
      status: 200,
      latency_ms: 1.5,
      prompt_tokens: 1,
      completion_tokens: 1,
      cached_tokens: 0,
      credits: { base: 0.00003, services: 0, total: 0.00003 },
      stream: false,
      cache: 'BYPASS',
      input: {},
      output: [],
      notes: [],
      sources: [],
      firewall: null,
      created_at: at,
    });
    await writeRecords(
      gw.app.db.pool,
      [old('jan-1', '2025-01-01T10:00:00Z'), old('jan-2', '2025-01-02T10:00:00Z'), old('jan-3', '2025-01-03T10:00:00Z')].map((trace) =>
        serializeRecords({ trace }),
      ),
    );
    await waitFor(
      async () =>
        (await gw.app.db.pool.query('select count(*)::int as n from traces where workspace_id = $1', [main.workspace_id])).rows[0].n === 10,
      { what: 'every trace of main' },
    );
    await waitFor(
      async () =>
        (await gw.app.db.pool.query('select count(*)::int as n from traces where workspace_id = $1', [other.workspace_id])).rows[0].n === 2,
      { what: 'the traces of the other workspace' },
    );
  });
  after(async () => {
    await gw.close();
  });

  const ids = async (query: string, key = main.key) => {
    const response = await api(gw.app.baseUrl, `/v1/traces${query}`, { key });
    expect(response.status, query).to.equal(200);
    return response.body.data.map((t: any) => t.id);
  };

  it('lists summaries newest first, without input or output', async () => {
    const response = await api(gw.app.baseUrl, '/v1/traces?limit=100', { key: main.key });
    expect(response.body.data.map((t: any) => t.id)).to.deep.equal([
      'shared-id',
      't-failed',
      't-5',
      't-4',
      't-3',
      't-2',
      't-1',
      'jan-3',
      'jan-2',
      'jan-1',
    ]);
    expect(response.body.next_cursor).to.equal(null);
    const summary = response.body.data.find((t: any) => t.id === 't-1');
    expect(summary).to.include({ kind: 'chat', model: 'local/echo', provider: 'local', status: 200, thread: 'conv-1', application: 'Helpdesk', user: 'cust-1', name: 'greet', cache: 'MISS' });
    expect(summary.tags).to.deep.equal(['billing']);
    expect(summary.latency_ms).to.be.a('number');
    expect(summary.usage.total_tokens).to.equal(summary.usage.prompt_tokens + summary.usage.completion_tokens);
    expect(summary.usage.credits.total).to.be.above(0);
    expect(summary).to.not.have.any.keys('request', 'response', 'input', 'output');
    const failed = response.body.data.find((t: any) => t.id === 't-failed');
    expect(failed).to.include({ status: 503, model: null, provider: null, usage: null });
  });

  it('filters by thread, tag, application, user, name, model and period', async () => {
    expect(await ids('?thread=conv-1')).to.deep.equal(['t-2', 't-1']);
    expect(await ids('?tag=vip')).to.deep.equal(['t-4', 't-2']);
    expect(await ids('?application=Helpdesk')).to.deep.equal(['t-2', 't-1']);
    expect(await ids('?application=Backoffice')).to.deep.equal(['t-3']);
    expect(await ids('?user=cust-1')).to.deep.equal(['t-4', 't-1']);
    expect(await ids('?name=greet')).to.deep.equal(['t-3', 't-1']);
    expect(await ids('?model=test/chat-b')).to.deep.equal(['t-4']);
    expect(await ids('?user=cust-1&tag=billing')).to.deep.equal(['t-1']);
    expect(await ids('?from=2025-01-02&to=2025-01-03')).to.deep.equal(['jan-2']);
    expect(await ids('?from=2025-01-02T10:00:00Z&to=2025-01-03T10:00:00.001Z')).to.deep.equal(['jan-3', 'jan-2']);
    expect(await ids('?to=2025-01-02')).to.deep.equal(['jan-1']);
    expect(await ids('?thread=nowhere')).to.deep.equal([]);
  });

  it('pages with an opaque cursor, filters kept', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = `/v1/traces?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const response = await api(gw.app.baseUrl, query, { key: main.key });
      expect(response.status).to.equal(200);
      seen.push(...response.body.data.map((t: any) => t.id));
      cursor = response.body.next_cursor;
      pages += 1;
    } while (cursor);
    expect(pages).to.equal(4);
    expect(seen).to.deep.equal(await ids('?limit=100'));

    const first = await api(gw.app.baseUrl, '/v1/traces?application=Archive&limit=2', { key: main.key });
    expect(first.body.data.map((t: any) => t.id)).to.deep.equal(['jan-3', 'jan-2']);
    const second = await api(gw.app.baseUrl, `/v1/traces?application=Archive&limit=2&cursor=${encodeURIComponent(first.body.next_cursor)}`, { key: main.key });
    expect(second.body.data.map((t: any) => t.id)).to.deep.equal(['jan-1']);
    expect(second.body.next_cursor).to.equal(null);

    const forged = await api(gw.app.baseUrl, '/v1/traces?cursor=eyJhdCI6IjIwMjUtMDItMzBUMDA6MDA6MDAuMDAwMDAwWiIsImlkIjoieCJ9', { key: main.key });
    expect(forged.status).to.equal(422);
    expect(forged.body.errors).to.have.property('cursor');
    const badDate = await api(gw.app.baseUrl, '/v1/traces?from=2025-02-30', { key: main.key });
    expect(badDate.status).to.equal(422);
  });

  it('shows one trace with attempts, timings, tokens, credits, masked input and output, firewall counts and notes', async () => {
    const response = await api(gw.app.baseUrl, '/v1/traces/t-5', { key: main.key });
    expect(response.status).to.equal(200);
    const trace = response.body;
    expect(trace).to.include({ id: 't-5', model: 'local/echo', provider: 'local', status: 200, name: 'masked' });
    expect(trace.trace_context).to.deep.equal({ trace_id: '4bf92f3577b34da6a3ce929d0e0e4736', parent_span_id: '00f067aa0ba902b7' });
    expect(trace.attempts).to.have.length(1);
    expect(trace.attempts[0]).to.include({ model: 'local/echo', provider: 'local', status: 200, error: null });
    expect(trace.attempts[0].latency_ms).to.be.a('number');
    expect(trace.usage.prompt_tokens).to.be.above(0);
    const sent = JSON.stringify([trace.request, trace.response]);
    expect(sent).to.not.include('jan.jansen@voorbeeld.nl');
    expect(trace.request.messages[0].content).to.match(/Mail me at \S+ please/);
    expect(trace.response.choices[0].message.content).to.be.a('string');
    expect(trace.firewall.counts).to.include({ EMAIL: 1 });
    expect(trace.notes).to.be.an('array');
    expect(trace.dropped_parameters).to.deep.equal([]);
    expect(trace.sources).to.deep.equal([]);
    expect(trace.scores).to.deep.equal([]);

    const failed = (await api(gw.app.baseUrl, '/v1/traces/t-failed', { key: main.key })).body;
    expect(failed.attempts.map((a: any) => [a.provider, a.status])).to.deep.equal([['eu-a', 503], ['eu-b', 503]]);
    expect(failed.response).to.have.property('error');
  });

  it("answers 404 for another workspace's trace and never lists it", async () => {
    expect((await api(gw.app.baseUrl, '/v1/traces/other-only', { key: main.key })).status).to.equal(404);
    expect((await api(gw.app.baseUrl, '/v1/traces/nothing-here', { key: main.key })).status).to.equal(404);
    expect(await ids('?limit=100', other.key)).to.deep.equal(['other-only', 'shared-id']);
    // The same id in two workspaces: each sees its own.
    const mine = (await api(gw.app.baseUrl, '/v1/traces/shared-id', { key: main.key })).body;
    const theirs = (await api(gw.app.baseUrl, '/v1/traces/shared-id', { key: other.key })).body;
    expect(mine.request.messages[0].content).to.not.equal(theirs.request.messages[0].content);
  });

  it('needs traces.read', async () => {
    const chatOnly = await gw.app.key({ org: 'acme', workspace: 'main', kind: 'restricted', scopes: ['chat.create', 'scores.write'] });
    for (const path of ['/v1/traces', '/v1/traces/t-1', '/v1/scores']) {
      const response = await api(gw.app.baseUrl, path, { key: chatOnly.key });
      expect(response.status, path).to.equal(403);
      expect(response.body.code).to.equal('insufficient_scope');
    }
    const reader = await gw.app.key({ org: 'acme', workspace: 'main', kind: 'restricted', scopes: ['traces.read'] });
    expect((await api(gw.app.baseUrl, '/v1/traces/t-1', { key: reader.key })).status).to.equal(200);
  });

  describe('scores', () => {
    const score = (body: unknown, key = main.key) => api(gw.app.baseUrl, '/v1/scores', { method: 'POST', key, body });

    it('scores a trace with a number, a string or a boolean (201) and shows the scores on the trace', async () => {
      const created = await score({ trace_id: 't-1', name: 'helpfulness', value: 0.75, comment: 'good enough' });
      expect(created.status).to.equal(201);
      expect(created.body.data).to.include({ trace_id: 't-1', name: 'helpfulness', value: 0.75, comment: 'good enough' });
      expect(created.body.data.id).to.be.a('string');
      expect(Date.parse(created.body.data.created_at)).to.not.be.NaN;
      expect((await score({ trace_id: 't-1', name: 'verdict', value: 'correct' })).body.data).to.include({ value: 'correct', comment: null });
      expect((await score({ trace_id: 't-1', name: 'thumbs_up', value: false })).body.data.value).to.equal(false);

      const trace = (await api(gw.app.baseUrl, '/v1/traces/t-1', { key: main.key })).body;
      expect(trace.scores.map((s: any) => [s.name, s.value])).to.deep.equal([
        ['thumbs_up', false],
        ['verdict', 'correct'],
        ['helpfulness', 0.75],
      ]);
      expect(trace.scores[2]).to.have.all.keys('id', 'trace_id', 'name', 'value', 'comment', 'created_at');

      const audit = await waitFor(
        async () => (await gw.app.db.pool.query("select * from audit_log where action = 'score.created' and target = 't-1'")).rows.length === 3,
        { what: 'the audit entries of the scores' },
      );
      expect(audit).to.equal(true);
    });

    it('lists scores by trace, newest first, with a cursor', async () => {
      await score({ trace_id: 't-2', name: 'a', value: 1 });
      await score({ trace_id: 't-2', name: 'b', value: 2 });
      await score({ trace_id: 't-2', name: 'c', value: 3 });
      const first = await api(gw.app.baseUrl, '/v1/scores?trace_id=t-2&limit=2', { key: main.key });
      expect(first.status).to.equal(200);
      expect(first.body.data.map((s: any) => s.name)).to.deep.equal(['c', 'b']);
      const second = await api(gw.app.baseUrl, `/v1/scores?trace_id=t-2&limit=2&cursor=${encodeURIComponent(first.body.next_cursor)}`, { key: main.key });
      expect(second.body.data.map((s: any) => s.name)).to.deep.equal(['a']);
      expect(second.body.next_cursor).to.equal(null);
      const all = await api(gw.app.baseUrl, '/v1/scores?limit=100', { key: main.key });
      expect(all.body.data.map((s: any) => s.trace_id)).to.include.members(['t-1', 't-2']);
    });

    it("refuses scores on unknown traces and on another workspace's, and never shows them across", async () => {
      const unknown = await score({ trace_id: 'nothing-here', name: 'x', value: 1 });
      expect(unknown.status).to.equal(404);
      const foreign = await score({ trace_id: 'other-only', name: 'x', value: 1 });
      expect(foreign.status).to.equal(404);
      expect(foreign.body.message).to.equal(unknown.body.message.replace('nothing-here', 'other-only'));
      // Scores of main's shared-id stay with main's trace of that id.
      expect((await score({ trace_id: 'shared-id', name: 'mine', value: true })).status).to.equal(201);
      expect((await api(gw.app.baseUrl, '/v1/scores?trace_id=shared-id', { key: other.key })).body.data).to.deep.equal([]);
      expect((await api(gw.app.baseUrl, '/v1/traces/shared-id', { key: other.key })).body.scores).to.deep.equal([]);
      expect((await api(gw.app.baseUrl, '/v1/scores?trace_id=t-1', { key: other.key })).body.data).to.deep.equal([]);
      const count = await gw.app.db.pool.query('select count(*)::int as n from scores where workspace_id = $1', [other.workspace_id]);
      expect(count.rows[0].n).to.equal(0);
    });

    it('validates the body (422) and needs scores.write', async () => {
      for (const body of [
        { trace_id: 't-1', name: 'x', value: { nested: true } },
        { trace_id: 't-1', name: 'x' },
        { trace_id: 't-1', name: '', value: 1 },
        { trace_id: 't-1', name: 'x', value: 1, extra: 1 },
        { trace_id: 't-1', name: 'x', value: 'v'.repeat(1001) },
      ]) {
        expect((await score(body)).status, JSON.stringify(body).slice(0, 60)).to.equal(422);
      }
      const reader = await gw.app.key({ org: 'acme', workspace: 'main', kind: 'restricted', scopes: ['traces.read'] });
      const refused = await score({ trace_id: 't-1', name: 'x', value: 1 }, reader.key);
      expect(refused.status).to.equal(403);
      expect(refused.body.code).to.equal('insufficient_scope');
      expect((await api(gw.app.baseUrl, '/v1/scores?trace_id=t-1', { key: reader.key })).status).to.equal(200);
    });
  });
});
