import { expect } from 'chai';
import { api } from '../helpers/app.js';
import { waitFor } from '../helpers/db.js';
import { chatBody, postChat, readSse, useGatewayFixture } from '../helpers/gateway.js';

describe('POST /v1/chat/completions', () => {
  const gw = useGatewayFixture({ worker: true });

  const usageRows = async (requestId: string) =>
    (await gw.app.db.pool.query('select * from usage where request_id = $1', [requestId])).rows;

  it('answers in the OpenAI shape with usage, credits from the catalogue, and empty sources', async () => {
    const response = await postChat(gw, chatBody({ model: 'local/echo', messages: [{ role: 'user', content: 'Goedemorgen' }] }));
    expect(response.status).to.equal(200);
    const body = (await response.json()) as any;
    expect(body).to.include({ object: 'chat.completion', model: 'local/echo' });
    expect(body.id).to.equal(response.headers.get('x-request-id'));
    expect(body.created).to.be.a('number');
    expect(body.choices).to.deep.equal([
      { index: 0, message: { role: 'assistant', content: 'Echo: Goedemorgen', refusal: null }, finish_reason: 'stop', logprobs: null },
    ]);
    const { prompt_tokens: prompt, completion_tokens: completion } = body.usage;
    expect(body.usage.total_tokens).to.equal(prompt + completion);
    expect(body.usage.prompt_tokens_details).to.deep.equal({ cached_tokens: 0 });
    const round = (value: number) => Math.round(value * 1e8) / 1e8;
    const base = round((prompt * 0.01 + completion * 0.02) / 1000);
    // The firewall is on by default; its scan costs 0.01 credits per 1,000 prompt tokens.
    const services = round((prompt * 0.01) / 1000);
    expect(body.usage.credits).to.deep.equal({ base, services, total: round(base + services) });
    expect(body.sources).to.deep.equal([]);
    expect(response.headers.get('x-cache')).to.equal('MISS');
  });

  it('records the usage row, the trace with every field, and the audit entry', async () => {
    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    const response = await postChat(
      gw,
      chatBody({ name: 'greeting', tags: ['a', 'b'], thread: 'conv-1', user: 'customer-42' }),
      { 'x-request-id': 'trace-me-1', 'x-title': 'Helpdesk', traceparent },
    );
    const body = (await response.json()) as any;
    // On the gateway's clock, as a stream's chunks are, not the provider's (the stub says 2023) (QA, 2026-11-27).
    expect(body.created).to.be.within(Math.floor(Date.now() / 1000) - 60, Math.ceil(Date.now() / 1000));
    const usage = await waitFor(async () => (await usageRows('trace-me-1'))[0], { what: 'the usage row' });
    expect(usage).to.include({ kind: 'chat', model: 'test/chat-a', provider: 'eu-a' });
    expect(usage.prompt_tokens).to.equal(body.usage.prompt_tokens);
    expect(Number(usage.credits_total)).to.equal(body.usage.credits.total);
    const trace = await waitFor(
      async () => (await gw.app.db.pool.query("select * from traces where id = 'trace-me-1'")).rows[0],
      { what: 'the trace' },
    );
    expect(trace).to.include({
      name: 'greeting',
      thread: 'conv-1',
      end_user: 'customer-42',
      application: 'Helpdesk',
      trace_id: '4bf92f3577b34da6a3ce929d0e0e4736',
      parent_span_id: '00f067aa0ba902b7',
      model: 'test/chat-a',
      provider: 'eu-a',
      status: 200,
      cache: 'MISS',
    });
    expect(trace.tags).to.deep.equal(['a', 'b']);
    expect(trace.attempts.map((a: any) => [a.provider, a.status])).to.deep.equal([['eu-a', 200]]);
    expect(trace.latency_ms).to.be.above(0);
    expect(trace.prompt_tokens).to.equal(body.usage.prompt_tokens);
    expect(trace.input.messages[0].content).to.match(/^Hallo/);
    expect(trace.output[0].message.content).to.match(/^echo: Hallo/);
    const audit = await waitFor(
      async () => (await gw.app.db.pool.query("select * from audit_log where target = 'trace-me-1'")).rows[0],
      { what: 'the audit entry' },
    );
    expect(audit.action).to.equal('chat.completion');
    expect(audit.details).to.include({ model: 'test/chat-a', provider: 'eu-a', user: 'customer-42', application: 'Helpdesk' });
  });

  it('ignores an over-long application name and an unparsable traceparent', async () => {
    const response = await postChat(gw, chatBody(), {
      'x-request-id': 'ignored-headers',
      'x-application-name': 'a'.repeat(121),
      traceparent: 'not-a-trace',
    });
    expect(response.status).to.equal(200);
    const trace = await waitFor(
      async () => (await gw.app.db.pool.query("select * from traces where id = 'ignored-headers'")).rows[0],
      { what: 'the trace' },
    );
    expect(trace.application).to.equal(null);
    expect(trace.trace_id).to.equal(null);
  });

  it('records failed requests on the trace without billing them', async () => {
    gw.euA.script({ type: 'status', status: 503 });
    gw.euB.script({ type: 'status', status: 503 });
    const response = await postChat(gw, chatBody(), { 'x-request-id': 'failed-1' });
    expect(response.status).to.equal(503);
    const trace = await waitFor(
      async () => (await gw.app.db.pool.query("select * from traces where id = 'failed-1'")).rows[0],
      { what: 'the failure trace' },
    );
    expect(trace.status).to.equal(503);
    expect(trace.attempts).to.have.length(2);
    expect(await usageRows('failed-1')).to.have.length(0);
  });

  it('refuses JSON nested deeper than 64 levels with a 422 naming the field, and takes a real schema', async () => {
    // Sent as text: the test's own JSON.stringify could not write such a value.
    const postText = (text: string) =>
      fetch(`${gw.app.baseUrl}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${gw.key}`, 'content-type': 'application/json' },
        body: text,
      });
    const deepSchema = (levels: number) => `${'{"type":"object","properties":{"a":'.repeat(levels)}{"type":"string"}${'}}'.repeat(levels)}`;
    const withSchema = (schema: string) =>
      `{"model":"test/chat-a","messages":[{"role":"user","content":"Hallo"}],"response_format":{"type":"json_schema","json_schema":{"name":"deep","schema":${schema}}}}`;
    for (const levels of [50_000, 40]) {
      const response = await postText(withSchema(deepSchema(levels)));
      const body = (await response.json()) as any;
      expect(response.status).to.equal(422);
      expect(Object.keys(body.errors)[0]).to.match(/^response_format\.json_schema\.schema\.properties\.a/);
      expect(Object.values(body.errors)[0]).to.deep.equal(['nests deeper than 64 levels']);
    }
    // With a NUL inside, too: the depth is checked before anything else walks the body.
    const nul = await postText(`{"model":"test/chat-a","messages":[{"role":"user","content":"Hallo"}],"metadata":${'['.repeat(50_000)}"\\u0000"${']'.repeat(50_000)}}`);
    expect(nul.status).to.equal(422);
    expect((await postText(withSchema(deepSchema(12)))).status).to.equal(200);

    const deepArguments = `${'{"a":'.repeat(50_000)}1${'}'.repeat(50_000)}`;
    const toolCall = await postChat(
      gw,
      chatBody({
        messages: [
          { role: 'user', content: 'Wat is de dekking?' },
          { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'lookup', arguments: deepArguments } }] },
          { role: 'tool', tool_call_id: 'call_1', content: 'geen' },
        ],
      }),
    );
    const toolBody = (await toolCall.json()) as any;
    expect(toolCall.status).to.equal(422);
    expect(toolBody.errors).to.have.property('messages.1.tool_calls.0.function.arguments');
    expect(gw.euA.requests).to.have.length(1);
  });

  it('refuses tool_choice "required" without tools (nothing could be called), and takes auto and none without them', async () => {
    const required = await postChat(gw, chatBody({ tool_choice: 'required' }));
    expect(required.status).to.equal(422);
    expect(((await required.json()) as any).errors.tool_choice).to.deep.equal(['"required" needs tools']);
    for (const choice of ['auto', 'none']) expect((await postChat(gw, chatBody({ tool_choice: choice }))).status, choice).to.equal(200);
  });

  it('refuses two tools of one name, which providers refuse after the firewall and routing ran (QA)', async () => {
    const tool = { type: 'function', function: { name: 'lookup', parameters: { type: 'object', properties: {} } } };
    const before = gw.euA.requests.length;
    const twice = await postChat(gw, chatBody({ tools: [tool, tool] }));
    expect(twice.status).to.equal(422);
    expect(((await twice.json()) as any).errors).to.deep.equal({ 'tools.1.function.name': ['repeats the name of tool 0: tool names must be unique'] });
    expect(gw.euA.requests).to.have.length(before);
  });

  describe('idempotent retries', () => {
    it('a retry that succeeds after a failed first attempt: the trace is the billed answer', async () => {
      gw.euA.script({ type: 'status', status: 503 });
      gw.euB.script({ type: 'status', status: 503 });
      const body = chatBody();
      expect((await postChat(gw, body, { 'x-request-id': 'retry-after-failure' })).status).to.equal(503);
      const retry = await postChat(gw, body, { 'x-request-id': 'retry-after-failure' });
      expect(retry.status).to.equal(200);
      const answer = (await retry.json()) as any;
      expect(await usageRows('retry-after-failure')).to.have.length(1);
      const trace = (await gw.app.db.pool.query("select * from traces where id = 'retry-after-failure'")).rows[0];
      expect(trace.status).to.equal(200);
      expect(trace.provider).to.equal('eu-a');
      expect(trace.completion_tokens).to.equal(answer.usage.completion_tokens);
      expect(Number(trace.credits_total)).to.be.greaterThan(0);
      // And a later failure under the same id (a replay, in fact) never overwrites it.
      expect((await postChat(gw, body, { 'x-request-id': 'retry-after-failure' })).headers.get('x-replay')).to.equal('true');
      expect((await gw.app.db.pool.query("select status from traces where id = 'retry-after-failure'")).rows[0].status).to.equal(200);
    });

    it('replays a retry with the same id and body, billed once', async () => {
      const body = chatBody();
      const first = await postChat(gw, body, { 'x-request-id': 'retry-1' });
      const firstBody = await first.text();
      const second = await postChat(gw, body, { 'idempotency-key': 'retry-1' });
      expect(second.status).to.equal(200);
      // Byte for byte, keys in the same order: a client may compare or hash the two.
      expect(await second.text()).to.equal(firstBody);
      expect(second.headers.get('x-provider')).to.equal('eu-a');
      expect(gw.euA.requests).to.have.length(1);
      // Written before each answer was sent: a replay that billed again would show a second row now.
      expect(await usageRows('retry-1')).to.have.length(1);
    });

    it('replays as a stream when the retry asks for one', async () => {
      const body = chatBody();
      const first = (await (await postChat(gw, body, { 'x-request-id': 'retry-stream' })).json()) as any;
      const retry = await postChat(gw, { ...body, stream: true }, { 'x-request-id': 'retry-stream' });
      expect(retry.headers.get('content-type')).to.match(/text\/event-stream/);
      const events = await readSse(retry);
      expect(events.at(-1)).to.equal('[DONE]');
      const text = events.flatMap((e) => (e === '[DONE]' ? [] : e.choices.map((c: any) => c.delta.content ?? ''))).join('');
      expect(text).to.equal(first.choices[0].message.content);
      expect(gw.euA.requests).to.have.length(1);
    });

    it('refuses the same id with another body (422) and while the first still runs (409)', async () => {
      await postChat(gw, chatBody(), { 'x-request-id': 'retry-2' });
      const other = await postChat(gw, chatBody(), { 'x-request-id': 'retry-2' });
      expect(other.status).to.equal(422);
      expect(((await other.json()) as any).errors).to.have.property('X-Request-Id');

      gw.euA.script({ type: 'answer', delayMs: 300 });
      const body = chatBody();
      const seen = gw.euA.requests.length;
      const running = postChat(gw, body, { 'x-request-id': 'retry-3' });
      // Until the first one has reached the provider (the retry-2 calls above count too).
      await gw.euA.waitFor(() => gw.euA.requests.length > seen);
      const concurrent = await postChat(gw, body, { 'x-request-id': 'retry-3' });
      expect(concurrent.status).to.equal(409);
      // The SDKs retry a 409 by themselves, after this many seconds.
      expect(concurrent.headers.get('retry-after')).to.equal('1');
      expect(((await concurrent.json()) as any).error).to.include({ type: 'conflict_error', code: 'request_in_progress' });
      expect((await running).status).to.equal(200);
    });

    it('runs a retry anew when the first attempt failed', async () => {
      const body = chatBody();
      gw.euA.script({ type: 'status', status: 503 });
      gw.euB.script({ type: 'status', status: 503 });
      expect((await postChat(gw, body, { 'x-request-id': 'retry-4' })).status).to.equal(503);
      const retry = await postChat(gw, body, { 'x-request-id': 'retry-4' });
      expect(retry.status).to.equal(200);
      await waitFor(async () => (await usageRows('retry-4')).length === 1, { what: 'the retry billed' });
    });

    it('refuses to run again under an id it generated, which was billed but not kept (422)', async () => {
      const body = chatBody();
      const first = await postChat(gw, body);
      expect(first.status).to.equal(200);
      const generated = first.headers.get('x-request-id')!;
      // At once, before the worker has written the first one's usage row.
      const reused = await postChat(gw, body, { 'x-request-id': generated });
      expect(reused.status).to.equal(422);
      expect(((await reused.json()) as any).errors['X-Request-Id'][0]).to.match(/not kept for replay/);
      expect(gw.euA.requests).to.have.length(1);
      await waitFor(async () => (await usageRows(generated)).length === 1, { what: 'the first billed' });
    });
  });

  describe('response cache', () => {
    it('answers a repeated request from the cache, with no base credits and cached tokens', async () => {
      const body = chatBody({ tags: ['first'] });
      const miss = await postChat(gw, body);
      const missBody = (await miss.json()) as any;
      expect(miss.headers.get('x-cache')).to.equal('MISS');
      const hit = await postChat(gw, { ...body, tags: ['other'], user: 'someone', thread: 'cache-thread', name: 'again' });
      const hitBody = (await hit.json()) as any;
      expect(hit.headers.get('x-cache')).to.equal('HIT');
      expect(hitBody.choices).to.deep.equal(missBody.choices);
      expect(hitBody.usage.credits.base).to.equal(0);
      expect(hitBody.usage.prompt_tokens_details.cached_tokens).to.equal(hitBody.usage.prompt_tokens);
      expect(gw.euA.requests).to.have.length(1);
      const streamed = await postChat(gw, { ...body, stream: true });
      expect(streamed.headers.get('x-cache')).to.equal('HIT');
      expect((await readSse(streamed)).at(-1)).to.equal('[DONE]');
      expect(gw.euA.requests).to.have.length(1);
    });

    it('bypasses the cache with cache: false', async () => {
      const body = chatBody();
      await postChat(gw, body);
      const bypass = await postChat(gw, { ...body, cache: false });
      expect(bypass.headers.get('x-cache')).to.equal('BYPASS');
      expect(gw.euA.requests).to.have.length(2);
    });

    it('keeps answers apart for different models and workspaces', async () => {
      const body = chatBody();
      await postChat(gw, body);
      const otherModel = await postChat(gw, { ...body, model: 'test/chat-b' });
      expect(otherModel.headers.get('x-cache')).to.equal('MISS');
      const elsewhere = await gw.app.key({ org: 'acme', workspace: 'elsewhere' });
      const otherWorkspace = await postChat(gw, body, {}, elsewhere.key);
      expect(otherWorkspace.headers.get('x-cache')).to.equal('MISS');
    });
  });

  describe('threads', () => {
    it('appends the new messages and the reply, and can be fetched and deleted', async () => {
      await postChat(gw, { model: 'local/echo', thread: 'support-7', messages: [{ role: 'system', content: 'Be brief' }, { role: 'user', content: 'Eerste vraag' }] });
      await postChat(gw, {
        model: 'local/echo',
        thread: 'support-7',
        messages: [
          { role: 'system', content: 'Be brief' },
          { role: 'user', content: 'Eerste vraag' },
          { role: 'assistant', content: 'Echo: Eerste vraag' },
          { role: 'user', content: 'Tweede vraag' },
        ],
      });
      const thread = await waitFor(
        async () => {
          const response = await api(gw.app.baseUrl, '/v1/recall/threads/support-7', { key: gw.key });
          return response.status === 200 && response.body.messages.length === 5 ? response.body : undefined;
        },
        { what: 'five thread messages' },
      );
      expect(thread.id).to.equal('support-7');
      expect(thread.messages.map((m: any) => [m.role, m.content])).to.deep.equal([
        ['system', 'Be brief'],
        ['user', 'Eerste vraag'],
        ['assistant', 'Echo: Eerste vraag'],
        ['user', 'Tweede vraag'],
        ['assistant', 'Echo: Tweede vraag'],
      ]);
      expect(thread.messages[0]).to.have.all.keys('role', 'content', 'created_at', 'request_id');

      const elsewhere = await gw.app.key({ org: 'other-org', workspace: 'main' });
      expect((await api(gw.app.baseUrl, '/v1/recall/threads/support-7', { key: elsewhere.key })).status).to.equal(404);
      expect((await api(gw.app.baseUrl, '/v1/memory/threads/support-7', { method: 'DELETE', key: elsewhere.key })).status).to.equal(404);

      const deleted = await api(gw.app.baseUrl, '/v1/memory/threads/support-7', { method: 'DELETE', key: gw.key });
      expect(deleted.body).to.deep.equal({ deleted: true });
      expect((await api(gw.app.baseUrl, '/v1/recall/threads/support-7', { key: gw.key })).status).to.equal(404);
    });
  });

  describe('validation', () => {
    it('refuses a file_id attachment and one over 10 MiB with the part path', async () => {
      const fileId = await postChat(gw, chatBody({ messages: [{ role: 'user', content: [{ type: 'file', file: { file_id: 'file-1' } }] }] }));
      expect(fileId.status).to.equal(422);
      expect(((await fileId.json()) as any).errors).to.have.property('messages.0.content.0');
      const big = 'A'.repeat(Math.ceil((10 * 1024 * 1024 + 10) / 3) * 4);
      const tooBig = await postChat(gw, chatBody({ messages: [{ role: 'user', content: [{ type: 'text', text: 'see' }, { type: 'image_url', image_url: { url: `data:image/png;base64,${big}` } }] }] }));
      expect(tooBig.status).to.equal(422);
      expect(((await tooBig.json()) as any).errors).to.have.property('messages.0.content.1');
    });

    it('refuses, naming the field, what OpenAI refuses and a provider would be asked in vain: a tool_choice naming no given tool, top_logprobs without logprobs, a logit_bias key that is no token id, a question with no parts, an attachment that is not base64', async () => {
      const tools = [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object' } } }];
      const cases: [Record<string, unknown>, string, RegExp][] = [
        [{ tools, tool_choice: { type: 'function', function: { name: 'nothere' } } }, 'tool_choice', /"nothere", which is not one of tools/],
        [{ tool_choice: { type: 'function', function: { name: 'lookup' } } }, 'tool_choice', /not one of tools/],
        [{ top_logprobs: 5 }, 'top_logprobs', /needs logprobs: true/],
        [{ logprobs: false, top_logprobs: 2 }, 'top_logprobs', /needs logprobs: true/],
        [{ logit_bias: { abc: 5 } }, 'logit_bias', /./],
        [{ messages: [{ role: 'user', content: [] }] }, 'messages.0.content', /holds no parts/],
        [{ messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,!!!' } }] }] }, 'messages.0.content.0', /not valid base64/],
        [{ messages: [{ role: 'user', content: [{ type: 'input_audio', input_audio: { data: 'niet base64?', format: 'wav' } }] }] }, 'messages.0.content.0', /not valid base64/],
      ];
      for (const [extra, field, message] of cases) {
        const response = await postChat(gw, chatBody(extra));
        const body = (await response.json()) as any;
        expect(response.status, JSON.stringify(extra)).to.equal(422);
        expect(Object.keys(body.errors), JSON.stringify(extra)).to.include(field);
        expect(body.errors[field].join(' '), JSON.stringify(extra)).to.match(message);
      }
      expect(gw.euA.requests).to.have.length(0);
      // What they ask for, asked rightly, is served.
      const served = [
        { tools, tool_choice: { type: 'function', function: { name: 'lookup' } } },
        { logprobs: true, top_logprobs: 2 },
        { logit_bias: { '1234': -100 } },
        // Base64 with its lines wrapped, and a data URL that carries its data as it is.
        { messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0K\r\nGgo=' } }, { type: 'file', file: { file_data: 'data:text/plain,hallo' } }] }] },
      ];
      for (const extra of served) expect((await postChat(gw, chatBody(extra))).status, JSON.stringify(extra)).to.equal(200);
    });

    it('reads a data URL in capitals as one: held to its cap and base64, sent on in lower case; an image URL of another scheme or type is refused', async () => {
      const big = 'A'.repeat(Math.ceil((10 * 1024 * 1024 + 10) / 3) * 4);
      const cases: [string, string, RegExp][] = [
        [`DATA:image/png;base64,${big}`, 'messages.0.content.0', /at most 10485760 bytes/],
        ['Data:image/png;BASE64,!!!', 'messages.0.content.0', /not valid base64/],
        ['http://example.com/a.png', 'messages.0.content.0.image_url.url', /https or a data: URL/],
        ['file:///etc/passwd', 'messages.0.content.0.image_url.url', /https or a data: URL/],
        // An image of no image type failed at the provider, in its words (QA, 2026-11-27).
        ['data:text/html;base64,PGgxPkhpPC9oMT4=', 'messages.0.content.0.image_url.url', /image\/png, image\/jpeg, image\/gif or image\/webp/],
        ['data:;base64,iVBORw0KGgo=', 'messages.0.content.0.image_url.url', /image\/png, image\/jpeg/],
      ];
      for (const [url, field, message] of cases) {
        const response = await postChat(gw, chatBody({ messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url } }] }] }));
        const body = (await response.json()) as any;
        expect(response.status, url.slice(0, 40)).to.equal(422);
        expect(body.errors[field]?.join(' '), url.slice(0, 40)).to.match(message);
      }
      expect(gw.euA.requests).to.have.length(0);
      const served = await postChat(gw, chatBody({ cache: false, messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'DATA:image/png;base64,iVBORw0KGgo=' } }, { type: 'image_url', image_url: { url: 'HTTPS://example.com/a.png' } }] }] }));
      expect(served.status).to.equal(200);
      const sent = gw.euA.requests.at(-1)!.body.messages[0].content.map((part: any) => part.image_url.url);
      expect(sent).to.deep.equal(['data:image/png;base64,iVBORw0KGgo=', 'https://example.com/a.png']);
    });

    it('refuses tool messages that answer no call, and calls that no tool message answers, as OpenAI does', async () => {
      const call = (id: string) => ({ id, type: 'function', function: { name: 'lookup', arguments: '{}' } });
      const cases: [unknown[], string, RegExp][] = [
        [[{ role: 'user', content: 'Hoe laat?' }, { role: 'tool', tool_call_id: 'call_9', content: '12:00' }], 'messages.1.tool_call_id', /answers no tool call/],
        [[{ role: 'user', content: 'Hoe laat?' }, { role: 'assistant', tool_calls: [call('call_1'), call('call_2')] }, { role: 'tool', tool_call_id: 'call_1', content: '12:00' }, { role: 'user', content: 'En?' }], 'messages.1.tool_calls.1.id', /no tool message answering it/],
        [[{ role: 'user', content: 'Hoe laat?' }, { role: 'assistant', tool_calls: [call('call_1')] }], 'messages.1.tool_calls.0.id', /no tool message answering it/],
        [[{ role: 'user', content: 'Hoe laat?' }, { role: 'assistant', tool_calls: [call('call_1')] }, { role: 'tool', tool_call_id: 'call_1', content: 'a' }, { role: 'tool', tool_call_id: 'call_1', content: 'b' }], 'messages.3.tool_call_id', /a second time/],
        // A call of an earlier turn is no longer open: its answer belongs right after it.
        [[{ role: 'user', content: 'Hoe laat?' }, { role: 'assistant', tool_calls: [call('call_1')] }, { role: 'tool', tool_call_id: 'call_1', content: 'a' }, { role: 'assistant', content: 'Twaalf uur.' }, { role: 'tool', tool_call_id: 'call_1', content: 'b' }], 'messages.4.tool_call_id', /answers no tool call/],
        // Two calls of one turn under one id (QA, 2026-11-27: sent on, the provider was asked to tell their results apart).
        [[{ role: 'user', content: 'Hoe laat?' }, { role: 'assistant', tool_calls: [call('t1'), call('t1')] }, { role: 'tool', tool_call_id: 't1', content: 'a' }], 'messages.1.tool_calls.1.id', /repeats the id "t1"/],
      ];
      for (const [messages, field, message] of cases) {
        const response = await postChat(gw, chatBody({ messages }));
        const body = (await response.json()) as any;
        expect(response.status, field).to.equal(422);
        expect(body.errors[field]?.join(' '), field).to.match(message);
      }
      expect(gw.euA.requests).to.have.length(0);
      // Answered in any order; an instruction between the calls and their results leaves them open.
      const answered = [{ role: 'user', content: 'Hoe laat?' }, { role: 'assistant', content: null, tool_calls: [call('call_1'), call('call_2')] }, { role: 'system', content: 'Wees kort.' }, { role: 'tool', tool_call_id: 'call_2', content: '12:00' }, { role: 'tool', tool_call_id: 'call_1', content: 'CET' }];
      expect((await postChat(gw, chatBody({ messages: answered }))).status).to.equal(200);
    });

    it('refuses a prompt that leaves no model of its chain room to answer, before anything is sent; a fallback with room serves it', async () => {
      const prompt = 'woord '.repeat(40_000);
      const refused = await postChat(gw, chatBody({ messages: [{ role: 'user', content: prompt }] }));
      const body = (await refused.json()) as any;
      expect(refused.status).to.equal(422);
      expect(body.message).to.match(/^prompt is too long: \d+ tokens > 31999 maximum/);
      expect(body.errors.messages.join(' ')).to.match(/holds about \d+ tokens, more than the 32000-token context of test\/chat-a/);
      // OpenAI's code, on which clients trim their history.
      expect(body.error).to.include({ code: 'context_length_exceeded', param: 'messages' });
      expect(gw.euA.requests).to.have.length(0);
      const withRoom = await postChat(gw, chatBody({ model: undefined, models: ['test/chat-a', 'test/long'], cache: false, messages: [{ role: 'user', content: prompt }] }));
      expect(withRoom.status).to.not.equal(422);
      // Tools that take most of the context are named first, as what to trim (QA, 2026-11-27).
      const tools = Array.from({ length: 1500 }, (_, i) => ({ type: 'function', function: { name: `tool_${i}`, description: 'Looks up one policy record by its number and returns it', parameters: { type: 'object', properties: { policy_number: { type: 'string' } } } } }));
      const sent = gw.euA.requests.length;
      const crowded = await postChat(gw, chatBody({ tools, messages: [{ role: 'user', content: 'ok' }] }));
      const crowdedBody = (await crowded.json()) as any;
      expect(crowded.status).to.equal(422);
      expect(crowdedBody.error).to.include({ code: 'context_length_exceeded', param: 'tools' });
      expect(crowdedBody.errors.tools.join(' ')).to.match(/hold about \d+ of the prompt's \d+ tokens, more than the 32000-token context/);
      expect(crowdedBody.errors.messages.join(' ')).to.match(/\(the tools \d+ of them\)/);
      expect(gw.euA.requests).to.have.length(sent);
    });

    it('names the field first in the message, apart from what it says about it', async () => {
      const response = await postChat(gw, chatBody({ model: 'nope/x' }));
      expect(((await response.json()) as any).message).to.equal('invalid request: model: unknown model "nope/x"; GET /v1/models lists them');
    });

    it("refuses a model the catalogue lacks with OpenAI's code model_not_found, and any other refusal of the chain with validation_failed", async () => {
      const unknown = (await (await postChat(gw, chatBody({ model: 'gpt-4o' }))).json()) as any;
      expect(unknown.error).to.include({ code: 'model_not_found', param: 'model' });
      const wrongType = (await (await postChat(gw, chatBody({ model: undefined, models: ['nope/x', 'local/embed-1024'] }))).json()) as any;
      expect(wrongType.error).to.include({ code: 'validation_failed', param: 'models.0' });
      expect(wrongType.errors['models.1'].join(' ')).to.contain('an embedding model');
    });

    it("takes an assistant's refusal part, as OpenAI's answers hold it, and sends it on as text, masked; in another role it is a 422", async () => {
      const refused = { role: 'assistant', content: [{ type: 'refusal', refusal: 'Ik kan niets zeggen over Sanne de Vries.' }] };
      const response = await postChat(gw, chatBody({ messages: [{ role: 'user', content: 'Wie is Sanne de Vries?' }, refused, { role: 'user', content: 'Waarom niet?' }] }));
      expect(response.status, await response.clone().text()).to.equal(200);
      const sent = gw.euA.requests.at(-1)!.body.messages[1];
      expect(sent.role).to.equal('assistant');
      expect(JSON.stringify(sent.content)).to.match(/Ik kan niets zeggen over \[PERSON_\d\]\./);
      expect(JSON.stringify(sent)).not.to.contain('refusal');
      const misplaced = await postChat(gw, chatBody({ messages: [{ role: 'user', content: [{ type: 'refusal', refusal: 'nee' }] }] }));
      expect(misplaced.status).to.equal(422);
      expect(((await misplaced.json()) as any).errors).to.have.property('messages.0.content.0.type');
    });

    it('needs the chat.create scope', async () => {
      const restricted = await gw.app.key({ kind: 'restricted', scopes: ['embeddings.create'] });
      const response = await postChat(gw, chatBody(), {}, restricted.key);
      expect(response.status).to.equal(403);
    });
  });
});
