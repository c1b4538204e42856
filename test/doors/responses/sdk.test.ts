import { expect } from 'chai';
import OpenAI from 'openai';
import { api, startTestApp, type TestApp } from '../../helpers/app.js';

// The official SDK, unchanged but for its base URL and key, against /v1/responses over local/echo.
describe('the official openai SDK against /v1/responses', () => {
  let app: TestApp;
  let client: OpenAI;
  let key: string;
  before(async () => {
    app = await startTestApp();
    key = (await app.key()).key;
    client = new OpenAI({ baseURL: `${app.baseUrl}/v1`, apiKey: key, maxRetries: 0 });
  });
  after(async () => {
    await app.close();
  });

  const lookupTool: OpenAI.Responses.FunctionTool = {
    type: 'function',
    name: 'lookup_policy',
    description: 'Finds a policy',
    parameters: { type: 'object', properties: { policy_number: { type: 'string' } }, required: ['policy_number'], additionalProperties: false },
    strict: true,
  };

  it('answers a string input with a completed response and its output_text', async () => {
    const response = await client.responses.create({ model: 'local/echo', input: 'Wat is mijn eigen risico?' });
    expect(response.id).to.match(/^resp_[0-9a-f]{48}$/);
    expect(response.object).to.equal('response');
    expect(response.status).to.equal('completed');
    expect(response.output_text).to.equal('Echo: Wat is mijn eigen risico?');
    expect(response.output[0]).to.include({ type: 'message', role: 'assistant', status: 'completed' });
    expect(response.usage!.input_tokens).to.be.above(0);
    expect(response.usage!.output_tokens).to.be.above(0);
    expect(response.usage!.total_tokens).to.equal(response.usage!.input_tokens + response.usage!.output_tokens);
    expect(response.usage!.input_tokens_details.cached_tokens).to.equal(0);
    expect(response.usage!.output_tokens_details.reasoning_tokens).to.equal(0);
    expect((response as unknown as { credits: { total: number } }).credits.total).to.be.above(0);
  });

  it('takes items with instructions and a developer message as system messages', async () => {
    const response = await client.responses.create({
      model: 'local/echo',
      instructions: 'Antwoord kort.',
      input: [
        { role: 'developer', content: 'Je bent een verzekeraar.' },
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Eerste vraag' }, { type: 'input_text', text: 'tweede regel' }] },
      ],
    });
    expect(response.output_text).to.equal('Echo: Eerste vraag\ntweede regel');
    const trace = await api(app.baseUrl, `/v1/traces/${encodeURIComponent(await lastTraceId())}`, { key });
    const roles = (trace.body.request.messages as { role: string }[]).map((m) => m.role);
    expect(roles).to.deep.equal(['system', 'system', 'user']);
  });

  it('makes a function-call round trip with function_call_output', async () => {
    const first = await client.responses.create({
      model: 'local/echo',
      input: 'Zoek polis 42',
      tools: [lookupTool],
      tool_choice: { type: 'function', name: 'lookup_policy' },
    });
    const call = first.output.find((item): item is OpenAI.Responses.ResponseFunctionToolCall => item.type === 'function_call')!;
    expect(call.name).to.equal('lookup_policy');
    expect(call.call_id).to.be.a('string').and.not.equal('');
    expect(JSON.parse(call.arguments)).to.have.property('policy_number');
    const second = await client.responses.create({
      model: 'local/echo',
      input: [
        { role: 'user', content: 'Zoek polis 42' },
        ...first.output.map((item) => item as OpenAI.Responses.ResponseInputItem),
        { type: 'function_call_output', call_id: call.call_id, output: 'polis 42: inboedel' },
      ],
      tools: [lookupTool],
      store: false,
    });
    expect(second.output_text).to.equal('Echo: tool result polis 42: inboedel');
  });

  it('returns structured output for text.format json_schema', async () => {
    const response = await client.responses.create({
      model: 'local/echo',
      input: 'Geef de klant',
      text: {
        format: {
          type: 'json_schema',
          name: 'customer',
          strict: true,
          schema: {
            type: 'object',
            properties: { name: { type: 'string' }, age: { type: 'integer' } },
            required: ['name', 'age'],
            additionalProperties: false,
          },
        },
      },
    });
    const parsed = JSON.parse(response.output_text);
    expect(parsed).to.have.all.keys('name', 'age');
    expect(Number.isInteger(parsed.age)).to.equal(true);
  });

  it('streams the events in order, and the final response equals the one answered as JSON', async () => {
    const input = 'Stream dit alstublieft naar mij';
    // Both miss the response cache, so that both are billed as answered by the model.
    const stream = client.responses.stream({ model: 'local/echo', input, cache: false } as { model: string; input: string });
    const events: OpenAI.Responses.ResponseStreamEvent[] = [];
    for await (const event of stream) events.push(event);
    const final = await stream.finalResponse();
    const types = events.map((e) => e.type);
    expect(types.slice(0, 4)).to.deep.equal(['response.created', 'response.in_progress', 'response.output_item.added', 'response.content_part.added']);
    expect(types.slice(-4)).to.deep.equal(['response.output_text.done', 'response.content_part.done', 'response.output_item.done', 'response.completed']);
    expect(types.filter((t) => t === 'response.output_text.delta').length).to.be.above(2);
    expect(events.map((e) => e.sequence_number)).to.deep.equal(events.map((_e, i) => i));
    const created = events[0] as OpenAI.Responses.ResponseCreatedEvent;
    expect(created.response.id).to.equal(final.id);
    const deltas = events.filter((e): e is OpenAI.Responses.ResponseTextDeltaEvent => e.type === 'response.output_text.delta');
    const itemId = (events[2] as OpenAI.Responses.ResponseOutputItemAddedEvent).item.id;
    for (const delta of deltas) expect(delta).to.include({ item_id: itemId, output_index: 0, content_index: 0 });
    expect(deltas.map((d) => d.delta).join('')).to.equal(`Echo: ${input}`);

    const json = await client.responses.create({ model: 'local/echo', input, cache: false } as OpenAI.Responses.ResponseCreateParamsNonStreaming);
    // The stream helper adds `output_parsed` and `parsed` of its own; ids and times differ by request.
    const asSent = (r: OpenAI.Responses.Response) => {
      const { output_parsed: _parsed, output, ...rest } = r as unknown as Record<string, unknown> & { output: { content?: { parsed?: unknown }[] }[] };
      return { ...rest, output: output.map((item) => ({ ...item, ...(item.content ? { content: item.content.map(({ parsed: _p, ...part }) => part) } : {}) })) };
    };
    const comparable = (r: OpenAI.Responses.Response) => {
      const { id: _id, created_at: _created, output, ...rest } = asSent(r) as Record<string, unknown> & { output: { id: string }[] };
      return { ...rest, output: output.map(({ id: _itemId, ...item }) => item) };
    };
    expect(comparable(final)).to.deep.equal(comparable(json));
    // And what the stream stored is what GET returns.
    expect(await client.responses.retrieve(final.id)).to.deep.equal(JSON.parse(JSON.stringify(asSent(final))));
  });

  it('streams a function call with its arguments', async () => {
    const stream = client.responses.stream({ model: 'local/echo', input: 'Zoek polis 7', tools: [lookupTool], tool_choice: 'required' });
    const types: string[] = [];
    for await (const event of stream) types.push(event.type);
    const final = await stream.finalResponse();
    expect(types).to.include.members(['response.function_call_arguments.delta', 'response.function_call_arguments.done']);
    const call = final.output[0] as OpenAI.Responses.ResponseFunctionToolCall;
    expect(call.type).to.equal('function_call');
    expect(JSON.parse(call.arguments)).to.have.property('policy_number');
  });

  it('continues a conversation over three turns with previous_response_id', async () => {
    const one = await client.responses.create({ model: 'local/echo', input: 'Eerste beurt' });
    const two = await client.responses.create({ model: 'local/echo', input: 'Tweede beurt', previous_response_id: one.id });
    const three = await client.responses.create({ model: 'local/echo', input: 'Derde beurt', previous_response_id: two.id });
    expect(three.previous_response_id).to.equal(two.id);
    expect(three.output_text).to.equal('Echo: Derde beurt');
    const trace = await api(app.baseUrl, `/v1/traces/${encodeURIComponent(await lastTraceId())}`, { key });
    const messages = trace.body.request.messages as { role: string; content: string }[];
    expect(messages.map((m) => `${m.role}: ${m.content}`)).to.deep.equal([
      'user: Eerste beurt',
      'assistant: Echo: Eerste beurt',
      'user: Tweede beurt',
      'assistant: Echo: Tweede beurt',
      'user: Derde beurt',
    ]);
    expect(trace.body.notes.join(' ')).to.contain(three.id);
  });

  it('retrieves and deletes a stored response; a deleted one is a 404, as is a chain through it', async () => {
    const created = await client.responses.create({ model: 'local/echo', input: 'Bewaar mij', metadata: { case: '17' } });
    const retrieved = await client.responses.retrieve(created.id);
    expect(retrieved).to.deep.equal(JSON.parse(JSON.stringify(created)));
    expect(retrieved.metadata).to.deep.equal({ case: '17' });
    await client.responses.delete(created.id);
    for (const attempt of [() => client.responses.retrieve(created.id), () => client.responses.create({ model: 'local/echo', input: 'x', previous_response_id: created.id })]) {
      try {
        await attempt();
        expect.fail('should have thrown');
      } catch (err) {
        expect(err).to.be.instanceOf(OpenAI.NotFoundError);
      }
    }
  });

  it('lists a stored response’s input items with inputItems.list, paged as OpenAI pages them', async () => {
    const first = await client.responses.create({ model: 'local/echo', input: 'Eerste vraag' });
    const created = await client.responses.create({
      model: 'local/echo',
      previous_response_id: first.id,
      input: [
        { role: 'user', content: 'Tweede vraag' },
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Met context' }] },
        // An output answers a call before it (an output alone is a 422, as OpenAI answers 400).
        { type: 'function_call', call_id: 'call_7', name: 'zoek', arguments: '{}' },
        { type: 'function_call_output', call_id: 'call_7', output: '{"ok":true}' },
      ],
    });
    const all = [];
    for await (const item of client.responses.inputItems.list(created.id, { limit: 2 })) all.push(item);
    // Newest first, this turn's items only, each with an id and a status; text content as parts.
    expect(all.map((item) => item.type)).to.deep.equal(['function_call_output', 'function_call', 'message', 'message']);
    expect(all[3]).to.deep.include({ role: 'user', status: 'completed', content: [{ type: 'input_text', text: 'Tweede vraag' }] });
    expect(new Set(all.map((item) => item.id)).size).to.equal(4);
    const ascending = await client.responses.inputItems.list(created.id, { order: 'asc' });
    expect(ascending.data.map((item) => item.id)).to.deep.equal(all.map((item) => item.id).reverse());
    expect(ascending.has_more).to.equal(false);
    const again = await client.responses.inputItems.list(created.id, { order: 'asc' });
    expect(again.data).to.deep.equal(ascending.data);
    const missing = await client.responses.inputItems.list('resp_nope').catch((e: unknown) => e);
    expect(missing).to.be.instanceOf(OpenAI.NotFoundError);
  });

  it('takes include (as the SDK sends it, include[]) and query parameters it does not know on input_items, and still checks its own', async () => {
    const created = await client.responses.create({ model: 'local/echo', input: 'Met include' });
    const listed = await client.responses.inputItems.list(created.id, { include: ['message.input_image.image_url'] });
    expect(listed.data.map((item) => item.type)).to.deep.equal(['message']);
    const path = `/v1/responses/${created.id}/input_items`;
    for (const query of [
      'include[]=message.input_image.image_url&include[]=file_search_call.results',
      'include=message.input_image.image_url&include=file_search_call.results',
      'beta=true',
      'beta=true&include=message.input_image.image_url&order=asc&limit=1',
    ]) {
      const got = await api(app.baseUrl, `${path}?${query}`, { key });
      expect(got.status, `?${query}: ${got.text}`).to.equal(200);
      expect(got.body.data).to.have.length(1);
    }
    for (const query of ['limit=0', 'order=sideways', `include[]=${'x'.repeat(256)}`]) {
      expect((await api(app.baseUrl, `${path}?${query}`, { key })).status, `?${query}`).to.equal(422);
    }
  });

  it('stores nothing with store: false', async () => {
    const response = await client.responses.create({ model: 'local/echo', input: 'Niet bewaren', store: false });
    expect((response as unknown as { store: boolean }).store).to.equal(false);
    const got = await api(app.baseUrl, `/v1/responses/${response.id}`, { key });
    expect(got.status).to.equal(404);
  });

  it("answers 404 for another workspace's response", async () => {
    const created = await client.responses.create({ model: 'local/echo', input: 'Van main' });
    const other = (await app.key({ workspace: 'other' })).key;
    expect((await api(app.baseUrl, `/v1/responses/${created.id}`, { key: other })).status).to.equal(404);
    expect((await api(app.baseUrl, `/v1/responses/${created.id}`, { key: other, method: 'DELETE' })).status).to.equal(404);
    const continued = await api(app.baseUrl, '/v1/responses', { key: other, method: 'POST', body: { model: 'local/echo', input: 'x', previous_response_id: created.id } });
    expect(continued.status).to.equal(404);
    expect((await api(app.baseUrl, `/v1/responses/${created.id}`, { key })).status).to.equal(200);
  });

  it('leaves out built-in tools merely offered, noting them on the trace; requiring one is a 422 naming it', async () => {
    const response = await client.responses.create({
      model: 'local/echo',
      input: 'Hallo',
      tools: [{ type: 'web_search' } as OpenAI.Responses.Tool, lookupTool],
      include: ['reasoning.encrypted_content'],
      prompt_cache_key: 'abc',
      parallel_tool_calls: false,
      reasoning: { effort: 'low', summary: 'auto' },
      text: { verbosity: 'low' },
    });
    expect(response.status).to.equal('completed');
    const trace = await api(app.baseUrl, `/v1/traces/${encodeURIComponent(await lastTraceId())}`, { key });
    expect(trace.body.notes.join(' ')).to.contain('web_search');
    expect((trace.body.request.tools as { function: { name: string } }[]).map((t) => t.function.name)).to.deep.equal(['lookup_policy']);

    try {
      await client.responses.create({ model: 'local/echo', input: 'Zoek', tools: [{ type: 'web_search' } as OpenAI.Responses.Tool], tool_choice: { type: 'web_search_preview' } });
      expect.fail('should have thrown');
    } catch (err) {
      expect(err).to.be.instanceOf(OpenAI.UnprocessableEntityError);
      expect((err as InstanceType<typeof OpenAI.APIError>).message).to.contain('web_search_preview');
    }
  });

  it('refuses background: true and a file_id image with a 422 on the field', async () => {
    const background = await api(app.baseUrl, '/v1/responses', { key, method: 'POST', body: { model: 'local/echo', input: 'x', background: true } });
    expect(background.status).to.equal(422);
    expect(background.body.errors).to.have.property('background');
    const image = await api(app.baseUrl, '/v1/responses', {
      key,
      method: 'POST',
      body: { model: 'local/echo', input: [{ role: 'user', content: [{ type: 'input_image', file_id: 'file_1' }] }] },
    });
    expect(image.status).to.equal(422);
    expect(image.body.errors).to.have.property('input.0.content.0');
    expect(image.body.error.type).to.equal('invalid_request_error');
  });

  it('refuses two function tools of one name, and tool_choice "required" without tools, as OpenAI does (QA)', async () => {
    const tool = { type: 'function', name: 'lookup', parameters: { type: 'object', properties: {} } };
    const twice = await api(app.baseUrl, '/v1/responses', { key, method: 'POST', body: { model: 'local/echo', input: 'x', tools: [tool, { type: 'web_search' }, tool] } });
    expect(twice.status).to.equal(422);
    expect(Object.keys(twice.body.errors)).to.deep.equal(['tools.2.name']);
    const required = await api(app.baseUrl, '/v1/responses', { key, method: 'POST', body: { model: 'local/echo', input: 'x', tool_choice: 'required' } });
    expect(required.status).to.equal(422);
    expect(required.body.errors.tool_choice).to.deep.equal(['"required" needs tools']);
  });

  it('names previous_response_id in the 404 of a response it does not find', async () => {
    const missing = await api(app.baseUrl, '/v1/responses', { key, method: 'POST', body: { model: 'local/echo', input: 'x', previous_response_id: 'resp_doesnotexist' } });
    expect(missing.status).to.equal(404);
    expect(missing.body.error).to.include({ param: 'previous_response_id', code: 'previous_response_not_found' });
  });

  it('refuses what would serve server state it does not keep: a conversation id, and streaming a stored response again', async () => {
    const conversation = await api(app.baseUrl, '/v1/responses', { key, method: 'POST', body: { model: 'local/echo', input: 'x', conversation: 'conv_abc' } });
    expect(conversation.status).to.equal(422);
    expect(conversation.body.errors.conversation[0]).to.match(/previous_response_id/);
    const created = await client.responses.create({ model: 'local/echo', input: 'Bewaar mij' });
    const streamed = await client.responses.retrieve(created.id, { stream: true }).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(streamed).to.be.instanceOf(OpenAI.UnprocessableEntityError);
    // Read as JSON, with what an SDK adds to the query, it is answered.
    expect((await api(app.baseUrl, `/v1/responses/${created.id}?stream=false&include[]=reasoning.encrypted_content`, { key })).status).to.equal(200);
  });

  it('names the field the caller sent when what it becomes breaks a chat rule: input.N.content.M, input.N.output.M, input.N.arguments', async () => {
    // 10 MiB and a little more, once decoded.
    const big = `data:image/png;base64,${'A'.repeat(Math.ceil((10 * 1024 * 1024 + 10) / 3) * 4)}`;
    const refused = async (input: unknown[]) => {
      const got = await api(app.baseUrl, '/v1/responses', { key, method: 'POST', body: { model: 'local/echo', instructions: 'Kort graag.', input } });
      expect(got.status, got.text.slice(0, 300)).to.equal(422);
      return got.body;
    };
    const image = await refused([{ role: 'user', content: [{ type: 'input_text', text: 'Kijk' }, { type: 'input_image', image_url: big }] }]);
    expect(Object.keys(image.errors)).to.deep.equal(['input.0.content.1']);
    expect(image.error.param).to.equal('input.0.content.1');
    expect(image.message).to.contain('input.0.content.1').and.not.contain('messages.');

    const output = await refused([
      { role: 'user', content: 'Bekijk het schermafdruk' },
      { type: 'function_call', call_id: 'c1', name: 'view_image', arguments: '{}' },
      { type: 'function_call_output', call_id: 'c1', output: [{ type: 'input_text', text: 'de afbeelding:' }, { type: 'input_image', image_url: big }] },
    ]);
    expect(Object.keys(output.errors)).to.deep.equal(['input.2.output.1']);

    const deep = `${'['.repeat(70)}${']'.repeat(70)}`;
    const call = await refused([
      { role: 'user', content: 'Zoek' },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Ik zoek.' }] },
      { type: 'function_call', call_id: 'c1', name: 'zoek', arguments: '{}' },
      { type: 'function_call', call_id: 'c2', name: 'zoek', arguments: deep },
      { type: 'function_call_output', call_id: 'c1', output: 'niets' },
      { type: 'function_call_output', call_id: 'c2', output: 'niets' },
    ]);
    expect(Object.keys(call.errors)).to.deep.equal(['input.3.arguments']);
  });

  it('accepts an 80 KB body with 25 tools, as coding agents send', async () => {
    const tools: OpenAI.Responses.FunctionTool[] = Array.from({ length: 25 }, (_, i) => ({
      type: 'function',
      name: `tool_${i}`,
      description: `Tool ${i}: ${'beschrijving '.repeat(240)}`,
      parameters: { type: 'object', properties: { path: { type: 'string', description: 'waar' } }, required: ['path'], additionalProperties: false },
      strict: true,
    }));
    const body = { model: 'local/echo', input: 'Welk gereedschap?', tools };
    expect(JSON.stringify(body).length).to.be.above(80_000);
    const response = await client.responses.create(body);
    expect(response.output_text).to.equal('Echo: Welk gereedschap?');
    expect(response.tools).to.have.length(25);
  });

  it('surfaces our errors as the SDK error classes', async () => {
    try {
      await client.responses.create({ model: 'nope/never', input: 'x' });
      expect.fail('should have thrown');
    } catch (err) {
      expect(err).to.be.instanceOf(OpenAI.UnprocessableEntityError);
      expect((err as InstanceType<typeof OpenAI.APIError>).message).to.contain('nope/never');
    }
  });

  async function lastTraceId(): Promise<string> {
    const { rows } = await app.db.pool.query<{ id: string }>('select id from traces order by created_at desc limit 1');
    return rows[0]!.id;
  }
});
