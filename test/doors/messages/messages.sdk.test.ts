import Anthropic from '@anthropic-ai/sdk';
import { expect } from 'chai';
import { api } from '../../helpers/app.js';
import { useGatewayFixture } from '../../helpers/gateway.js';
import { fresh, useMessagesDoor } from './fixture.js';

// The official Anthropic SDK, unchanged but for its base URL and key, against /v1/messages in
// front of an OpenAI-compatible (Mistral-like) stub provider.

const PNG_1PX = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

/** One chat chunk of a provider's stream, as an SSE frame. */
const frame = (delta: unknown, finish: string | null = null) =>
  `data: ${JSON.stringify({ id: 'x', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;

const lookupTool: Anthropic.Tool = {
  name: 'lookup_policy',
  description: 'Finds an insurance policy',
  input_schema: { type: 'object', properties: { policy_number: { type: 'string' } }, required: ['policy_number'] },
};

describe('the official Anthropic SDK against /v1/messages (OpenAI-compatible provider)', () => {
  const door = useMessagesDoor();
  const { gw } = door;

  it('answers messages.create with text, usage and credits, and sends the provider a chat request', async () => {
    const text = fresh('Wat is mijn eigen risico?');
    const message = await door.client.messages.create({
      model: 'test/chat-a',
      max_tokens: 200,
      system: 'Je bent een verzekeringsassistent.',
      messages: [{ role: 'user', content: text }],
    });
    expect(message.type).to.equal('message');
    expect(message.id).to.match(/^msg_/);
    expect(message.role).to.equal('assistant');
    expect(message.model).to.equal('test/chat-a');
    expect(message.content).to.deep.equal([{ type: 'text', text: `echo: ${text}` }]);
    expect(message.stop_reason).to.equal('end_turn');
    expect(message.usage.input_tokens).to.be.above(0);
    expect(message.usage.output_tokens).to.be.above(0);
    expect(message.usage.cache_read_input_tokens).to.equal(0);
    expect((message as unknown as { credits: { total: number } }).credits.total).to.be.above(0);
    const sent = gw.euA.requests[0]!.body;
    expect(sent.model).to.equal('chat-a-upstream');
    expect(sent.max_tokens).to.equal(200);
    expect(sent.messages[0]).to.deep.equal({ role: 'system', content: 'Je bent een verzekeringsassistent.' });
    expect(sent.messages[1].role).to.equal('user');
  });

  it('makes a tool round trip: tool_use out with its input, tool_result back as a tool message with the same id', async () => {
    gw.euA.script({ type: 'answer', toolCalls: [{ id: 'call_42', name: 'lookup_policy', arguments: '{"policy_number":"42"}' }] });
    const question = fresh('Zoek polis 42');
    const first = await door.client.messages.create({
      model: 'test/chat-a',
      max_tokens: 200,
      tools: [lookupTool],
      tool_choice: { type: 'tool', name: 'lookup_policy' },
      messages: [{ role: 'user', content: question }],
    });
    expect(first.stop_reason).to.equal('tool_use');
    const use = first.content.find((block) => block.type === 'tool_use') as Anthropic.ToolUseBlock;
    expect(use).to.deep.equal({ type: 'tool_use', id: 'call_42', name: 'lookup_policy', input: { policy_number: '42' } });
    const sentFirst = gw.euA.requests[0]!.body;
    expect(sentFirst.tools[0]).to.deep.equal({ type: 'function', function: { name: 'lookup_policy', description: 'Finds an insurance policy', parameters: lookupTool.input_schema } });
    expect(sentFirst.tool_choice).to.deep.equal({ type: 'function', function: { name: 'lookup_policy' } });

    gw.euA.script({ type: 'answer', content: 'Polis 42 is een inboedelverzekering.' });
    const second = await door.client.messages.create({
      model: 'test/chat-a',
      max_tokens: 200,
      tools: [lookupTool],
      messages: [
        { role: 'user', content: question },
        { role: 'assistant', content: first.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: 'polis 42: inboedel' }, { type: 'text', text: 'Vat samen.' }] },
      ],
    });
    expect(second.content).to.deep.equal([{ type: 'text', text: 'Polis 42 is een inboedelverzekering.' }]);
    const sent = gw.euA.requests[1]!.body.messages;
    expect(sent[1]).to.deep.equal({
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'call_42', type: 'function', function: { name: 'lookup_policy', arguments: '{"policy_number":"42"}' } }],
    });
    expect(sent[2]).to.deep.equal({ role: 'tool', tool_call_id: 'call_42', content: 'polis 42: inboedel' });
    expect(sent[3]).to.deep.equal({ role: 'user', content: [{ type: 'text', text: 'Vat samen.' }] });
  });

  it('maps tool_choice any and none', async () => {
    await door.client.messages.create({
      model: 'test/chat-a',
      max_tokens: 50,
      tools: [lookupTool],
      tool_choice: { type: 'any', disable_parallel_tool_use: true },
      messages: [{ role: 'user', content: fresh('Zoek iets') }],
    });
    await door.client.messages.create({
      model: 'test/chat-a',
      max_tokens: 50,
      tools: [lookupTool],
      tool_choice: { type: 'none' },
      messages: [{ role: 'user', content: fresh('Zoek niets') }],
    });
    expect(gw.euA.requests[0]!.body.tool_choice).to.equal('required');
    expect(gw.euA.requests[0]!.body.parallel_tool_calls).to.equal(false);
    expect(gw.euA.requests[1]!.body.tool_choice).to.equal('none');
  });

  it('sends an image block as an image_url data URL', async () => {
    const message = await door.client.messages.create({
      model: 'test/chat-a',
      max_tokens: 50,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG_1PX } },
            { type: 'text', text: fresh('Wat staat erop?') },
          ],
        },
      ],
    });
    expect(message.content[0]!.type).to.equal('text');
    const parts = gw.euA.requests[0]!.body.messages[0].content;
    expect(parts[0]).to.deep.equal({ type: 'image_url', image_url: { url: `data:image/png;base64,${PNG_1PX}` } });
  });

  it('passes stop_sequences as stop and reports a length cut as max_tokens', async () => {
    gw.euA.script({ type: 'answer', content: 'Een lang', finishReason: 'length' });
    const message = await door.client.messages.create({
      model: 'test/chat-a',
      max_tokens: 2,
      stop_sequences: ['\n\nHuman:', 'EINDE'],
      messages: [{ role: 'user', content: fresh('Vertel een verhaal') }],
    });
    expect(gw.euA.requests[0]!.body.stop).to.deep.equal(['\n\nHuman:', 'EINDE']);
    expect(message.stop_reason).to.equal('max_tokens');
  });

  it('streams text with messages.stream, with usage on message_start and message_delta', async () => {
    const text = fresh('Stream dit alstublieft');
    const stream = door.client.messages.stream({ model: 'test/chat-a', max_tokens: 100, messages: [{ role: 'user', content: text }] });
    const events: string[] = [];
    let startUsage: Anthropic.Usage | undefined;
    let deltaUsage: Anthropic.MessageDeltaUsage | undefined;
    stream.on('streamEvent', (event) => {
      events.push(event.type);
      if (event.type === 'message_start') startUsage = event.message.usage;
      if (event.type === 'message_delta') deltaUsage = event.usage;
    });
    const message = await stream.finalMessage();
    expect(message.content).to.deep.equal([{ type: 'text', text: `echo: ${text}` }]);
    expect(message.stop_reason).to.equal('end_turn');
    expect(events[0]).to.equal('message_start');
    expect(events).not.to.include('error');
    expect(events[1]).to.equal('content_block_start');
    expect(events.slice(-3)).to.deep.equal(['content_block_stop', 'message_delta', 'message_stop']);
    expect(startUsage!.input_tokens).to.be.above(0);
    expect(deltaUsage!.output_tokens).to.be.above(0);
    expect(deltaUsage!.input_tokens).to.be.above(0);
    expect(message.usage.output_tokens).to.equal(deltaUsage!.output_tokens);
  });

  it('counts message_start’s input tokens on the prompt as it left, masked, as countTokens does', async () => {
    const params = { model: 'test/chat-a', max_tokens: 100, messages: [{ role: 'user' as const, content: fresh('Bel Jan de Vries op +31 6 12345678 of mail jan.devries@example.nl') }] };
    const counted = await door.client.messages.countTokens({ model: params.model, messages: params.messages });
    const stream = door.client.messages.stream(params);
    let startUsage: Anthropic.Usage | undefined;
    stream.on('streamEvent', (event) => {
      // The SDK adds message_delta's usage into this object later: kept as it came.
      if (event.type === 'message_start') startUsage = { ...event.message.usage };
    });
    await stream.finalMessage();
    expect(JSON.stringify(gw.euA.requests.at(-1)!.body)).not.to.contain('jan.devries@example.nl');
    expect(startUsage!.input_tokens).to.equal(counted.input_tokens);
  });

  it('bills the input tokens message_start and countTokens show, tools included, when the provider reports no usage', async () => {
    const tools = Array.from({ length: 20 }, (_, i) => ({
      name: `tool_${i}`,
      description: `Reads part ${i} of the project and reports what it found there, line by line. `.repeat(4),
      input_schema: { type: 'object' as const, properties: { path: { type: 'string' } } },
    }));
    const params = { model: 'test/chat-a', max_tokens: 100, tools, messages: [{ role: 'user' as const, content: fresh('Wat staat er in de map?') }] };
    const counted = await door.client.messages.countTokens({ model: params.model, tools, messages: params.messages });
    gw.euA.script({ type: 'answer', content: 'Niets bijzonders.', usage: false });
    const stream = door.client.messages.stream(params);
    let startUsage: Anthropic.Usage | undefined;
    stream.on('streamEvent', (event) => {
      if (event.type === 'message_start') startUsage = { ...event.message.usage };
    });
    const message = await stream.finalMessage();
    expect(counted.input_tokens).to.be.above(1000);
    expect(startUsage!.input_tokens).to.equal(counted.input_tokens);
    // What message_delta reports, and what is billed, is the same figure.
    expect(message.usage.input_tokens).to.equal(counted.input_tokens);
  });

  /** A provider's stream of these chunks, ending in tool_calls, as the SDK streams it through the door. */
  const streamLookups = (chunks: string[]) => {
    gw.euA.script({
      type: 'raw',
      headers: { 'content-type': 'text/event-stream' },
      body: [...chunks, frame({}, 'tool_calls'), 'data: [DONE]\n\n'],
      chunkDelayMs: 5,
    });
    return door.client.messages.stream({
      model: 'test/chat-a',
      max_tokens: 100,
      tools: [lookupTool],
      messages: [{ role: 'user', content: fresh('Zoek polis 42 en 7') }],
    });
  };

  it('streams tool arguments that arrive in pieces as input_json_delta, whole and valid at the end', async () => {
    const pieces = ['{"poli', 'cy_num', 'ber": "4', '2", "no', 'te": "à ✓"}'];
    const stream = streamLookups([
      frame({ role: 'assistant', content: 'Even zoeken. ' }),
      frame({ tool_calls: [{ index: 0, id: 'call_7', type: 'function', function: { name: 'lookup_policy', arguments: '' } }] }),
      ...pieces.map((piece) => frame({ tool_calls: [{ index: 0, function: { arguments: piece } }] })),
      frame({ tool_calls: [{ index: 1, id: 'call_8', type: 'function', function: { name: 'lookup_policy', arguments: '{"policy_number":"7"}' } }] }),
    ]);
    const jsonPieces: string[] = [];
    stream.on('streamEvent', (event) => {
      if (event.type === 'content_block_delta' && event.delta.type === 'input_json_delta') jsonPieces.push(event.delta.partial_json);
    });
    const message = await stream.finalMessage();
    expect(jsonPieces.length).to.be.above(2);
    expect(message.stop_reason).to.equal('tool_use');
    expect(message.content).to.deep.equal([
      { type: 'text', text: 'Even zoeken. ' },
      { type: 'tool_use', id: 'call_7', name: 'lookup_policy', input: { policy_number: '42', note: 'à ✓' } },
      { type: 'tool_use', id: 'call_8', name: 'lookup_policy', input: { policy_number: '7' } },
    ]);
  });

  it('streams arguments that are no JSON object as the JSON answer gives them, an object the agent can send back (QA)', async () => {
    const stream = streamLookups([
      frame({ tool_calls: [{ index: 0, id: 'call_9', type: 'function', function: { name: 'lookup_policy', arguments: ' ' } }] }),
      ...['[1,', '2]'].map((piece) => frame({ tool_calls: [{ index: 0, function: { arguments: piece } }] })),
      frame({ tool_calls: [{ index: 1, id: 'call_10', type: 'function', function: { name: 'lookup_policy', arguments: 'polis 7' } }] }),
    ]);
    const message = await stream.finalMessage();
    expect(message.content).to.deep.equal([
      { type: 'tool_use', id: 'call_9', name: 'lookup_policy', input: { arguments: ' [1,2]' } },
      { type: 'tool_use', id: 'call_10', name: 'lookup_policy', input: { arguments: 'polis 7' } },
    ]);
    // Claude Code sends the turn back with its results: taken, as Anthropic takes an object input.
    const next = await door.client.messages.create({
      model: 'test/chat-a',
      max_tokens: 100,
      tools: [lookupTool],
      messages: [
        { role: 'user', content: fresh('Zoek polis 42 en 7') },
        { role: 'assistant', content: message.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_9', content: 'geen polis' }, { type: 'tool_result', tool_use_id: 'call_10', content: 'polis 7: inboedel' }] },
      ],
    });
    expect(next.type).to.equal('message');
  });

  it('sends tool calls a provider interleaves as whole blocks, one after another, never a delta after a stop', async () => {
    const call = (index: number, args: string, head?: { id: string }) => ({
      tool_calls: [{ index, ...(head ? { id: head.id, type: 'function' } : {}), function: { ...(head ? { name: 'lookup_policy' } : {}), arguments: args } }],
    });
    const stream = streamLookups([
      frame({ role: 'assistant', content: '' }),
      frame(call(0, '{"poli', { id: 'call_a' })),
      frame(call(1, '{"policy_n', { id: 'call_b' })),
      frame(call(0, 'cy_number": "4')),
      frame(call(1, 'umber": "7"}')),
      frame(call(0, '2"}')),
    ]);
    const stopped = new Set<number>();
    const late: unknown[] = [];
    stream.on('streamEvent', (event) => {
      if (event.type === 'content_block_stop') stopped.add(event.index);
      if (event.type === 'content_block_delta' && stopped.has(event.index)) late.push(event);
    });
    const message = await stream.finalMessage();
    expect(late).to.deep.equal([]);
    expect(message.content).to.deep.equal([
      { type: 'tool_use', id: 'call_a', name: 'lookup_policy', input: { policy_number: '42' } },
      { type: 'tool_use', id: 'call_b', name: 'lookup_policy', input: { policy_number: '7' } },
    ]);
  });

  it('counts tokens with messages.countTokens, without calling a provider or billing', async () => {
    const short = await door.client.messages.countTokens({ model: 'test/chat-a', messages: [{ role: 'user', content: 'Hallo' }] });
    const long = await door.client.messages.countTokens({
      model: 'test/chat-a',
      system: 'Je bent een verzekeringsassistent die altijd uitgebreid antwoordt.',
      tools: [lookupTool],
      messages: [{ role: 'user', content: 'Hallo, ik wil graag weten wat mijn eigen risico is dit jaar.' }],
    });
    expect(short.input_tokens).to.be.above(0);
    expect(long.input_tokens).to.be.above(short.input_tokens + 20);
    expect(gw.euA.requests).to.have.length(0);
    const usage = await gw.app.db.pool.query('SELECT count(*)::int AS n FROM usage');
    const before = usage.rows[0].n;
    await door.client.messages.countTokens({ model: 'test/chat-a', messages: [{ role: 'user', content: 'Nog eens' }] });
    const after = await gw.app.db.pool.query('SELECT count(*)::int AS n FROM usage');
    expect(after.rows[0].n).to.equal(before);
    // Counted for a model, as Anthropic's is: none, or one the catalogue lacks, is refused as /v1/messages refuses it.
    for (const model of [undefined, 'nope/nothing', 'local/embed-1024']) {
      const err = await door.client.messages.countTokens({ model, messages: [{ role: 'user', content: 'Hallo' }] } as never).catch((e: unknown) => e);
      expect(err, String(model)).to.be.instanceOf(Anthropic.UnprocessableEntityError);
      expect(JSON.stringify((err as InstanceType<typeof Anthropic.APIError>).error), String(model)).to.match(/model/);
    }
  });

  it('takes the key as x-api-key or Bearer, and answers a bad key in Anthropic’s shape', async () => {
    const bearer = new Anthropic({ baseURL: gw.app.baseUrl, authToken: gw.key, apiKey: null, maxRetries: 0 });
    const message = await bearer.messages.create({ model: 'test/chat-a', max_tokens: 20, messages: [{ role: 'user', content: fresh('Hoi') }] });
    expect(message.type).to.equal('message');
    const wrong = new Anthropic({ baseURL: gw.app.baseUrl, apiKey: 'pk_wrong', maxRetries: 0 });
    const err = await wrong.messages.create({ model: 'test/chat-a', max_tokens: 20, messages: [{ role: 'user', content: 'Hoi' }] }).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(Anthropic.AuthenticationError);
    expect((err as InstanceType<typeof Anthropic.AuthenticationError>).error).to.deep.include({ type: 'error' });
    expect((err as { error: { error: { type: string } } }).error.error.type).to.equal('authentication_error');
    // Without a key, the answer names the header this door's clients send.
    const missing = await api(gw.app.baseUrl, '/v1/messages', { method: 'POST', body: { model: 'test/chat-a', max_tokens: 20, messages: [] } });
    expect(missing.status).to.equal(401);
    expect(missing.body.error.message).to.contain('x-api-key');
  });
});

describe('/v1/messages over plain HTTP: shapes the SDK does not show', () => {
  const gw = useGatewayFixture();

  it('answers a missing max_tokens with a 422 in Anthropic’s shape, naming the dotted path', async () => {
    const res = await api(gw.app.baseUrl, '/v1/messages', {
      method: 'POST',
      key: gw.key,
      body: { model: 'test/chat-a', messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'base64' } }, { type: 'tool_use' }] }] },
    });
    expect(res.status).to.equal(422);
    expect(res.body.type).to.equal('error');
    expect(res.body.error.type).to.equal('invalid_request_error');
    expect(res.body.error.message).to.contain('max_tokens');
    expect(res.body.errors).to.have.property('max_tokens');
    expect(res.body.errors).to.have.property('messages.0.content.1.id');
  });

  it('refuses an image of no image type, and counts only what /v1/messages would take (QA, 2026-11-27)', async () => {
    const html = { type: 'image', source: { type: 'base64', media_type: 'text/html', data: PNG_1PX } };
    const res = await api(gw.app.baseUrl, '/v1/messages', {
      method: 'POST',
      key: gw.key,
      body: { model: 'test/chat-a', max_tokens: 32, messages: [{ role: 'user', content: [{ type: 'text', text: 'Wat staat hierop?' }, html] }] },
    });
    expect(res.status).to.equal(422);
    expect(res.body.error.type).to.equal('invalid_request_error');
    expect(res.body.errors).to.have.property('messages.0.content.1');
    expect(gw.euA.requests).to.have.length(0);
    // count_tokens refuses what /v1/messages refuses: an image of no image type, a tool_result no tool_use asked for.
    const orphan = { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_nope', content: 'ok' }] };
    const hallo = [{ role: 'user', content: 'Hallo' }];
    for (const [messages, field, extra] of [
      [[{ role: 'user', content: [html] }], 'messages.0.content.0', {}],
      [[{ role: 'user', content: 'Hallo' }, { role: 'assistant', content: 'Ja?' }, orphan], 'messages.2', {}],
      [hallo, 'tool_choice.type', { tool_choice: { type: 'any' } }],
      [hallo, 'tool_choice.name', { tool_choice: { type: 'tool', name: 'lookup' } }],
    ] as const) {
      const counted = await api(gw.app.baseUrl, '/v1/messages/count_tokens', { method: 'POST', key: gw.key, body: { model: 'test/chat-a', messages, ...extra } });
      const created = await api(gw.app.baseUrl, '/v1/messages', { method: 'POST', key: gw.key, body: { model: 'test/chat-a', max_tokens: 32, messages, ...extra } });
      expect(created.status, field).to.equal(422);
      expect(counted.status, field).to.equal(422);
      expect(counted.body.error.type).to.equal('invalid_request_error');
      expect(Object.keys(counted.body.errors).join(' '), field).to.contain(field);
    }
    expect(gw.euA.requests).to.have.length(0);
  });

  it('refuses a tool_choice that forces a tool when the request offers none, as Anthropic does (it was dropped)', async () => {
    for (const [toolChoice, path] of [
      [{ type: 'any' }, 'tool_choice.type'],
      [{ type: 'tool', name: 'lookup' }, 'tool_choice.name'],
    ] as const) {
      const res = await api(gw.app.baseUrl, '/v1/messages', {
        method: 'POST',
        key: gw.key,
        body: { model: 'test/chat-a', max_tokens: 32, tool_choice: toolChoice, messages: [{ role: 'user', content: 'Hallo' }] },
      });
      expect(res.status).to.equal(422);
      expect(res.body.errors).to.have.property(path);
    }
  });

  it('refuses before any provider what Anthropic refuses: two tools of one name, a message of blank text only, a blank stop sequence, a prefill ending in whitespace, temperature above 1 (QA)', async () => {
    const hallo = [{ role: 'user', content: 'Hallo' }];
    const tool = { name: 'lookup', input_schema: { type: 'object', properties: {} } };
    for (const [extra, field] of [
      [{ tools: [tool, { type: 'web_search_20250305', name: 'web_search' }, tool] }, 'tools.2.name'],
      [{ messages: [{ role: 'user', content: [{ type: 'text', text: ' ' }, { type: 'text', text: '\u200b' }] }] }, 'messages.0.content'],
      [{ stop_sequences: ['END', ' '] }, 'stop_sequences.1'],
      [{ messages: [...hallo, { role: 'assistant', content: 'Zeker, ' }] }, 'messages.1.content'],
      [{ messages: [...hallo, { role: 'assistant', content: [{ type: 'text', text: '{"a": ' }] }] }, 'messages.1.content.0.text'],
      [{ temperature: 1.5 }, 'temperature'],
    ] as const) {
      const res = await api(gw.app.baseUrl, '/v1/messages', { method: 'POST', key: gw.key, body: { model: 'test/chat-a', max_tokens: 32, messages: hallo, ...extra } });
      expect(res.status, field).to.equal(422);
      expect(res.body.error.type).to.equal('invalid_request_error');
      expect(Object.keys(res.body.errors), field).to.deep.equal([field]);
    }
    expect(gw.euA.requests).to.have.length(0);
    // A prefill that ends in a word is continued.
    const prefilled = await api(gw.app.baseUrl, '/v1/messages', { method: 'POST', key: gw.key, body: { model: 'test/chat-a', max_tokens: 32, messages: [...hallo, { role: 'assistant', content: 'Zeker' }] } });
    expect(prefilled.status).to.equal(200);
    // A blank text block beside others, as the door streams a model's "\n\n" before a tool_use and a
    // client sends it back, is left out (QA with the real agents).
    const tool_use = { type: 'tool_use', id: 'toolu_1', name: 'lookup', input: {} };
    const sentBack = await api(gw.app.baseUrl, '/v1/messages', {
      method: 'POST',
      key: gw.key,
      body: {
        model: 'test/chat-a',
        max_tokens: 32,
        tools: [tool],
        messages: [
          ...hallo,
          { role: 'assistant', content: [{ type: 'text', text: '\n\n' }, tool_use] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'ok' }, { type: 'text', text: ' ' }] },
        ],
      },
    });
    expect(sentBack.status, sentBack.text).to.equal(200);
    expect(gw.euA.requests.at(-1)!.body.messages.slice(1)).to.deep.equal([
      { role: 'assistant', content: null, tool_calls: [{ id: 'toolu_1', type: 'function', function: { name: 'lookup', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'toolu_1', content: 'ok' },
    ]);
  });

  it('gives the request id as Anthropic’s request-id header too, which the SDK reports as requestID (QA)', async () => {
    const res = await api(gw.app.baseUrl, '/v1/messages', { method: 'POST', key: gw.key, body: { model: 'test/chat-a', max_tokens: 0, messages: [{ role: 'user', content: 'Hallo' }] } });
    expect(res.status).to.equal(422);
    expect(res.headers.get('request-id')).to.be.a('string').and.equal(res.headers.get('x-request-id'));
    const client = new Anthropic({ baseURL: gw.app.baseUrl, apiKey: gw.key, maxRetries: 0 });
    const error = await client.messages.create({ model: 'test/chat-a', max_tokens: 0, messages: [{ role: 'user', content: 'Hallo' }] }).catch((e: unknown) => e);
    expect((error as { requestID?: string }).requestID).to.be.a('string').and.not.equal('');
  });

  it('answers with the model asked for (an alias too), and says which served in X-Model', async () => {
    const res = await api(gw.app.baseUrl, '/v1/messages', {
      method: 'POST',
      key: gw.key,
      body: { model: 'test-chain', max_tokens: 32, messages: [{ role: 'user', content: 'Welke polis?' }] },
    });
    expect(res.status).to.equal(200);
    expect(res.body.model).to.equal('test-chain');
    expect(res.headers.get('x-model')).to.equal('test/chat-a');
    const streamed = await api(gw.app.baseUrl, '/v1/messages', {
      method: 'POST',
      key: gw.key,
      body: { model: 'test-chain', max_tokens: 32, stream: true, messages: [{ role: 'user', content: 'Welke polis nog meer?' }] },
    });
    const start = streamed.text.split('\n').find((line: string) => line.startsWith('data: {"type":"message_start"'))!;
    expect(JSON.parse(start.slice('data: '.length)).message.model).to.equal('test-chain');
    // A chain of models without `model`: the first it names (QA: the model that served).
    const chained = await api(gw.app.baseUrl, '/v1/messages', {
      method: 'POST',
      key: gw.key,
      body: { models: ['test-chain', 'test/chat-a'], max_tokens: 32, messages: [{ role: 'user', content: 'En de derde?' }] },
    });
    expect(chained.status, chained.text).to.equal(200);
    expect(chained.body.model).to.equal('test-chain');
  });

  it('refuses a message with empty content, except a final assistant turn left for the model to continue', async () => {
    const refused = await api(gw.app.baseUrl, '/v1/messages', {
      method: 'POST',
      key: gw.key,
      body: { model: 'test/chat-a', max_tokens: 32, messages: [{ role: 'user', content: [] }, { role: 'assistant', content: '' }, { role: 'user', content: 'Hi' }] },
    });
    expect(refused.status).to.equal(422);
    expect(refused.body.error.type).to.equal('invalid_request_error');
    expect(Object.keys(refused.body.errors)).to.deep.equal(['messages.0.content', 'messages.1.content']);

    const prefilled = await api(gw.app.baseUrl, '/v1/messages', {
      method: 'POST',
      key: gw.key,
      body: { model: 'test/chat-a', max_tokens: 32, messages: [{ role: 'user', content: 'Hi' }, { role: 'assistant', content: [] }] },
    });
    expect(prefilled.status).to.equal(200);
  });

  it("refuses a prompt the model's context leaves no room to answer, instead of sending it with max_tokens 1, as Anthropic does: a 400 Claude Code compacts on", async () => {
    const sentBefore = gw.euA.requests.length;
    for (const stream of [false, true]) {
      const res = await api(gw.app.baseUrl, '/v1/messages', {
        method: 'POST',
        headers: { 'anthropic-version': '2023-06-01', 'x-api-key': gw.key },
        body: { model: 'test/chat-a', max_tokens: 32000, stream, messages: [{ role: 'user', content: 'woord '.repeat(40_000) }] },
      });
      // QA with Claude Code 2.1.197: a 422 was shown as "API Error: 422", and the conversation never compacted.
      expect(res.status).to.equal(400);
      expect(res.body.type).to.equal('error');
      expect(res.body.error.type).to.equal('invalid_request_error');
      expect(res.body.error.message).to.match(/^prompt is too long: \d+ tokens > 31999 maximum \(test\/chat-a\)$/);
      expect(res.body.code).to.equal('context_length_exceeded');
    }
    expect(gw.euA.requests.length, 'nothing sent upstream').to.equal(sentBefore);
  });

  it('drops unknown fields at every level and accepts ?beta=true and anthropic-beta', async () => {
    const res = await api(gw.app.baseUrl, '/v1/messages?beta=true', {
      method: 'POST',
      headers: { 'anthropic-version': '2023-06-01', 'anthropic-beta': 'claude-code-20250219,interleaved-thinking-2025-05-14', 'x-api-key': gw.key },
      body: {
        model: 'test/chat-a',
        max_tokens: 64000,
        context_management: { edits: [] },
        metadata: { user_id: JSON.stringify({ device_id: 'a'.repeat(64), account_uuid: '', session_id: 'b'.repeat(36) }) },
        system: [{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } }],
        tools: [{ ...lookupTool, cache_control: { type: 'ephemeral' }, strict: true }, { type: 'web_search_20250305', name: 'web_search', max_uses: 5 }],
        messages: [
          { role: 'user', content: [{ type: 'text', text: fresh('Hallo'), cache_control: { type: 'ephemeral' }, citations: null }] },
        ],
        thinking: { type: 'enabled', budget_tokens: 2000 },
      },
    });
    expect(res.status).to.equal(200);
    expect(res.body.content[0].text).to.contain('Hallo');
    const sent = gw.euA.requests.at(-1)!.body;
    expect(sent.tools).to.have.length(1);
    expect(JSON.stringify(sent)).not.to.contain('cache_control');
    expect(sent.max_tokens).to.be.below(32000);
    expect(sent).not.to.have.property('user');
    expect(sent.reasoning_effort).to.equal('low');
    const trace = await api(gw.app.baseUrl, `/v1/traces/${res.headers.get('x-request-id')}`, { key: gw.key });
    expect(trace.body.notes.join(' ')).to.contain('web_search');
    expect(trace.body.notes.join(' ')).to.contain('max_tokens 64000 was lowered');
    // Each note once: the door's notes reach the trace by one path.
    expect(new Set(trace.body.notes).size, trace.body.notes.join(' | ')).to.equal(trace.body.notes.length);
  });
});
