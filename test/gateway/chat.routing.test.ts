import { expect } from 'chai';
import { countTokens } from '../../src/gateway/tokens.js';
import { api } from '../helpers/app.js';
import { changeNonEuAcceptance } from '../../src/tenancy/keys.js';
import { chatBody, postChat, startGatewayFixture, type GatewayFixture } from '../helpers/gateway.js';

describe('POST /v1/chat/completions: routing, fallback and egress', () => {
  let gw: GatewayFixture;
  before(async () => {
    gw = await startGatewayFixture();
  });
  after(async () => {
    await gw.close();
  });
  beforeEach(() => {
    gw.euA.reset();
    gw.euB.reset();
    gw.ext.reset();
  });

  async function chat(body: Record<string, unknown>, key = gw.key) {
    const response = await postChat(gw, body, {}, key);
    return { response, body: (await response.json()) as any };
  }

  it('sends the upstream model name and only known fields, with the provider key', async () => {
    const { response, body } = await chat(chatBody({ thread: 't', tags: ['x'], name: 'n', unknown_field: 1 }));
    expect(response.status).to.equal(200);
    expect(body.model).to.equal('test/chat-a');
    expect(response.headers.get('x-model')).to.equal('test/chat-a');
    expect(response.headers.get('x-provider')).to.equal('eu-a');
    const sent = gw.euA.requests[0]!;
    expect(sent.body.model).to.equal('chat-a-upstream');
    expect(sent.headers.authorization).to.equal('Bearer sk-stub-secret');
    for (const ours of ['thread', 'tags', 'name', 'unknown_field', 'firewall', 'cache', 'provider', 'user']) {
      expect(sent.body, ours).not.to.have.property(ours);
    }
  });

  it('falls back to the next provider on a 503, and bills the one that served', async () => {
    gw.euA.script({ type: 'status', status: 503 });
    const { response, body } = await chat(chatBody());
    expect(response.status).to.equal(200);
    expect(response.headers.get('x-provider')).to.equal('eu-b');
    expect(gw.euB.requests[0]!.body.model).to.equal('chat-a-on-b');
    expect(body.usage.credits.base).to.be.above(0);
  });

  it('falls back on 429, on a connection error, on a provider with no key, and on a hang (header timeout)', async () => {
    gw.euA.script({ type: 'status', status: 429 });
    expect((await chat(chatBody())).response.headers.get('x-provider')).to.equal('eu-b');

    const flaky = await chat(chatBody({ model: 'test/flaky' }));
    expect(flaky.response.status).to.equal(200);
    expect(flaky.response.headers.get('x-provider')).to.equal('eu-b');

    gw.euA.script({ type: 'hang' });
    const started = Date.now();
    const hung = await chat(chatBody());
    expect(hung.response.status).to.equal(200);
    expect(hung.response.headers.get('x-provider')).to.equal('eu-b');
    expect(Date.now() - started).to.be.below(2000);
  });

  it('walks a chain of models (an alias) when every provider of the first fails', async () => {
    gw.euA.script({ type: 'status', status: 500 });
    gw.euB.script({ type: 'status', status: 502 });
    const { response, body } = await chat(chatBody({ model: undefined, models: ['test-chain'] }));
    expect(response.status).to.equal(200);
    expect(body.model).to.equal('test/chat-b');
    expect(response.headers.get('x-model')).to.equal('test/chat-b');
    expect(gw.euB.requests.map((r) => r.body.model)).to.deep.equal(['chat-a-on-b', 'chat-b-upstream']);
  });

  it('answers 503 with every attempt and retry-after when the whole chain is down', async () => {
    gw.euA.script({ type: 'status', status: 503, retryAfter: '7' });
    gw.euB.script({ type: 'status', status: 503 });
    const { response, body } = await chat(chatBody());
    expect(response.status).to.equal(503);
    expect(response.headers.get('retry-after')).to.equal('7');
    expect(body.attempts).to.deep.equal([
      { model: 'test/chat-a', provider: 'eu-a', status: 503, error: body.attempts[0].error },
      { model: 'test/chat-a', provider: 'eu-b', status: 503, error: body.attempts[1].error },
    ]);
    expect(body.error.type).to.equal('api_error');
  });

  it('lists the attempts in the order the chain went, a provider without a key where the chain reached it', async () => {
    gw.euB.script({ type: 'status', status: 503 });
    const { response, body } = await chat(chatBody({ model: 'test/flaky' }));
    expect(response.status).to.equal(503);
    expect(body.attempts.map((a: { provider: string; status: number | null }) => [a.provider, a.status])).to.deep.equal([
      ['eu-down', null],
      ['eu-nokey', null],
      ['eu-b', 503],
    ]);
    expect(body.attempts[1].error).to.match(/^not configured/);
  });

  it('stops the chain on an upstream 400 and says which provider refused', async () => {
    gw.euA.script({ type: 'status', status: 400, message: 'messages too long' });
    const { response, body } = await chat(chatBody());
    expect(response.status).to.equal(400);
    expect(body).to.include({ code: 'upstream_rejected', provider: 'eu-a' });
    expect(body.message).to.contain('messages too long');
    expect(gw.euB.requests).to.have.length(0);
  });

  it("falls back from a provider that refuses the gateway's key or account (401, 402, 403), and never passes on what it says of them", async () => {
    for (const status of [401, 402, 403]) {
      gw.euA.script({ type: 'status', status, message: 'Incorrect API key provided: sk-proj-****************abcd' });
      const served = await chat(chatBody());
      // The caller's request was not at fault: another provider, with a key of its own, serves it.
      expect(served.response.status, String(status)).to.equal(200);
      expect(served.response.headers.get('x-provider')).to.equal('eu-b');
      // An answer closes the count of eu-a's failures again, so that its circuit stays closed for the tests after this one.
      expect((await chat(chatBody())).response.headers.get('x-provider')).to.equal('eu-a');
    }
    gw.euA.script({ type: 'status', status: 401, message: 'Incorrect API key provided: sk-proj-****************abcd' });
    gw.euB.script({ type: 'status', status: 403, message: 'Your organization sk-ant-api03-abcdefghijklmnop is suspended' });
    const refused = await chat(chatBody());
    expect(refused.response.status).to.equal(503);
    expect(refused.body.attempts.map((a: any) => a.error)).to.deep.equal([
      "eu-a answered 401: it refused the gateway's credentials for it",
      "eu-b answered 403: it refused the gateway's credentials for it",
    ]);
    expect(JSON.stringify(refused.body)).not.to.match(/sk-proj|sk-ant|suspended/);

    gw.euA.script({ type: 'status', status: 500, message: 'upstream crashed; auth was Bearer abcdef0123456789xyz' });
    gw.euB.script({ type: 'status', status: 503, message: 'overloaded (api_key-7f3a9c2e1b4d5a6f)' });
    const failed = await chat(chatBody());
    expect(failed.response.status).to.equal(503);
    expect(failed.body.attempts.map((a: any) => a.error)).to.deep.equal([
      'eu-a answered 500: upstream crashed; auth was [redacted]',
      'eu-b answered 503: overloaded ([redacted])',
    ]);
  });

  it('falls back from an answer with no choices, and counts an answer whose usage cannot be true with the tokenizer', async () => {
    const json = (body: object) => ({ type: 'raw' as const, body: JSON.stringify(body) });
    gw.euA.script(json({ id: 'x', object: 'chat.completion', created: 1, model: 'm', choices: [] }));
    const empty = await chat(chatBody());
    expect(empty.response.status).to.equal(200);
    expect(empty.response.headers.get('x-provider')).to.equal('eu-b');

    gw.euA.script(
      json({
        id: 'y',
        object: 'chat.completion',
        created: 1,
        model: 'm',
        choices: [{ index: 0, message: { role: 'assistant', content: 'Goedemiddag' }, finish_reason: 'stop' }],
        usage: { prompt_tokens: -100, completion_tokens: 3.5, total_tokens: -96.5 },
      }),
    );
    const odd = await chat(chatBody());
    expect(odd.response.status).to.equal(200);
    expect(odd.body.choices[0].message.content).to.equal('Goedemiddag');
    expect(odd.body.usage.prompt_tokens).to.be.above(0);
    expect(odd.body.usage.completion_tokens).to.be.above(0);
  });

  it('bills by the tokenizer, not by counts the model cannot have used: past its context, or far past the cap asked for', async () => {
    const answerWith = (usage: object) =>
      gw.euA.script({
        type: 'raw',
        body: JSON.stringify({ id: 'z', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: 'Goedemiddag' }, finish_reason: 'stop' }], usage }),
      });
    // test/chat-a has a context of 32,000 tokens.
    answerWith({ prompt_tokens: 900_000_000, completion_tokens: 5, total_tokens: 900_000_005 });
    const hugeResponse = await postChat(gw, chatBody({ cache: false }), { 'x-request-id': 'impossible-prompt' });
    const huge = { response: hugeResponse, body: (await hugeResponse.json()) as any };
    expect(huge.response.status).to.equal(200);
    expect(huge.body.usage.prompt_tokens).to.be.below(100);
    expect(huge.body.usage.credits.total).to.be.below(1);
    const trace = await api(gw.app.baseUrl, '/v1/traces/impossible-prompt', { key: gw.key });
    expect(trace.body.notes.join(' ')).to.contain('the provider reported 900000000 prompt tokens, more than the model\'s context of 32000: counted with the tokenizer instead');
    answerWith({ prompt_tokens: 10, completion_tokens: 5_000_000, total_tokens: 5_000_010 });
    const long = await chat(chatBody({ cache: false, max_tokens: 10 }));
    expect(long.body.usage.completion_tokens).to.equal(countTokens('Goedemiddag'));
    // A provider that overshoots a cap by a few tokens is believed.
    answerWith({ prompt_tokens: 10, completion_tokens: 14, total_tokens: 24 });
    const over = await chat(chatBody({ cache: false, max_tokens: 10 }));
    expect(over.body.usage).to.include({ prompt_tokens: 10, completion_tokens: 14 });
  });

  it('narrows by provider.order, only and ignore', async () => {
    expect((await chat(chatBody({ provider: { order: ['eu-b', 'eu-a'] } }))).response.headers.get('x-provider')).to.equal('eu-b');
    expect((await chat(chatBody({ provider: { only: ['eu-b'] } }))).response.headers.get('x-provider')).to.equal('eu-b');
    expect((await chat(chatBody({ provider: { ignore: ['eu-a'] } }))).response.headers.get('x-provider')).to.equal('eu-b');
    const none = await chat(chatBody({ provider: { only: ['ext'] } }));
    expect(none.response.status).to.equal(422);
    expect(none.body.errors).to.have.property('provider');
  });

  it('does not fall back with allow_fallbacks: false', async () => {
    gw.euA.script({ type: 'status', status: 503 });
    const { response, body } = await chat(chatBody({ provider: { allow_fallbacks: false } }));
    expect(response.status).to.equal(503);
    expect(body.attempts.map((a: any) => a.provider)).to.deep.equal(['eu-a']);
    expect(gw.euB.requests).to.have.length(0);
    gw.euB.script({ type: 'status', status: 503 });
    const ordered = await chat(chatBody({ provider: { allow_fallbacks: false, order: ['eu-b'] } }));
    expect(ordered.body.attempts.map((a: any) => a.provider)).to.deep.equal(['eu-b']);
  });

  it('refuses a reasoning level the model does not take in strict mode, drops it otherwise', async () => {
    const strict = await chat(chatBody({ reasoning_effort: 'max', provider: { require_parameters: true } }));
    expect(strict.response.status).to.equal(422);
    expect(strict.body.errors['provider.require_parameters'][0]).to.contain('reasoning_effort "max"');
    const lenient = await chat(chatBody({ reasoning_effort: 'max' }));
    expect(lenient.response.status).to.equal(200);
    expect(gw.euA.requests.at(-1)!.body).not.to.have.property('reasoning_effort');
    const taken = await chat(chatBody({ reasoning_effort: 'high' }));
    expect(taken.response.status).to.equal(200);
    expect(gw.euA.requests.at(-1)!.body.reasoning_effort).to.equal('high');
  });

  it('drops a parameter the model itself refuses (catalogue unsupported_parameters), or in strict mode takes the next model of the chain', async () => {
    const lenient = await chat({ model: 'test/long', messages: [{ role: 'user', content: 'x' }], temperature: 0.2, top_p: 0.9, max_tokens: 20 }, gw.key);
    expect(lenient.response.status).to.equal(200);
    const sent = gw.euA.requests.at(-1)!.body;
    expect(sent).to.not.have.any.keys('temperature', 'top_p');
    expect(sent.max_tokens ?? sent.max_completion_tokens).to.equal(20);
    const trace = await api(gw.app.baseUrl, `/v1/traces/${lenient.body.id}`, { key: gw.key });
    expect(JSON.stringify(trace.body)).to.contain('dropped temperature for test/long via eu-a: test/long does not take temperature');
    const strict = { messages: [{ role: 'user', content: 'x' }], temperature: 0.2, provider: { require_parameters: true } };
    const next = await chat({ ...strict, models: ['test/long', 'test/chat-a'] });
    expect(next.response.status).to.equal(200);
    expect(next.body.model).to.equal('test/chat-a');
    const none = await chat({ ...strict, model: 'test/long' });
    expect(none.response.status).to.equal(422);
    expect(none.body.errors['provider.require_parameters']).to.include('test/long does not take temperature');
  });

  it('passes over a model that takes no images for one that does, and refuses on the image when none in the chain does', async () => {
    const question = { role: 'user', content: [{ type: 'text', text: 'Wat staat hierop?' }, { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } }] };
    const served = await chat({ models: ['test/chat-b', 'test/chat-a'], messages: [{ role: 'user', content: 'Hoi' }, question], cache: false });
    expect(served.response.status).to.equal(200);
    expect(served.body.model).to.equal('test/chat-a');
    expect(gw.euB.requests).to.have.length(0);
    expect(gw.euA.requests.at(-1)!.body.messages[1].content[1].image_url.url).to.equal('data:image/png;base64,iVBORw0KGgo=');
    const trace = await api(gw.app.baseUrl, `/v1/traces/${served.body.id}`, { key: gw.key });
    expect(JSON.stringify(trace.body)).to.contain('passed over test/chat-b: it takes no images (messages.1.content.1 is one)');
    // A model without vision would have been sent the image in vain (the provider's 400), or without it (another question).
    const refused = await chat({ model: 'test/chat-b', messages: [{ role: 'user', content: 'Hoi' }, question] });
    expect(refused.response.status).to.equal(422);
    expect(refused.body.errors['messages.1.content.1'].join(' ')).to.match(/test\/chat-b takes no images; choose a model with the vision capability/);
    expect(gw.euB.requests).to.have.length(0);
  });

  it('in strict mode skips a model lacking a capability, and 422s when none is left', async () => {
    const tools = [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object', properties: {} } } }];
    const skipped = await chat({ models: ['test/chat-b', 'test/chat-a'], messages: [{ role: 'user', content: 'x' }], tools, provider: { require_parameters: true } });
    expect(skipped.response.status).to.equal(200);
    expect(skipped.body.model).to.equal('test/chat-a');
    const none = await chat({ model: 'test/chat-b', messages: [{ role: 'user', content: 'x' }], tools, provider: { require_parameters: true } });
    expect(none.response.status).to.equal(422);
  });

  it('is EU-only by default: refuses an external model, then serves it after the acceptance', async () => {
    const refused = await chat(chatBody({ model: 'test/external' }));
    expect(refused.response.status).to.equal(403);
    expect(refused.body.code).to.equal('egress_refused');
    expect(gw.ext.requests).to.have.length(0);
    // The privacy officer finds each refusal in the traces and the audit log.
    const refusedId = refused.response.headers.get('x-request-id')!;
    const trace = await api(gw.app.baseUrl, `/v1/traces/${refusedId}`, { key: gw.key });
    expect(trace.body).to.include({ status: 403, model: null, provider: null });
    expect(JSON.stringify(trace.body.response)).to.contain('outside the EU');
    // No model answered; which one was asked for is said (QA: the officer could not tell).
    expect(trace.body.notes.join(' ')).to.contain('the request named test/external');

    const mixed = await chat(chatBody({ model: 'test/mixed' }));
    expect(mixed.response.headers.get('x-provider')).to.equal('eu-b');
    expect(gw.ext.requests).to.have.length(0);

    const firewallOff = await chat(chatBody({ firewall: false, messages: [{ role: 'user', content: 'Bel Noor de Vries op 06-12345678' }] }));
    expect(firewallOff.response.status).to.equal(403);
    expect(firewallOff.body.code).to.equal('egress_refused');
    // Sent with the firewall off, the prompt is not kept: it was never masked.
    const offId = firewallOff.response.headers.get('x-request-id')!;
    const offTrace = await api(gw.app.baseUrl, `/v1/traces/${offId}`, { key: gw.key });
    expect(offTrace.body).to.include({ status: 403 });
    expect(offTrace.body.request).to.equal(null);
    expect(JSON.stringify(offTrace.body)).not.to.contain('Noor');
    const audit = await api(gw.app.baseUrl, '/v1/audit-log?action=chat.completion&limit=100', { key: gw.key });
    const refusals = audit.body.data.filter((e: any) => [refusedId, offId].includes(e.target));
    expect(refusals.map((e: any) => e.details.status)).to.deep.equal([403, 403]);
    expect(refusals.find((e: any) => e.target === refusedId).details).to.include({ refused: 'egress_refused' }).and.to.deep.include({ requested: ['test/external'] });

    const other = await gw.app.key({ org: 'accepting', workspace: 'w' });
    await changeNonEuAcceptance(gw.app.db.pool, 'accepting', 'sofie');
    const allowed = await chat(chatBody({ model: 'test/external' }), other.key);
    expect(allowed.response.status).to.equal(200);
    expect(allowed.response.headers.get('x-provider')).to.equal('ext');
    const ordered = await chat(chatBody({ model: 'test/mixed' }), other.key);
    expect(ordered.response.headers.get('x-provider')).to.equal('ext');
    expect((await chat(chatBody({ firewall: false }), other.key)).response.status).to.equal(200);
  });

  it('answers 422 for an unknown model, an embedding model and both model and models', async () => {
    const unknown = await chat(chatBody({ model: 'nope/never' }));
    expect(unknown.response.status).to.equal(422);
    expect(unknown.body.errors.model[0]).to.contain('nope/never');
    const chain = await chat({ models: ['test/chat-a', 'nope/never'], messages: [{ role: 'user', content: 'x' }] });
    expect(chain.body.errors).to.have.property('models.1');
    const embedding = await chat(chatBody({ model: 'local/embed-1024' }));
    expect(embedding.response.status).to.equal(422);
    const both = await chat(chatBody({ models: ['test/chat-b'] }));
    expect(both.response.status).to.equal(422);
    expect(both.body.errors).to.have.property('model');
    const neither = await chat({ messages: [{ role: 'user', content: 'x' }] });
    expect(neither.response.status).to.equal(422);
  });
});
