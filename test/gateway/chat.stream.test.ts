import { expect } from 'chai';
import { countPromptTokens } from '../../src/gateway/tokens.js';
import { connect, type Socket } from 'node:net';
import { api } from '../helpers/app.js';
import { waitFor } from '../helpers/db.js';
import { findSamples, scrape } from '../helpers/prometheus.js';
import { chatBody, postChat, readSse, TIMEOUT_MS, useGatewayFixture } from '../helpers/gateway.js';

describe('POST /v1/chat/completions with stream: true', () => {
  const gw = useGatewayFixture({ worker: true });

  /** Sends a chat under `id` that the test can abort as a client going away would; `sent` never rejects. */
  const sendAbortable = (id: string, body: Record<string, unknown>) => {
    const controller = new AbortController();
    const sent = fetch(`${gw.app.baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gw.key}`, 'content-type': 'application/json', 'x-request-id': id },
      body: JSON.stringify(body),
      signal: controller.signal,
    }).catch((err: unknown) => err);
    return { controller, sent };
  };

  const contentOf = (events: Awaited<ReturnType<typeof readSse>>) =>
    events.flatMap((e) => (e === '[DONE]' ? [] : e.choices.map((c: any) => c.delta?.content ?? ''))).join('');

  it('streams chunks with the role first, usage and sources on the finish chunk, then [DONE]', async () => {
    gw.euA.script({ type: 'answer', chunks: ['Hoi ', 'daar ', 'Noor'] });
    const response = await postChat(gw, chatBody({ stream: true }), { 'x-request-id': 'stream-1' });
    expect(response.status).to.equal(200);
    expect(response.headers.get('content-type')).to.match(/^text\/event-stream/);
    expect(response.headers.get('x-model')).to.equal('test/chat-a');
    expect(response.headers.get('x-provider')).to.equal('eu-a');
    expect(response.headers.get('x-request-id')).to.equal('stream-1');
    const events = await readSse(response);
    expect(events.at(-1)).to.equal('[DONE]');
    const chunks = events.slice(0, -1) as Record<string, any>[];
    for (const chunk of chunks) {
      expect(chunk).to.include({ id: 'stream-1', object: 'chat.completion.chunk', model: 'test/chat-a' });
    }
    expect(chunks[0]!.choices[0].delta.role).to.equal('assistant');
    expect(contentOf(events)).to.equal('Hoi daar Noor');
    const finish = chunks.at(-1)!;
    expect(finish.choices[0].finish_reason).to.equal('stop');
    expect(finish.usage.credits.total).to.be.above(0);
    expect(finish.sources).to.deep.equal([]);
    expect(chunks.slice(0, -1).every((c) => c.choices[0].finish_reason === null)).to.equal(true);
    expect(gw.euA.requests[0]!.body.stream).to.equal(true);
    const usage = await waitFor(
      async () => (await gw.app.db.pool.query("select * from usage where request_id = 'stream-1'")).rows[0],
      { what: 'the usage row of the stream' },
    );
    expect(usage.completion_tokens).to.equal(finish.usage.completion_tokens);
  });

  it('adds one usage chunk with empty choices when include_usage is set', async () => {
    const events = await readSse(await postChat(gw, chatBody({ stream: true, stream_options: { include_usage: true, other: 1 } })));
    const chunks = events.slice(0, -1) as Record<string, any>[];
    const last = chunks.at(-1)!;
    expect(last.choices).to.deep.equal([]);
    expect(last.usage).to.deep.equal(chunks.at(-2)!.usage);
    expect(chunks.at(-2)!.choices[0].finish_reason).to.equal('stop');
  });

  it('counts tokens with the tokenizer when the provider reports no usage', async () => {
    gw.euA.script({ type: 'answer', content: 'een twee drie', usage: false });
    const events = await readSse(await postChat(gw, chatBody({ stream: true })));
    const finish = events.at(-2) as Record<string, any>;
    expect(finish.usage.completion_tokens).to.be.above(0);
    expect(finish.usage.prompt_tokens).to.be.above(0);
  });

  it('counts the tool definitions into the prompt it bills when the provider reports no usage', async () => {
    // A coding agent's tools are most of its prompt: 40 definitions of about 100 tokens each.
    const tools = Array.from({ length: 40 }, (_, i) => ({
      type: 'function',
      function: { name: `tool_${i}`, description: `Does task number ${i} of the project, carefully and completely, and reports what it did. `.repeat(5), parameters: { type: 'object', properties: { path: { type: 'string' } } } },
    }));
    const messages = [{ role: 'user', content: 'hallo' }];
    gw.euA.script({ type: 'answer', content: 'een twee drie', usage: false });
    const events = await readSse(await postChat(gw, chatBody({ stream: true, messages, tools, cache: false })));
    const finish = events.at(-2) as Record<string, any>;
    const sent = gw.euA.requests.at(-1)!.body;
    expect(finish.usage.prompt_tokens).to.equal(countPromptTokens({ messages: sent.messages, tools: sent.tools }));
    expect(finish.usage.prompt_tokens).to.be.above(3000);
  });

  it('falls back when a stream fails before its first byte', async () => {
    gw.euA.script({ type: 'cutMidStream', afterChunks: 0 });
    const response = await postChat(gw, chatBody({ stream: true }));
    expect(response.status).to.equal(200);
    expect(response.headers.get('x-provider')).to.equal('eu-b');
    const events = await readSse(response);
    expect(events.at(-1)).to.equal('[DONE]');
  });

  it('falls back when a stream fails after a chunk that only names the role, as OpenAI-compatible providers open', async () => {
    gw.euA.script({ type: 'cutMidStream', afterChunks: 1 });
    const response = await postChat(gw, chatBody({ stream: true }));
    expect(response.headers.get('x-provider')).to.equal('eu-b');
    const events = await readSse(response);
    expect(events.at(-1)).to.equal('[DONE]');
    expect(events.filter((e) => typeof e === 'object' && (e as any).choices?.[0]?.delta?.role === 'assistant')).to.have.length(1);

    const roleThenError = ['data: {"id":"x","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}\n\n', 'data: {"error":{"message":"overloaded","code":503}}\n\n'];
    gw.euA.script({ type: 'raw', headers: { 'content-type': 'text/event-stream' }, body: roleThenError, chunkDelayMs: 20 });
    const second = await postChat(gw, chatBody({ stream: true }));
    expect(second.headers.get('x-provider')).to.equal('eu-b');
    expect((await readSse(second)).at(-1)).to.equal('[DONE]');
  });

  it('answers a JSON 503 when every provider fails before the first byte', async () => {
    gw.euA.script({ type: 'status', status: 500 });
    gw.euB.script({ type: 'hang' });
    const response = await postChat(gw, chatBody({ stream: true }));
    expect(response.status).to.equal(503);
    expect(response.headers.get('content-type')).to.match(/application\/json/);
    expect(((await response.json()) as any).attempts).to.have.length(2);
  });

  const countedAs = async (status: string) =>
    findSamples(await scrape(`${gw.app.baseUrl}/metrics`), 'polder_http_requests_total', { route: '/v1/chat/completions', status }).reduce((sum, s) => sum + s.value, 0);

  it('ends a stream cut mid-way with an error event and no [DONE], unbilled', async () => {
    const before = await countedAs('502');
    gw.euA.script({ type: 'cutMidStream', afterChunks: 2 });
    const response = await postChat(gw, chatBody({ stream: true }), { 'x-request-id': 'cut-1' });
    expect(response.status).to.equal(200);
    const events = await readSse(response);
    expect(events).not.to.include('[DONE]');
    const error = events.at(-1) as Record<string, any>;
    expect(error).to.have.all.keys('error');
    expect(error.error).to.include({ type: 'api_error', code: 'upstream_stream_error' });
    expect(error.error.message).to.be.a('string');
    const trace = await waitFor(
      async () => (await gw.app.db.pool.query("select * from traces where id = 'cut-1'")).rows[0],
      { what: 'the trace of the broken stream' },
    );
    expect(trace.status).to.equal(502);
    // Who served the part that was streamed, and what it was.
    expect(trace).to.include({ model: 'test/chat-a', provider: 'eu-a' });
    expect(trace.output.streamed[0].message.content).to.be.a('string').and.not.equal('');
    expect(trace.notes.at(-1)).to.match(/^the stream from eu-a broke off after \d+ tokens; not billed$/);
    expect((await gw.app.db.pool.query("select * from usage where request_id = 'cut-1'")).rows).to.have.length(0);
    // The operator's metrics count it as its trace does, not as the 200 its header said.
    await waitFor(async () => (await countedAs('502')) === before + 1, { what: 'a 502 in polder_http_requests_total', timeoutMs: 5_000 });
  });

  it('aborts the upstream call when the client goes away', async () => {
    const closedBefore = await countedAs('499');
    gw.euA.script({ type: 'answer', chunks: Array.from({ length: 50 }, (_, i) => `w${i} `), chunkDelayMs: 40 });
    const controller = new AbortController();
    const response = await fetch(`${gw.app.baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gw.key}`, 'content-type': 'application/json' },
      body: JSON.stringify(chatBody({ stream: true })),
      signal: controller.signal,
    });
    const reader = response.body!.getReader();
    await reader.read();
    controller.abort();
    await gw.euA.waitFor(() => gw.euA.requests[0]?.closedEarly === true, 3000);
    expect(gw.euA.requests[0]!.closedEarly).to.equal(true);
    // Counted as the client closing it (and done with before the next test counts its own).
    await waitFor(async () => (await countedAs('499')) === closedBefore + 1, { what: 'a 499 in polder_http_requests_total', timeoutMs: 5_000 });
  });

  it('a client that stops reading, then disconnects: billed for what was streamed, traced as 499; a retry under its id runs anew and its bill replaces that one', async () => {
    // Big enough that the client's socket buffers fill and the gateway has to wait for them.
    gw.euA.script({ type: 'answer', chunks: Array.from({ length: 3000 }, (_, i) => `${'woord '.repeat(300)}${i} `) });
    const closedBefore = await countedAs('499');
    const serverSockets = new Set<Socket>();
    const track = (socket: Socket) => serverSockets.add(socket);
    gw.app.server.on('connection', track);
    const body = JSON.stringify(chatBody({ stream: true }));
    const client = connect(Number(new URL(gw.app.baseUrl).port), '127.0.0.1');
    client.write(
      `POST /v1/chat/completions HTTP/1.1\r\nHost: polder\r\nAuthorization: Bearer ${gw.key}\r\nContent-Type: application/json\r\n` +
        `X-Request-Id: stalled-1\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
    client.pause();
    try {
      await waitFor(async () => [...serverSockets].some((socket) => socket.writableNeedDrain), {
        what: 'the gateway waiting on a client that reads nothing',
        timeoutMs: 10_000,
      });
    } finally {
      gw.app.server.off('connection', track);
    }
    client.destroy();

    const trace = await waitFor(
      async () => (await gw.app.db.pool.query("select * from traces where id = 'stalled-1'")).rows[0],
      { what: 'the trace of the abandoned stream', timeoutMs: 5_000 },
    );
    expect(trace.status).to.equal(499);
    // The operator's metrics say so too, not the 200 the stream's header went out with.
    await waitFor(async () => (await countedAs('499')) === closedBefore + 1, { what: 'a 499 in polder_http_requests_total', timeoutMs: 5_000 });
    const usage = (await gw.app.db.pool.query("select * from usage where request_id = 'stalled-1'")).rows;
    expect(usage).to.have.length(1);
    expect(usage[0].completion_tokens).to.be.greaterThan(0);
    expect(usage[0].completion_tokens).to.equal(trace.completion_tokens);
    expect(Number(usage[0].credits_total)).to.be.greaterThan(0);
    expect(usage[0].partial).to.equal(true);
    const presented = await api(gw.app.baseUrl, '/v1/traces/stalled-1', { key: gw.key });
    expect(presented.body.usage.completion_tokens).to.equal(usage[0].completion_tokens);

    // Not held as running (409), nor refused: the retry runs anew, and its bill replaces the partial one.
    const retry = await postChat(gw, { ...JSON.parse(body), stream: false }, { 'x-request-id': 'stalled-1' });
    expect(retry.status).to.equal(200);
    const answered = (await retry.json()) as any;
    const billed = (await gw.app.db.pool.query("select completion_tokens, credits_total::float8 as credits, partial from usage where request_id = 'stalled-1'")).rows;
    expect(billed).to.deep.equal([{ completion_tokens: answered.usage.completion_tokens, credits: answered.usage.credits.total, partial: false }]);
    const after = (await gw.app.db.pool.query("select status from traces where id = 'stalled-1'")).rows[0];
    expect(after).to.deep.equal({ status: 200 });
    // And it is kept for replay like any answer.
    const replay = await postChat(gw, { ...JSON.parse(body), stream: false }, { 'x-request-id': 'stalled-1' });
    expect(replay.headers.get('x-replay')).to.equal('true');
  });

  it('a client that stops reading for longer than the provider\'s timeout, then reads on: told why the stream ended, billed for what was streamed, traced as 499, never blamed on the provider (QA)', async () => {
    gw.euA.script({ type: 'answer', chunks: Array.from({ length: 3000 }, (_, i) => `${'woord '.repeat(300)}${i} `) });
    const serverSockets = new Set<Socket>();
    const track = (socket: Socket) => serverSockets.add(socket);
    gw.app.server.on('connection', track);
    const body = JSON.stringify(chatBody({ stream: true }));
    const client = connect(Number(new URL(gw.app.baseUrl).port), '127.0.0.1');
    const received: Buffer[] = [];
    const ended = new Promise<void>((resolve) => client.on('end', resolve).on('close', resolve));
    client.write(
      `POST /v1/chat/completions HTTP/1.1\r\nHost: polder\r\nAuthorization: Bearer ${gw.key}\r\nContent-Type: application/json\r\n` +
        `Connection: close\r\nX-Request-Id: paused-1\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
    client.pause();
    try {
      await waitFor(async () => [...serverSockets].some((socket) => socket.writableNeedDrain), {
        what: 'the gateway waiting on a client that reads nothing',
        timeoutMs: 10_000,
      });
      // Paused well past the provider's timeout (TIMEOUT_MS), which had sent everything at once.
      await new Promise((resolve) => setTimeout(resolve, 4 * TIMEOUT_MS));
    } finally {
      gw.app.server.off('connection', track);
    }
    client.on('data', (chunk: Buffer) => received.push(chunk));
    client.resume();
    await ended;
    const text = Buffer.concat(received).toString('utf8');
    expect(text).to.contain('"code":"client_stalled"');
    expect(text).not.to.contain('upstream_stream_error');
    const trace = await waitFor(async () => (await gw.app.db.pool.query("select * from traces where id = 'paused-1'")).rows[0], { what: 'the trace of the paused stream' });
    expect(trace.status).to.equal(499);
    const usage = (await gw.app.db.pool.query("select * from usage where request_id = 'paused-1'")).rows;
    expect(usage).to.have.length(1);
    expect(usage[0].completion_tokens).to.be.greaterThan(0);
    expect(usage[0].partial).to.equal(true);
  });

  for (const stream of [false, true]) {
    it(`a client that goes away before ${stream ? 'the first chunk of a stream' : 'a JSON answer'}: its prompt is billed, traced as 499; a retry under its id replaces that bill`, async () => {
      // QA: such a request was traced with 0 tokens and billed nothing, though the provider had the
      // prompt (a stream closed before its first output, still on 2026-11-27).
      const id = `gone-${stream ? 'stream' : 'json'}`;
      gw.euA.script({ type: 'answer', content: 'Te laat.', delayMs: 1_000 });
      const body = chatBody({ stream });
      const { controller, sent } = sendAbortable(id, body);
      await gw.euA.waitFor(() => gw.euA.requests.length > 0, 3000);
      controller.abort();
      await sent;
      const trace = await waitFor(
        async () => (await gw.app.db.pool.query('select * from traces where id = $1', [id])).rows[0],
        { what: 'the trace of the abandoned request', timeoutMs: 5_000 },
      );
      expect(trace.status).to.equal(499);
      expect(trace.model).to.equal('test/chat-a');
      const usage = (await gw.app.db.pool.query('select prompt_tokens, completion_tokens, partial from usage where request_id = $1', [id])).rows;
      expect(usage).to.have.length(1);
      expect(usage[0].prompt_tokens).to.be.greaterThan(0);
      expect(usage[0]).to.include({ completion_tokens: 0, partial: true });

      const retry = await postChat(gw, { ...body, stream: false }, { 'x-request-id': id });
      expect(retry.status).to.equal(200);
      const answered = (await retry.json()) as any;
      const billed = (await gw.app.db.pool.query('select completion_tokens, credits_total::float8 as credits, partial from usage where request_id = $1', [id])).rows;
      expect(billed).to.deep.equal([{ completion_tokens: answered.usage.completion_tokens, credits: answered.usage.credits.total, partial: false }]);
    });
  }

  for (const stream of [false, true]) {
    it(`a client that goes away while the firewall still reads its prompt (${stream ? 'stream' : 'JSON'}): no provider is asked, nothing billed or traced, and a retry under its id runs anew`, async () => {
      // QA: the provider was then asked with the signal already aborted, and the whole prompt billed
      // as if it had read it, once for every retry of an SDK that timed out.
      const id = `gone-while-masking-${stream ? 'stream' : 'json'}`;
      const line = 'Klant Sanne de Vries (sanne.devries@example.nl, +31 6 12345678) meldt schade aan Kerkstraat 12, Utrecht. ';
      const prompt = line.repeat(Math.floor((gw.app.config.firewallMaxChars * 0.9) / line.length));
      const body = chatBody({ model: 'test/long', stream, messages: [{ role: 'user', content: prompt }] });
      const { controller, sent } = sendAbortable(id, body);
      // Claimed once the body is read, before the firewall starts on a prompt that takes it a while.
      await waitFor(async () => (await gw.app.db.pool.query('select 1 from requests where request_id = $1', [id])).rowCount === 1, {
        what: 'the claim of the request id',
        timeoutMs: 10_000,
        intervalMs: 2,
      });
      controller.abort();
      await sent;
      const released = await waitFor(async () => (await gw.app.db.pool.query('select 1 from requests where request_id = $1', [id])).rowCount === 0, {
        what: 'the claim released',
        timeoutMs: 10_000,
      });
      expect(released).to.equal(true);
      expect(gw.euA.requests).to.have.length(0);
      expect((await gw.app.db.pool.query('select 1 from usage where request_id = $1', [id])).rowCount).to.equal(0);
      expect((await gw.app.db.pool.query('select 1 from traces where id = $1', [id])).rowCount).to.equal(0);

      const retry = await postChat(gw, { ...body, stream: false }, { 'x-request-id': id });
      expect(retry.status).to.equal(200);
      expect(retry.headers.get('x-replay')).to.equal(null);
      expect((await gw.app.db.pool.query('select partial from usage where request_id = $1', [id])).rows).to.deep.equal([{ partial: false }]);
    });
  }

  it('streams tool calls with their index, and a local/echo tool call end to end', async () => {
    const tools = [{ type: 'function', function: { name: 'get_policy', parameters: { type: 'object', properties: { number: { type: 'string' } }, required: ['number'] } } }];
    const response = await postChat(gw, { model: 'local/echo', stream: true, tools, tool_choice: 'required', messages: [{ role: 'user', content: 'polis 123' }] });
    const events = (await readSse(response)).slice(0, -1) as Record<string, any>[];
    const calls = events.flatMap((e) => e.choices.flatMap((c: any) => c.delta.tool_calls ?? []));
    expect(calls.length).to.be.greaterThan(0);
    expect(calls.every((c: any) => c.index === 0)).to.equal(true);
    expect(calls[0]).to.include({ type: 'function' });
    expect(calls[0].function.name).to.equal('get_policy');
    const args = calls.map((c: any) => c.function?.arguments ?? '').join('');
    expect(JSON.parse(args)).to.have.property('number');
    expect(events.at(-1)!.choices[0].finish_reason).to.equal('tool_calls');
  });

  it('a streamed turn of tool calls alone, replayed or served from the cache as JSON, has content null, as a JSON answer has', async () => {
    const tools = [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object' } } }];
    gw.euA.script({ type: 'answer', toolCalls: [{ id: 'call_7', name: 'lookup', arguments: '{}' }] });
    const body = chatBody({ tools, stream: true, messages: [{ role: 'user', content: 'Zoek het op.' }] });
    await readSse(await postChat(gw, body, { 'X-Request-Id': 'streamed-tool-turn' }));
    const replayed = (await (await postChat(gw, { ...body, stream: false }, { 'X-Request-Id': 'streamed-tool-turn' })).json()) as any;
    expect(replayed.choices[0].message).to.include({ content: null });
    expect(replayed.choices[0].message.tool_calls[0].id).to.equal('call_7');
    const cached = await postChat(gw, { ...body, stream: false });
    expect(cached.headers.get('x-cache')).to.equal('HIT');
    expect(((await cached.json()) as any).choices[0].message).to.include({ content: null });
  });
});
