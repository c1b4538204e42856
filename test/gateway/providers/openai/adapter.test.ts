import { expect } from 'chai';
import type { CatalogProvider } from '../../../../src/gateway/catalog.js';
import { verdictOf } from '../../../../src/gateway/breaker.js';
import { createOpenAiAdapter } from '../../../../src/gateway/providers/openai/adapter.js';
import { abortedError } from '../../../../src/gateway/providers/openai/errors.js';
import {
  type ProviderAdapter,
  type UpstreamChatRequest,
  type UpstreamChunk,
  UpstreamError,
  type UpstreamTarget,
} from '../../../../src/gateway/providers/types.js';
import { closedPortUrl, startStubProvider, stubEmbedding, type StubProvider } from '../../../helpers/stubProvider.js';

const KEY = 'sk-test-0123456789abcdef';

/** A catalogue provider for the stub (apiKey null: none), its key non-enumerable as the catalogue makes it. */
function provider(baseUrl: string, over: Partial<CatalogProvider> = {}, apiKey: string | null = KEY): CatalogProvider {
  const p: CatalogProvider = { id: 'stub', region: 'eu', kind: 'openai', baseUrl, timeoutMs: 2_000, available: true, ...over };
  if (apiKey !== null) Object.defineProperty(p, 'apiKey', { value: apiKey, enumerable: false });
  return p;
}

/** One turn of the event loop, as between two requests reaching the gateway. */
const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function target(p: CatalogProvider, upstreamModel = 'upstream-small'): UpstreamTarget {
  return { provider: p, upstreamModel, modelId: `${p.id}/small` };
}

const hello: UpstreamChatRequest = { messages: [{ role: 'user', content: 'hello world' }] };

async function collect(chunks: AsyncIterable<UpstreamChunk>): Promise<UpstreamChunk[]> {
  const out: UpstreamChunk[] = [];
  for await (const c of chunks) out.push(c);
  return out;
}

function contentOf(chunks: UpstreamChunk[]): string {
  return chunks.map((c) => c.choices.map((ch) => ch.delta.content ?? '').join('')).join('');
}

/** The UpstreamError a promise rejects with (fails the test if it resolves or throws something else). */
async function failure(p: Promise<unknown>): Promise<UpstreamError> {
  try {
    await p;
  } catch (err) {
    expect(err).to.be.instanceOf(UpstreamError);
    return err as UpstreamError;
  }
  expect.fail('expected an UpstreamError');
}

const never = new AbortController().signal;

describe('openai adapter', function () {
  this.timeout(5_000);
  let stub: StubProvider;
  let adapter: ProviderAdapter;
  let p: CatalogProvider;

  beforeEach(async () => {
    stub = await startStubProvider();
    adapter = createOpenAiAdapter({ connectTimeoutMs: 1_000 });
    p = provider(stub.url);
  });
  afterEach(async () => {
    await adapter.close();
    await stub.close();
  });

  describe('complete()', () => {
    it('sends only known fields, the upstream model name and the bearer key; returns the completion', async () => {
      const request = { ...hello, temperature: 0.3, tenant: 'acme', firewall: false } as unknown as UpstreamChatRequest;
      const result = await adapter.complete(target(p), request, never);

      expect(stub.requests).to.have.length(1);
      const sent = stub.requests[0]!;
      expect(sent.method).to.equal('POST');
      expect(sent.path).to.equal('/v1/chat/completions');
      expect(sent.headers.authorization).to.equal(`Bearer ${KEY}`);
      expect(sent.headers['content-type']).to.equal('application/json');
      expect(sent.body).to.deep.equal({ model: 'upstream-small', messages: [{ role: 'user', content: 'hello world' }], temperature: 0.3 });

      expect(result.choices).to.deep.equal([
        { index: 0, message: { role: 'assistant', content: 'echo: hello world' }, finish_reason: 'stop' },
      ]);
      expect(result.id).to.be.a('string');
      expect(result.created).to.be.a('number');
      expect(result.usage).to.deep.equal({ prompt_tokens: 2, completion_tokens: 3, total_tokens: 5 });
    });

    it('omits usage when the provider sent none', async () => {
      stub.script({ type: 'answer', usage: false });
      const result = await adapter.complete(target(p), hello, never);
      expect(result).not.to.have.property('usage');
    });

    it('sends no authorization header to a provider without a key', async () => {
      await adapter.complete(target(provider(stub.url, {}, null)), hello, never);
      expect(stub.requests[0]!.headers).not.to.have.property('authorization');
    });

    it('normalises tool calls (type function, arguments given as an object)', async () => {
      stub.script({
        type: 'raw',
        body: JSON.stringify({
          id: 'x',
          created: 1,
          choices: [
            {
              index: 0,
              message: { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', function: { name: 'get', arguments: { q: 1 } } }] },
              finish_reason: 'tool_calls',
            },
          ],
        }),
      });
      const result = await adapter.complete(target(p), hello, never);
      expect(result.choices[0]!.message).to.deep.equal({
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get', arguments: '{"q":1}' } }],
      });
      expect(result).not.to.have.property('usage');
    });

    it("applies the parameter map of the provider's profile (mistral)", async () => {
      const mistral = provider(stub.url, { id: 'mistral', profile: 'mistral' });
      await adapter.complete(
        target(mistral, 'mistral-small-latest'),
        {
          messages: [
            { role: 'developer', content: 'be brief' },
            { role: 'user', content: 'hi', name: 'alice' },
          ],
          logit_bias: { '1': 1 },
          logprobs: true,
          top_logprobs: 1,
          seed: 3,
          max_completion_tokens: 50,
          reasoning_effort: 'high',
        },
        never,
      );
      expect(stub.requests[0]!.body).to.deep.equal({
        model: 'mistral-small-latest',
        messages: [
          { role: 'system', content: 'be brief' },
          { role: 'user', content: 'hi' },
        ],
        random_seed: 3,
        max_tokens: 50,
        reasoning_effort: 'high',
      });
      expect(adapter.supportedParameters(target(mistral)).has('logit_bias')).to.equal(false);
      expect(adapter.supportedParameters(target(p)).has('logit_bias')).to.equal(true);
    });

    it('keeps a base URL path and query string', async () => {
      const q = provider(`${stub.url}/deployments/x?api-version=2024-10-21`);
      await adapter.complete(target(q), hello, never);
      expect(stub.requests[0]!.path).to.equal('/v1/deployments/x/chat/completions?api-version=2024-10-21');
    });
  });

  describe('failures', () => {
    it('connection refused → connect, retryable', async () => {
      const err = await failure(adapter.complete(target(provider(await closedPortUrl())), hello, never));
      expect(err.kind).to.equal('connect');
      expect(err.retryable).to.equal(true);
      expect(err.message).to.match(/ECONNREFUSED/);
    });

    it('a provider that accepts and never answers → timeout after timeoutMs, retryable', async () => {
      stub.script({ type: 'hang' });
      const started = Date.now();
      const err = await failure(adapter.complete(target(provider(stub.url, { timeoutMs: 200 })), hello, never));
      const elapsed = Date.now() - started;
      expect(err.kind).to.equal('timeout');
      expect(err.retryable).to.equal(true);
      expect(elapsed).to.be.within(150, 1_000);
      await stub.waitFor(() => stub.requests[0]!.closedEarly);
    });

    it('a call that waited for a connection until its timeout is told apart, and does not count against the provider', async () => {
      const single = createOpenAiAdapter({ connectTimeoutMs: 1_000, connections: 1 });
      try {
        // The one connection is busy with a slow answer while the second call waits for it.
        stub.script({ type: 'answer', delayMs: 600 }, { type: 'hang' });
        const first = single.complete(target(provider(stub.url, { timeoutMs: 2_000 })), hello, never);
        const queued = await failure(single.complete(target(provider(stub.url, { timeoutMs: 200 })), hello, never));
        expect(queued).to.include({ kind: 'timeout', queued: true });
        expect(queued.message).to.match(/no connection to it came free within 200 ms/);
        expect(verdictOf(queued)).to.deep.equal(verdictOf(abortedError('stub')));
        expect((await first).choices).to.have.length(1);
        // A provider that took the call and never answered is another matter.
        const hung = await failure(single.complete(target(provider(stub.url, { timeoutMs: 200 })), hello, never));
        expect(hung).to.include({ kind: 'timeout', queued: false });
        expect(verdictOf(hung)).not.to.deep.equal(verdictOf(queued));
      } finally {
        await single.close();
      }
    });

    it('503 with retry-after → status, retryable, with the provider’s message', async () => {
      stub.script({ type: 'status', status: 503, retryAfter: '7', message: 'overloaded' });
      const err = await failure(adapter.complete(target(p), hello, never));
      expect(err).to.include({ kind: 'status', status: 503, retryAfter: '7', upstreamMessage: 'overloaded' });
      expect(err.retryable).to.equal(true);
    });

    it('429 → retryable; 408 → retryable', async () => {
      stub.script({ type: 'status', status: 429 }, { type: 'status', status: 408 });
      const a = await failure(adapter.complete(target(p), hello, never));
      const b = await failure(adapter.complete(target(p), hello, never));
      expect([a.status, a.retryable, b.status, b.retryable]).to.deep.equal([429, true, 408, true]);
    });

    it('400 → not retryable, with the provider’s message', async () => {
      stub.script({ type: 'status', status: 400, message: 'messages: too long' });
      const err = await failure(adapter.complete(target(p), hello, never));
      expect(err).to.include({ kind: 'status', status: 400, upstreamMessage: 'messages: too long', retryAfter: undefined });
      expect(err.retryable).to.equal(false);
    });

    it('reads {message}, Mistral’s {message: {detail}} and {detail} bodies; truncates long ones', async () => {
      stub.script(
        { type: 'status', status: 422, body: { message: 'plain message' } },
        { type: 'status', status: 422, body: { object: 'error', message: { detail: [{ msg: 'Extra inputs are not permitted' }] } } },
        { type: 'status', status: 404, body: { detail: 'Not Found' } },
        { type: 'status', status: 400, message: 'x'.repeat(5_000) },
        { type: 'status', status: 502, body: '<html>bad gateway</html>' },
      );
      const messages: (string | undefined)[] = [];
      for (let i = 0; i < 5; i++) messages.push((await failure(adapter.complete(target(p), hello, never))).upstreamMessage);
      expect(messages[0]).to.equal('plain message');
      expect(messages[1]).to.contain('Extra inputs are not permitted');
      expect(messages[2]).to.equal('Not Found');
      expect(messages[3]!.length).to.be.at.most(500);
      expect(messages[4]).to.equal(undefined);
    });

    it('never repeats the key from a provider’s message', async () => {
      stub.script({ type: 'status', status: 401, message: `Incorrect API key provided: ${KEY}.` });
      const err = await failure(adapter.complete(target(p), hello, never));
      expect(err.upstreamMessage).not.to.contain(KEY);
      expect(err.message).not.to.contain(KEY);
      // The gateway's key, not the caller's request, was refused: the next provider may serve it.
      expect(err.retryable).to.equal(true);
    });

    it('invalid JSON on a 200 → protocol', async () => {
      stub.script({ type: 'raw', body: '{"choices": [' });
      const err = await failure(adapter.complete(target(p), hello, never));
      expect(err.kind).to.equal('protocol');
      expect(err.retryable).to.equal(true);
    });

    it('a 200 without choices, or with {"error": …} → protocol or status', async () => {
      stub.script(
        { type: 'raw', body: '{"object":"list"}' },
        { type: 'raw', body: '{"error":{"message":"model is loading"}}' },
        { type: 'raw', body: '{"error":{"message":"bad input","code":400}}' },
      );
      expect((await failure(adapter.complete(target(p), hello, never))).kind).to.equal('protocol');
      const loading = await failure(adapter.complete(target(p), hello, never));
      expect(loading).to.include({ kind: 'protocol', upstreamMessage: 'model is loading' });
      const rejected = await failure(adapter.complete(target(p), hello, never));
      expect(rejected).to.include({ kind: 'status', status: 400, upstreamMessage: 'bad input' });
      expect(rejected.retryable).to.equal(false);
    });

    it('a connection reset before the answer → connect', async () => {
      stub.script({ type: 'reset' });
      const err = await failure(adapter.complete(target(p), hello, never));
      expect(err.kind).to.equal('connect');
    });

    it('our own abort → aborted, not retryable (already aborted, and during the wait)', async () => {
      const before = new AbortController();
      before.abort();
      const a = await failure(adapter.complete(target(p), hello, before.signal));
      expect(a.kind).to.equal('aborted');
      expect(stub.requests).to.have.length(0);

      stub.script({ type: 'hang' });
      const during = new AbortController();
      setTimeout(() => during.abort(), 50);
      const b = await failure(adapter.complete(target(p), hello, during.signal));
      expect(b.kind).to.equal('aborted');
      expect(b.retryable).to.equal(false);
      await stub.waitFor(() => stub.requests[0]!.closedEarly);
    });

    it('a provider without a base URL → connect', async () => {
      const err = await failure(adapter.complete(target(provider('', {})), hello, never));
      expect(err.kind).to.equal('connect');
    });
  });

  describe('stream()', () => {
    it('streams the chunks, asks for usage, and reports it on the last chunk', async () => {
      const { chunks } = await adapter.stream(target(p), hello, never);
      const all = await collect(chunks);
      expect(stub.requests[0]!.body).to.deep.include({ stream: true, stream_options: { include_usage: true } });
      expect(stub.requests[0]!.headers.accept).to.equal('text/event-stream');
      expect(all[0]!.choices[0]!.delta.role).to.equal('assistant');
      expect(contentOf(all)).to.equal('echo: hello world');
      expect(all.at(-2)!.choices[0]!.finish_reason).to.equal('stop');
      expect(all.at(-1)).to.deep.equal({ choices: [], usage: { prompt_tokens: 2, completion_tokens: 3, total_tokens: 5 } });
      for (const c of all.slice(0, -1)) expect(c).not.to.have.property('usage');
    });

    it('takes usage on the finish chunk without stream_options (mistral)', async () => {
      stub.script({ type: 'answer', usage: 'finish' });
      const { chunks } = await adapter.stream(target(provider(stub.url, { id: 'mistral', profile: 'mistral' })), hello, never);
      const all = await collect(chunks);
      expect(stub.requests[0]!.body).not.to.have.property('stream_options');
      expect(all.at(-1)!.choices[0]!.finish_reason).to.equal('stop');
      expect(all.at(-1)!.usage).to.deep.equal({ prompt_tokens: 2, completion_tokens: 3, total_tokens: 5 });
    });

    it('asks Mistral to continue a prefill (prefix: true), and answers only the continuation when it writes the prefill again, streamed or not', async () => {
      const mistral = provider(stub.url, { id: 'mistral', profile: 'mistral' });
      const prefilled: UpstreamChatRequest = { messages: [{ role: 'user', content: 'Geef JSON' }, { role: 'assistant', content: '{"stad": "' }] };
      stub.script(
        { type: 'answer', content: '{"stad": "Utrecht"}', chunks: ['{"st', 'ad": ', '"Utr', 'echt"}'] },
        { type: 'answer', content: '{"stad": "Utrecht"}' },
        { type: 'answer', content: 'Utrecht"}', chunks: ['Utr', 'echt"}'] },
      );
      expect(contentOf(await collect((await adapter.stream(target(mistral), prefilled, never)).chunks))).to.equal('Utrecht"}');
      expect(stub.requests[0]!.body.messages[1]).to.deep.equal({ role: 'assistant', content: '{"stad": "', prefix: true });
      expect((await adapter.complete(target(mistral), prefilled, never)).choices[0]!.message.content).to.equal('Utrecht"}');
      // A continuation that does not write it again goes as it came.
      expect(contentOf(await collect((await adapter.stream(target(mistral), prefilled, never)).chunks))).to.equal('Utrecht"}');
      // Another profile gets no such mark (OpenAI refuses unknown fields on messages).
      stub.script({ type: 'answer', content: 'Utrecht"}' });
      await adapter.complete(target(p), prefilled, never);
      expect(stub.requests.at(-1)!.body.messages[1]).not.to.have.property('prefix');
    });

    it('reassembles events split at awkward byte boundaries (UTF-8, \\r\\n, comments, data: without space)', async () => {
      const events =
        ': keep-alive\r\n\r\n' +
        'data: {"choices":[{"index":0,"delta":{"role":"assistant","content":"Caf"},"finish_reason":null}]}\r\n\r\n' +
        'data:{"choices":[{"index":0,"delta":{"content":"é 😀"},"finish_reason":null}]}\r\n\r\n' +
        'data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","type":"function","function":{"name":"f","arguments":"{\\"a\\""}}]},"finish_reason":null}]}\n\n' +
        'data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":":1}"}}]},"finish_reason":"tool_calls"}]}\n\n' +
        'data: {"choices":[],"usage":{"prompt_tokens":1,"completion_tokens":2}}\n\n' +
        'data: [DONE]\n\n';
      const bytes = Buffer.from(events, 'utf8');
      // Cut inside "é" (2 bytes) and "😀" (4 bytes), between \r and \n, and every 7 bytes elsewhere.
      const cuts = new Set<number>();
      const e = bytes.indexOf(Buffer.from('é'));
      const smiley = bytes.indexOf(Buffer.from('😀'));
      const crlf = bytes.indexOf(Buffer.from('\r\n'));
      for (const c of [e + 1, smiley + 1, smiley + 2, smiley + 3, crlf + 1]) cuts.add(c);
      for (let i = 7; i < bytes.length; i += 7) cuts.add(i);
      const sorted = [...cuts].sort((a, b) => a - b);
      const pieces: Uint8Array[] = [];
      let from = 0;
      for (const c of sorted) {
        pieces.push(bytes.subarray(from, c));
        from = c;
      }
      pieces.push(bytes.subarray(from));
      stub.script({ type: 'raw', headers: { 'content-type': 'text/event-stream' }, body: pieces, chunkDelayMs: 1 });

      const { chunks } = await adapter.stream(target(p), hello, never);
      const all = await collect(chunks);
      expect(contentOf(all)).to.equal('Café 😀');
      expect(all[2]!.choices[0]!.delta.tool_calls).to.deep.equal([
        { index: 0, id: 'c1', type: 'function', function: { name: 'f', arguments: '{"a"' } },
      ]);
      expect(all[3]!.choices[0]!.delta.tool_calls).to.deep.equal([{ index: 0, function: { arguments: ':1}' } }]);
      expect(all[4]).to.deep.equal({ choices: [], usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 } });
      expect(all).to.have.length(5);
    });

    describe('failing before the first chunk rejects stream()', () => {
      it('on a status', async () => {
        stub.script({ type: 'status', status: 503, retryAfter: '1' });
        const err = await failure(adapter.stream(target(p), hello, never));
        expect(err).to.include({ kind: 'status', status: 503, retryAfter: '1' });
      });

      it('on a connection cut after the headers', async () => {
        stub.script({ type: 'cutMidStream', afterChunks: 0 });
        const err = await failure(adapter.stream(target(p), hello, never));
        expect(err.kind).to.equal('connect');
        expect(err.retryable).to.equal(true);
      });

      it('on a header timeout', async () => {
        stub.script({ type: 'hang' });
        const err = await failure(adapter.stream(target(provider(stub.url, { timeoutMs: 200 })), hello, never));
        expect(err.kind).to.equal('timeout');
      });

      it('on a refused connection', async () => {
        const err = await failure(adapter.stream(target(provider(await closedPortUrl())), hello, never));
        expect(err.kind).to.equal('connect');
      });

      it('on an end without any chunk, or [DONE] first', async () => {
        stub.script(
          { type: 'raw', headers: { 'content-type': 'text/event-stream' }, body: ': nothing\n\n' },
          { type: 'raw', headers: { 'content-type': 'text/event-stream' }, body: 'data: [DONE]\n\n' },
        );
        expect((await failure(adapter.stream(target(p), hello, never))).kind).to.equal('protocol');
        expect((await failure(adapter.stream(target(p), hello, never))).kind).to.equal('protocol');
      });

      it('on an error event', async () => {
        stub.script({
          type: 'raw',
          headers: { 'content-type': 'text/event-stream' },
          body: 'data: {"error":{"message":"overloaded","type":"server_error"}}\n\n',
        });
        const err = await failure(adapter.stream(target(p), hello, never));
        expect(err).to.include({ kind: 'protocol', upstreamMessage: 'overloaded' });
        expect(err.retryable).to.equal(true);
      });

      it('on a stall before the first chunk (body timeout)', async () => {
        stub.script({ type: 'raw', headers: { 'content-type': 'text/event-stream' }, body: ': hi\n\n', keepOpen: true });
        const err = await failure(adapter.stream(target(provider(stub.url, { timeoutMs: 200 })), hello, never));
        expect(err.kind).to.equal('timeout');
      });
    });

    it('takes a stream whose every choice finished as complete when the body ends without [DONE]', async () => {
      // Some servers never send [DONE]; OpenAI's SDKs take such a stream as finished, and so the
      // answer is whole, billed and cached rather than cut.
      stub.script({ type: 'answer', done: false, usage: 'finish' });
      const { chunks } = await adapter.stream(target(p), hello, never);
      const got: UpstreamChunk[] = [];
      for await (const c of chunks) got.push(c);
      expect(contentOf(got)).to.equal('echo: hello world');
      expect(got.some((c) => c.choices.some((choice) => choice.finish_reason === 'stop'))).to.equal(true);
      expect(got.at(-1)!.usage?.completion_tokens).to.be.greaterThan(0);
    });

    describe('failing after the first chunk throws from the iterator', () => {
      async function iterate(chunks: AsyncIterable<UpstreamChunk>): Promise<{ got: UpstreamChunk[]; err: UpstreamError }> {
        const got: UpstreamChunk[] = [];
        const err = await failure(
          (async () => {
            for await (const c of chunks) got.push(c);
          })(),
        );
        return { got, err };
      }

      it('a connection cut mid-way', async () => {
        stub.script({ type: 'cutMidStream', afterChunks: 2 });
        const { chunks } = await adapter.stream(target(p), hello, never);
        const { got, err } = await iterate(chunks);
        expect(got).to.have.length(2);
        expect(err.kind).to.equal('connect');
      });

      it('an end before every choice finished', async () => {
        stub.script({
          type: 'raw',
          headers: { 'content-type': 'text/event-stream' },
          body: [
            'data: {"choices":[{"index":0,"delta":{"role":"assistant","content":"a"},"finish_reason":null},{"index":1,"delta":{"content":"b"},"finish_reason":null}]}\n\n',
            'data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n',
          ],
          chunkDelayMs: 5,
        });
        const { chunks } = await adapter.stream(target(p), hello, never);
        const { got, err } = await iterate(chunks);
        expect(got).to.have.length(2);
        expect(err.kind).to.equal('protocol');
        expect(err.message).to.match(/ended before its answer finished/);
      });

      it('an error event', async () => {
        stub.script({
          type: 'raw',
          headers: { 'content-type': 'text/event-stream' },
          body: [
            'data: {"choices":[{"index":0,"delta":{"role":"assistant","content":"a"},"finish_reason":null}]}\n\n',
            'data: {"error":{"message":"upstream died"}}\n\n',
          ],
          chunkDelayMs: 5,
        });
        const { chunks } = await adapter.stream(target(p), hello, never);
        const { got, err } = await iterate(chunks);
        expect(got).to.have.length(1);
        expect(err.upstreamMessage).to.equal('upstream died');
      });

      it('invalid JSON in an event', async () => {
        stub.script({
          type: 'raw',
          headers: { 'content-type': 'text/event-stream' },
          body: ['data: {"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":null}]}\n\n', 'data: {nope\n\n'],
          chunkDelayMs: 5,
        });
        const { chunks } = await adapter.stream(target(p), hello, never);
        const { err } = await iterate(chunks);
        expect(err.kind).to.equal('protocol');
      });

      it('an idle stall (body timeout)', async () => {
        stub.script({
          type: 'raw',
          headers: { 'content-type': 'text/event-stream' },
          body: 'data: {"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":null}]}\n\n',
          keepOpen: true,
        });
        const started = Date.now();
        const { chunks } = await adapter.stream(target(provider(stub.url, { timeoutMs: 200 })), hello, never);
        const { got, err } = await iterate(chunks);
        expect(got).to.have.length(1);
        expect(err.kind).to.equal('timeout');
        expect(Date.now() - started).to.be.below(1_000);
      });
    });

    it('aborting the signal mid-stream stops the upstream request', async () => {
      stub.script({ type: 'answer', chunks: Array.from({ length: 50 }, (_, i) => `w${i} `), chunkDelayMs: 20 });
      const controller = new AbortController();
      const { chunks } = await adapter.stream(target(p), hello, controller.signal);
      const it = chunks[Symbol.asyncIterator]();
      expect((await it.next()).done).to.equal(false);
      controller.abort();
      const err = await failure(
        (async () => {
          for (;;) if ((await it.next()).done) return;
        })(),
      );
      expect(err.kind).to.equal('aborted');
      await stub.waitFor(() => stub.requests[0]!.closedEarly);
    });

    it('leaving the iterator early (the client went away) stops the upstream request', async () => {
      stub.script({ type: 'answer', chunks: Array.from({ length: 50 }, (_, i) => `w${i} `), chunkDelayMs: 20 });
      const { chunks } = await adapter.stream(target(p), hello, never);
      for await (const c of chunks) {
        expect(c.choices[0]!.delta.role).to.equal('assistant');
        break;
      }
      await stub.waitFor(() => stub.requests[0]!.closedEarly);
    });

    it('holds a fast provider back for a slow consumer, without losing a chunk or timing out', async () => {
      const words = Array.from({ length: 1_000 }, (_, i) => `w${i} `);
      stub.script({ type: 'answer', chunks: words });
      const { chunks } = await adapter.stream(target(provider(stub.url, { timeoutMs: 300 })), hello, never);
      let text = '';
      let n = 0;
      for await (const c of chunks) {
        text += c.choices[0]?.delta.content ?? '';
        // Pauses shorter than the idle timeout each, longer than it in total.
        if (++n % 200 === 0) await new Promise((resolve) => setTimeout(resolve, 150));
      }
      expect(text).to.equal(words.join(''));
    });

    it('takes a JSON answer to a stream request as one chunk', async () => {
      stub.script({
        type: 'raw',
        body: JSON.stringify({
          id: 'x',
          created: 1,
          choices: [{ index: 0, message: { role: 'assistant', content: 'whole' }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
        }),
      });
      const { chunks } = await adapter.stream(target(p), hello, never);
      expect(await collect(chunks)).to.deep.equal([
        {
          choices: [{ index: 0, delta: { role: 'assistant', content: 'whole' }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
        },
      ]);
    });
  });

  describe('embed()', () => {
    it('sends float encoding and dimensions, and orders the vectors by index', async () => {
      stub.script({ type: 'answer', reverse: true });
      const input = ['alpha', 'beta', 'gamma'];
      const out = await adapter.embed(target(p, 'embed-model'), { input, dimensions: 4, user: 'u1' }, never);
      expect(stub.requests[0]!.path).to.equal('/v1/embeddings');
      expect(stub.requests[0]!.body).to.deep.equal({ model: 'embed-model', input, encoding_format: 'float', dimensions: 4, user: 'u1' });
      expect(out.embeddings).to.deep.equal(input.map((t) => stubEmbedding(t, 4)));
      expect(out.usage).to.deep.equal({ prompt_tokens: 3, total_tokens: 3 });
    });

    it('uses mistral’s output_dimension and sends no user', async () => {
      await adapter.embed(target(provider(stub.url, { id: 'mistral', profile: 'mistral' }), 'mistral-embed'), { input: ['a'], dimensions: 8, user: 'u' }, never);
      expect(stub.requests[0]!.body).to.deep.equal({ model: 'mistral-embed', input: ['a'], encoding_format: 'float', output_dimension: 8 });
    });

    it('fails with protocol when the count does not match the inputs', async () => {
      stub.script({ type: 'answer', count: 1 });
      const err = await failure(adapter.embed(target(p), { input: ['a', 'b'] }, never));
      expect(err.kind).to.equal('protocol');
      expect(err.message).to.match(/asked for 2 embeddings, got 1/);
    });

    it('omits usage when none was sent, and maps failures like chat', async () => {
      stub.script({ type: 'answer', usage: false }, { type: 'status', status: 500 });
      const out = await adapter.embed(target(p), { input: ['a'] }, never);
      expect(out).not.to.have.property('usage');
      expect(out.embeddings).to.deep.equal([stubEmbedding('a', 8)]);
      const err = await failure(adapter.embed(target(p), { input: ['a'] }, never));
      expect(err).to.include({ kind: 'status', status: 500 });
    });
  });

  describe('connection pool', () => {
    it('reuses one keep-alive connection for sequential calls of every kind, errors included', async () => {
      stub.script({ type: 'answer' }, { type: 'status', status: 400 });
      await adapter.complete(target(p), hello, never);
      await tick();
      await failure(adapter.complete(target(p), hello, never));
      await tick();
      await collect((await adapter.stream(target(p), hello, never)).chunks);
      await tick();
      await adapter.complete(target(p), hello, never);
      await tick();
      await adapter.embed(target(p), { input: ['x'] }, never);
      await tick();
      // A second provider object for the same origin shares the pool.
      await adapter.complete(target(provider(stub.url, { id: 'other' })), hello, never);
      expect(stub.requests.map((r) => r.connection)).to.deep.equal([1, 1, 1, 1, 1, 1]);
      expect(stub.connections).to.equal(1);
    });

    it('back to back (no event-loop turn between), alternates between two sockets at most', async () => {
      // undici waits one event-loop turn before reusing a socket (pipelining 1), so a request
      // sent in the same turn the last one finished takes a second socket. Still no new
      // connection per request.
      for (let i = 0; i < 6; i++) await adapter.complete(target(p), hello, never);
      expect(stub.connections).to.be.at.most(2);
    });

    it('opens parallel connections for concurrent calls and reuses them after', async () => {
      await Promise.all([1, 2, 3].map(() => adapter.complete(target(p), hello, never)));
      expect(stub.connections).to.equal(3);
      await tick();
      await Promise.all([1, 2, 3].map(() => adapter.complete(target(p), hello, never)));
      expect(stub.connections).to.equal(3);
    });

    it('close() closes the sockets; the adapter can be used again after', async () => {
      await adapter.complete(target(p), hello, never);
      expect(stub.openConnections).to.equal(1);
      await adapter.close();
      await stub.waitFor(() => stub.openConnections === 0);
      await adapter.complete(target(p), hello, never);
      expect(stub.connections).to.equal(2);
    });
  });
});
