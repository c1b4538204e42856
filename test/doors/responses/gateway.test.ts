import { expect } from 'chai';
import OpenAI from 'openai';
import { addJob } from '../../../src/jobs/registry.js';
import { api } from '../../helpers/app.js';
import { waitFor } from '../../helpers/db.js';
import { useGatewayFixture } from '../../helpers/gateway.js';

// The Responses door in front of stub providers on loopback: the firewall over a rebuilt chain,
// erasure and retention of stored responses, clean fallback, a cut stream, and idempotent retries.

interface NamedEvent {
  event: string;
  data: Record<string, any>;
}

/** Reads a Responses stream: `event:` and `data:` lines, in order. */
async function readEvents(response: Response): Promise<NamedEvent[]> {
  const text = await response.text();
  return text
    .split('\n\n')
    .filter((block) => block.trim() !== '')
    .map((block) => {
      const lines = block.split('\n');
      const event = lines.find((l) => l.startsWith('event: '))!.slice('event: '.length);
      const data = JSON.parse(lines.find((l) => l.startsWith('data: '))!.slice('data: '.length)) as Record<string, any>;
      return { event, data };
    });
}

/**
 * What a stream's events say of each item agrees with the final response: one item added and done
 * per output item, in turn (never interleaved), each event's `item_id` the id of the final item at
 * its `output_index`, every done item equal to it, and sequence numbers from 0 without gaps.
 */
function expectEventsAgreeWithFinal(events: NamedEvent[]): Record<string, any> {
  expect(events.map((e) => e.data.sequence_number)).to.deep.equal(events.map((_e, i) => i));
  const completed = events.at(-1)!;
  // As OpenAI ends them: an answer cut short by `response.incomplete`, any other by `response.completed`.
  expect(completed.event).to.equal(completed.data.response.status === 'incomplete' ? 'response.incomplete' : 'response.completed');
  const output = completed.data.response.output as Record<string, any>[];
  let open: number | undefined;
  for (const { event, data } of events) {
    if (data.output_index === undefined) continue;
    const item = output[data.output_index];
    expect(item, `${event} #${data.sequence_number} at output_index ${data.output_index}`).not.to.equal(undefined);
    if (event === 'response.output_item.added') {
      expect(open, `${event} #${data.sequence_number} while item ${open} is open`).to.equal(undefined);
      open = data.output_index;
    } else {
      expect(data.output_index, `${event} #${data.sequence_number}`).to.equal(open);
    }
    expect(data.item_id ?? data.item?.id, `${event} #${data.sequence_number}`).to.equal(item!.id);
    if (event === 'response.output_item.done') {
      expect(data.item).to.deep.equal(item);
      open = undefined;
    }
  }
  expect(events.filter((e) => e.event === 'response.output_item.added')).to.have.length(output.length);
  return completed.data.response;
}

const chunkOf =
  (id: string) =>
  (delta: Record<string, unknown>, finish: string | null = null): string =>
    `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;

describe('the Responses door over the gateway', () => {
  const gw = useGatewayFixture({ worker: true });
  const post = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    fetch(`${gw.app.baseUrl}/v1/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gw.key}`, 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });

  it('never sends personal data of an earlier turn in clear on the third turn, and restores it in the answer', async () => {
    const client = new OpenAI({ baseURL: `${gw.app.baseUrl}/v1`, apiKey: gw.key, maxRetries: 0 });
    const email = 'sanne.de.vries@example.nl';
    const iban = 'NL91ABNA0417164300';
    const one = await client.responses.create({ model: 'test/chat-a', input: `Mijn e-mail is ${email} en mijn IBAN is ${iban}.` });
    const two = await client.responses.create({ model: 'test/chat-a', input: 'Welke polis heb ik?', previous_response_id: one.id });
    gw.euA.reset();
    const three = await client.responses.create({ model: 'test/chat-a', input: `Stuur het naar ${email}`, previous_response_id: two.id });
    const sent = JSON.stringify(gw.euA.requests[0]!.body);
    expect(sent).not.to.contain(email);
    expect(sent).not.to.contain(iban);
    const messages = gw.euA.requests[0]!.body.messages as { role: string; content: string }[];
    expect(messages).to.have.length(5);
    // One vault for the whole rebuilt conversation: the address has one placeholder in turns 1 and 3.
    expect(messages[0]!.content).to.equal('Mijn e-mail is [EMAIL_1] en mijn IBAN is [IBAN_1].');
    expect(messages[1]!.content).to.equal('echo: Mijn e-mail is [EMAIL_1] en mijn IBAN is [IBAN_1].');
    expect(messages[4]!.content).to.equal('Stuur het naar [EMAIL_1]');
    // The stub echoes the last user message: the caller reads the address back in clear.
    expect(three.output_text).to.contain(email);
    // Stored as the caller sent it: the caller needs it back.
    expect(JSON.stringify((await client.responses.retrieve(three.id)).output)).to.contain(email);
  });

  it('refuses more text than the firewall scans with a 413, before judging the context, as the chat API does', async () => {
    const limit = gw.app.config.firewallMaxChars;
    const response = await post({ model: 'test/chat-a', input: 'a '.repeat(Math.ceil(limit / 2) + 1) });
    expect(response.status).to.equal(413);
    const body = (await response.json()) as any;
    expect(body.error).to.include({ type: 'invalid_request_error', code: 'payload_too_large' });
    expect(body.message).to.contain('FIREWALL_MAX_CHARS');
    expect(gw.euA.requests).to.have.length(0);
  });

  it("an erasure of the user deletes that user's stored responses, and counts them", async () => {
    const client = new OpenAI({ baseURL: `${gw.app.baseUrl}/v1`, apiKey: gw.key, maxRetries: 0 });
    const one = await client.responses.create({ model: 'test/chat-a', input: 'Eerste', user: 'klant-77' });
    const two = await client.responses.create({ model: 'test/chat-a', input: 'Tweede', user: 'klant-77', previous_response_id: one.id });
    const other = await client.responses.create({ model: 'test/chat-a', input: 'Van een ander', user: 'klant-78' });
    const erased = await api(gw.app.baseUrl, '/v1/memory?user_ref=klant-77', { key: gw.key, method: 'DELETE' });
    expect(erased.status).to.equal(200);
    expect(erased.body.deleted.responses).to.equal(2);
    for (const id of [one.id, two.id]) expect((await api(gw.app.baseUrl, `/v1/responses/${id}`, { key: gw.key })).status).to.equal(404);
    expect((await api(gw.app.baseUrl, `/v1/responses/${other.id}`, { key: gw.key })).status).to.equal(200);
  });

  it('a continuation that names no user is the conversation’s end-user’s, and goes with their erasure; naming another is a 422', async () => {
    const client = new OpenAI({ baseURL: `${gw.app.baseUrl}/v1`, apiKey: gw.key, maxRetries: 0 });
    const one = await client.responses.create({ model: 'test/chat-a', input: 'Ik woon in Hoorn', user: 'klant-88' });
    // The continuation carries the first turn; it names nobody.
    const two = await client.responses.create({ model: 'test/chat-a', input: 'En verder?', previous_response_id: one.id });
    const other = await api(gw.app.baseUrl, '/v1/responses', {
      method: 'POST',
      key: gw.key,
      body: { model: 'test/chat-a', input: 'Nog iets', previous_response_id: one.id, user: 'klant-89' },
    });
    expect(other.status).to.equal(422);
    expect(other.body.errors.user[0]).to.match(/differs from the end-user of the conversation/);
    const erased = await api(gw.app.baseUrl, '/v1/memory?user_ref=klant-88', { key: gw.key, method: 'DELETE' });
    expect(erased.body.deleted).to.include({ responses: 2, traces: 2 });
    for (const id of [one.id, two.id]) expect((await api(gw.app.baseUrl, `/v1/responses/${id}`, { key: gw.key })).status).to.equal(404);
    const left = await gw.app.db.pool.query("select count(*)::int as n from traces where input::text like '%Hoorn%'");
    expect(left.rows[0].n).to.equal(0);
  });

  it('falls back invisibly when the first provider fails before its first output', async () => {
    gw.euA.script({ type: 'cutMidStream', afterChunks: 0 });
    const response = await post({ model: 'test/chat-a', input: 'Hallo daar', stream: true });
    expect(response.status).to.equal(200);
    expect(response.headers.get('x-provider')).to.equal('eu-b');
    const events = await readEvents(response);
    expect(events.filter((e) => e.event === 'response.created')).to.have.length(1);
    expect(events.map((e) => e.event)).not.to.include('error');
    const completed = events.at(-1)!;
    expect(completed.event).to.equal('response.completed');
    expect(completed.data.response.status).to.equal('completed');
    expect(completed.data.response.output_text).to.equal('echo: Hallo daar');
    expect(events.map((e) => e.data.sequence_number)).to.deep.equal(events.map((_e, i) => i));
    expect(events.every((e) => e.data.type === e.event)).to.equal(true);
  });

  it('keeps the streamed order when a provider sends its function call before its text, in the events and the final response', async () => {
    const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
      `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    gw.euA.script({
      type: 'raw',
      headers: { 'content-type': 'text/event-stream' },
      body: [
        chunk({ role: 'assistant', tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '{"n":"42"}' } }] }),
        chunk({ content: 'Ik zoek het op.' }),
        chunk({}, 'tool_calls'),
        'data: [DONE]\n\n',
      ],
    });
    const tools = [{ type: 'function', name: 'lookup', parameters: { type: 'object', properties: { n: { type: 'string' } } } }];
    const events = await readEvents(await post({ model: 'test/chat-a', input: 'Zoek polis 42', tools, stream: true, cache: false }));
    const added = events.filter((e) => e.event === 'response.output_item.added').map((e) => [e.data.output_index, e.data.item.type]);
    expect(added).to.deep.equal([
      [0, 'function_call'],
      [1, 'message'],
    ]);
    const done = events.filter((e) => e.event === 'response.output_item.done').map((e) => e.data.item);
    const completed = events.at(-1)!;
    expect(completed.event).to.equal('response.completed');
    expect(completed.data.response.output).to.deep.equal(done);
    expect(done.map((item: { type: string }) => item.type)).to.deep.equal(['function_call', 'message']);
    expect(events.find((e) => e.event === 'response.output_text.done')!.data.text).to.equal('Ik zoek het op.');
    // Stored as it streamed.
    expect((await api(gw.app.baseUrl, `/v1/responses/${completed.data.response.id}`, { key: gw.key })).body.output).to.deep.equal(done);
  });

  it('gives a call a provider made without arguments "{}", as OpenAI does, streamed and as JSON (Codex parses them) (QA)', async () => {
    const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
      `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    const tools = [{ type: 'function', name: 'now', parameters: { type: 'object', properties: {} } }];
    gw.euA.script({
      type: 'raw',
      headers: { 'content-type': 'text/event-stream' },
      body: [chunk({ role: 'assistant', tool_calls: [{ index: 0, id: 'call_e', type: 'function', function: { name: 'now', arguments: '' } }] }), chunk({}, 'tool_calls'), 'data: [DONE]\n\n'],
    });
    const events = await readEvents(await post({ model: 'test/chat-a', input: 'Hoe laat is het?', tools, stream: true, cache: false }));
    const done = events.find((e) => e.event === 'response.function_call_arguments.done')!;
    expect(done.data.arguments).to.equal('{}');
    expect(events.at(-1)!.data.response.output[0]).to.include({ type: 'function_call', arguments: '{}' });
    gw.euA.script({ type: 'answer', toolCalls: [{ id: 'call_f', name: 'now', arguments: '' }] });
    const answered = (await (await post({ model: 'test/chat-a', input: 'En nu?', tools, cache: false })).json()) as any;
    expect(answered.output[0]).to.include({ type: 'function_call', arguments: '{}' });
  });

  it('lists text, a function call and more text as three items, in the events, the final response and GET alike', async () => {
    const chunk = chunkOf('c-text-call-text');
    gw.euA.script({
      type: 'raw',
      headers: { 'content-type': 'text/event-stream' },
      body: [
        chunk({ role: 'assistant', content: 'Ik kijk ' }),
        chunk({ content: 'het na.' }),
        chunk({ tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '{"n":' } }] }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: '"42"}' } }] }),
        chunk({ content: 'After the call.' }),
        chunk({}, 'tool_calls'),
        'data: [DONE]\n\n',
      ],
    });
    const tools = [{ type: 'function', name: 'lookup', parameters: { type: 'object', properties: { n: { type: 'string' } } } }];
    const events = await readEvents(await post({ model: 'test/chat-a', input: 'Zoek polis 42 en vertel', tools, stream: true, cache: false }));
    const added = events.filter((e) => e.event === 'response.output_item.added').map((e) => [e.data.output_index, e.data.item.type]);
    expect(added).to.deep.equal([
      [0, 'message'],
      [1, 'function_call'],
      [2, 'message'],
    ]);
    const final = expectEventsAgreeWithFinal(events);
    expect(final.output.map((item: any) => item.content?.[0].text ?? item.arguments)).to.deep.equal(['Ik kijk het na.', '{"n":"42"}', 'After the call.']);
    expect(final.output_text).to.equal('Ik kijk het na.After the call.');
    expect((await api(gw.app.baseUrl, `/v1/responses/${final.id}`, { key: gw.key })).body).to.deep.equal(final);

    // The call's output continues the turn, by previous_response_id and by replaying the items as
    // they came: the call and the text on both sides of it are one assistant message upstream.
    const output = { type: 'function_call_output', call_id: 'call_1', output: 'polis 42: inboedel' };
    gw.euA.reset();
    const continued = await post({ model: 'test/chat-a', tools, previous_response_id: final.id, input: [output], cache: false });
    expect(continued.status, await continued.clone().text()).to.equal(200);
    const replayed = await post({ model: 'test/chat-a', tools, input: [{ role: 'user', content: 'Zoek polis 42 en vertel' }, ...final.output, output], cache: false });
    expect(replayed.status, await replayed.clone().text()).to.equal(200);
    for (const request of gw.euA.requests) {
      const assistant = request.body.messages.filter((m: any) => m.role === 'assistant');
      expect(assistant).to.have.length(1);
      expect(assistant[0].content).to.equal('Ik kijk het na.\n\nAfter the call.');
      expect(assistant[0].tool_calls.map((c: any) => c.id)).to.deep.equal(['call_1']);
    }
  });

  it('replays a retry, and answers a cache hit, with the items, order and ids the stream first gave, as a stream and as JSON', async () => {
    const chunk = chunkOf('c-calls-first');
    const call = (index: number, id: string, args: string) => ({ tool_calls: [{ index, id, type: 'function', function: { name: 'lookup', arguments: args } }] });
    gw.euA.script({
      type: 'raw',
      headers: { 'content-type': 'text/event-stream' },
      body: [
        chunk({ role: 'assistant', ...call(0, 'call_a', '{"n":"1"}') }),
        chunk(call(1, 'call_b', '{"n":"2"}')),
        chunk({ content: 'After the call.' }),
        chunk({}, 'tool_calls'),
        'data: [DONE]\n\n',
      ],
    });
    const tools = [{ type: 'function', name: 'lookup', parameters: { type: 'object', properties: { n: { type: 'string' } } } }];
    const body = { model: 'test/chat-a', input: 'Zoek polis 1 en 2, dan uitleg', tools, stream: true };
    // Items as the caller compares them across responses: ids without the response's own part.
    const items = (response: Record<string, any>) => response.output.map((item: any) => ({ ...item, id: `${item.id.slice(0, 3)}${item.id.slice(-4)}` }));
    const first = expectEventsAgreeWithFinal(await readEvents(await post(body, { 'x-request-id': 'resp-order-1' })));
    expect(items(first).map((item: any) => [item.type, item.id])).to.deep.equal([
      ['function_call', 'fc_0000'],
      ['function_call', 'fc_0001'],
      ['message', 'msg0002'],
    ]);
    expect((await api(gw.app.baseUrl, `/v1/responses/${first.id}`, { key: gw.key })).body).to.deep.equal(first);

    const replayed = await post(body, { 'x-request-id': 'resp-order-1' });
    expect(replayed.headers.get('x-replay')).to.equal('true');
    expect(expectEventsAgreeWithFinal(await readEvents(replayed))).to.deep.equal(first);
    expect(await (await post({ ...body, stream: false }, { 'x-request-id': 'resp-order-1' })).json()).to.deep.equal(first);

    const hit = await post(body, { 'x-request-id': 'resp-order-2' });
    expect(hit.headers.get('x-cache')).to.equal('HIT');
    const fromCache = expectEventsAgreeWithFinal(await readEvents(hit));
    expect(items(fromCache)).to.deep.equal(items(first));
    expect((await api(gw.app.baseUrl, `/v1/responses/${fromCache.id}`, { key: gw.key })).body).to.deep.equal(fromCache);
    const hitAsJson = await post({ ...body, stream: false }, { 'x-request-id': 'resp-order-3' });
    expect(hitAsJson.headers.get('x-cache')).to.equal('HIT');
    const json = (await hitAsJson.json()) as Record<string, any>;
    expect(items(json)).to.deep.equal(items(first));
    expect((await api(gw.app.baseUrl, `/v1/responses/${json.id}`, { key: gw.key })).body).to.deep.equal(json);
    expect(gw.euA.requests).to.have.length(1);
  });

  it('splits restored text where it streamed: what the firewall held back before a call goes out before it, and a replay splits it there too', async () => {
    const chunk = chunkOf('c-held-back');
    gw.euA.script({
      type: 'raw',
      headers: { 'content-type': 'text/event-stream' },
      body: [
        // "[" may begin a placeholder: the restorer holds it back until it knows.
        chunk({ role: 'assistant', content: 'Ik mail [EMAIL_1] (zie [' }),
        chunk({ tool_calls: [{ index: 0, id: 'call_m', type: 'function', function: { name: 'lookup', arguments: '{"n":"1"}' } }] }),
        chunk({ content: 'After the call.' }),
        chunk({}, 'tool_calls'),
        'data: [DONE]\n\n',
      ],
    });
    const tools = [{ type: 'function', name: 'lookup', parameters: { type: 'object', properties: { n: { type: 'string' } } } }];
    const body = { model: 'test/chat-a', input: 'Mijn mail is sanne.de.vries@example.nl', tools, stream: true, cache: false };
    const first = expectEventsAgreeWithFinal(await readEvents(await post(body, { 'x-request-id': 'resp-held-1' })));
    expect(first.output.map((item: any) => item.content?.[0].text ?? item.arguments)).to.deep.equal([
      'Ik mail sanne.de.vries@example.nl (zie [',
      '{"n":"1"}',
      'After the call.',
    ]);
    expect((await api(gw.app.baseUrl, `/v1/responses/${first.id}`, { key: gw.key })).body).to.deep.equal(first);
    expect(expectEventsAgreeWithFinal(await readEvents(await post(body, { 'x-request-id': 'resp-held-1' })))).to.deep.equal(first);
  });

  it('restores a JSON answer (text.format json_schema) escaped for JSON, so it stays valid JSON, streamed and not', async () => {
    const address = 'Vondelstraat 3\n1054 GA Amsterdam';
    const text = { format: { type: 'json_schema', name: 'address', schema: { type: 'object', properties: { address: { type: 'string' } } } } };
    const body = { model: 'test/chat-a', input: `Zet mijn adres in JSON:\n${address}`, text, cache: false };
    gw.euA.script({ type: 'answer', content: '{"address":"[ADDRESS_1]"}' });
    const whole = (await (await post(body)).json()) as Record<string, any>;
    expect(JSON.parse(whole.output_text)).to.deep.equal({ address });
    gw.euA.script({ type: 'answer', chunks: ['{"address":"[ADDR', 'ESS_1]"}'] });
    const streamed = expectEventsAgreeWithFinal(await readEvents(await post({ ...body, stream: true })));
    expect(JSON.parse(streamed.output_text)).to.deep.equal({ address });
  });

  it('ends a stream cut by max_output_tokens with response.incomplete, as OpenAI does, and replays it so', async () => {
    const body = { model: 'test/chat-a', input: 'Vertel een lang verhaal', max_output_tokens: 16, stream: true, cache: false };
    for (const attempt of ['first', 'replay']) {
      if (attempt === 'first') gw.euA.script({ type: 'answer', chunks: ['Er was ', 'eens'], finishReason: 'length' });
      const response = await post(body, { 'idempotency-key': 'resp-incomplete-1' });
      const events = await readEvents(response);
      expect(events.at(-1)!.event, attempt).to.equal('response.incomplete');
      expect(events.map((e) => e.event), attempt).not.to.include('response.completed');
      const final = expectEventsAgreeWithFinal(events);
      expect(final).to.include({ status: 'incomplete' });
      expect(final.incomplete_details).to.deep.equal({ reason: 'max_output_tokens' });
      expect(final.output_text ?? final.output[0].content[0].text).to.equal('Er was eens');
    }
    expect(gw.euA.requests).to.have.length(1);
  });

  it('streams a refusal as a message item with a refusal part, and replays it so', async () => {
    const chunk = chunkOf('c-refusal');
    gw.euA.script({
      type: 'raw',
      headers: { 'content-type': 'text/event-stream' },
      body: [chunk({ role: 'assistant', content: '' }), chunk({ refusal: 'I cannot ' }), chunk({ refusal: 'help with that.' }), chunk({}, 'stop'), 'data: [DONE]\n\n'],
    });
    const body = { model: 'test/chat-a', input: 'Doe iets verbodens', stream: true, cache: false };
    const events = await readEvents(await post(body, { 'idempotency-key': 'resp-refusal-1' }));
    expect(events.map((e) => e.event)).to.deep.equal([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.refusal.delta',
      'response.refusal.delta',
      'response.refusal.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    const final = expectEventsAgreeWithFinal(events);
    const refusal = { type: 'refusal', refusal: 'I cannot help with that.' };
    expect(events[3]!.data).to.include({ output_index: 0, content_index: 0 });
    expect(events[3]!.data.part).to.deep.equal({ type: 'refusal', refusal: '' });
    expect(events[6]!.data).to.include({ content_index: 0, refusal: 'I cannot help with that.' });
    expect(events[7]!.data.part).to.deep.equal(refusal);
    expect(final.output).to.have.length(1);
    expect(final.output[0]).to.include({ type: 'message', status: 'completed' });
    expect(final.output[0].content).to.deep.equal([refusal]);
    expect(final.output_text).to.equal('');
    expect((await api(gw.app.baseUrl, `/v1/responses/${final.id}`, { key: gw.key })).body).to.deep.equal(final);
    // A retry replays it, as a stream and as JSON, with the same refusal.
    const replayed = await readEvents(await post(body, { 'idempotency-key': 'resp-refusal-1' }));
    // (A kept answer is replayed in one delta.)
    expect(replayed.map((e) => e.event)).to.deep.equal(events.map((e) => e.event).filter((_e, i) => i !== 5));
    expect(expectEventsAgreeWithFinal(replayed)).to.deep.equal(final);
    const json = (await (await post({ ...body, stream: false }, { 'idempotency-key': 'resp-refusal-1' })).json()) as Record<string, any>;
    expect(json).to.deep.equal(final);
    expect(gw.euA.requests).to.have.length(1);
  });

  it('sends function calls a provider interleaves one item after another, each done with its whole arguments', async () => {
    const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
      `data: ${JSON.stringify({ id: 'c2', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    const call = (index: number, args: string, id?: string) => ({
      tool_calls: [{ index, ...(id ? { id, type: 'function' } : {}), function: { ...(id ? { name: 'lookup' } : {}), arguments: args } }],
    });
    gw.euA.script({
      type: 'raw',
      headers: { 'content-type': 'text/event-stream' },
      body: [
        chunk({ role: 'assistant', content: '' }),
        chunk(call(0, '{"n":', 'call_a')),
        chunk(call(1, '{"n":"7', 'call_b')),
        chunk(call(0, '"42"}')),
        chunk(call(1, '"}')),
        chunk({}, 'tool_calls'),
        'data: [DONE]\n\n',
      ],
    });
    const tools = [{ type: 'function', name: 'lookup', parameters: { type: 'object', properties: { n: { type: 'string' } } } }];
    const events = await readEvents(await post({ model: 'test/chat-a', input: 'Zoek polis 42 en 7', tools, stream: true, cache: false }));
    const perItem = events.filter((e) => e.data.output_index !== undefined).map((e) => `${e.data.output_index}:${e.event}`);
    expect(perItem).to.deep.equal([
      '0:response.output_item.added',
      '0:response.function_call_arguments.delta',
      '0:response.function_call_arguments.delta',
      '0:response.function_call_arguments.done',
      '0:response.output_item.done',
      '1:response.output_item.added',
      '1:response.function_call_arguments.delta',
      '1:response.function_call_arguments.done',
      '1:response.output_item.done',
    ]);
    const done = events.filter((e) => e.event === 'response.output_item.done').map((e) => [e.data.item.call_id, e.data.item.arguments]);
    expect(done).to.deep.equal([
      ['call_a', '{"n":"42"}'],
      ['call_b', '{"n":"7"}'],
    ]);
    const completed = events.at(-1)!;
    expect(completed.data.response.output.map((item: any) => [item.call_id, item.arguments])).to.deep.equal(done);
    expect(events.map((e) => e.data.sequence_number)).to.deep.equal(events.map((_e, i) => i));
  });

  it("takes back Codex's reasoning items with content: null, and sends a function output's image after the tool results", async () => {
    const image = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
    const response = await post({
      model: 'test/chat-a',
      cache: false,
      input: [
        { role: 'user', content: 'Bekijk het schermafdruk' },
        { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'Eerst kijken.' }], content: null, encrypted_content: null },
        { type: 'function_call', call_id: 'c1', name: 'view_image', arguments: '{"path":"a.png"}' },
        { type: 'function_call', call_id: 'c2', name: 'shell', arguments: '{"cmd":"ls"}' },
        { type: 'function_call_output', call_id: 'c1', output: [{ type: 'input_text', text: 'de afbeelding:' }, { type: 'input_image', image_url: image }] },
        { type: 'function_call_output', call_id: 'c2', output: 'a.png' },
      ],
    });
    expect(response.status, await response.clone().text()).to.equal(200);
    const sent = gw.euA.requests.at(-1)!.body.messages;
    expect(sent.map((m: any) => m.role)).to.deep.equal(['user', 'assistant', 'tool', 'tool', 'user']);
    expect(sent[2]).to.include({ role: 'tool', tool_call_id: 'c1', content: 'de afbeelding:' });
    expect(sent[4].content).to.deep.equal([{ type: 'image_url', image_url: { url: image } }]);
  });

  it("lowers a max_output_tokens beyond the model's context to what the prompt leaves, and refuses a prompt that leaves nothing", async () => {
    const lowered = await post({ model: 'test/chat-a', cache: false, input: 'Kort graag', max_output_tokens: 100_000_000 });
    expect(lowered.status, await lowered.clone().text()).to.equal(200);
    const cap = gw.euA.requests.at(-1)!.body.max_completion_tokens ?? gw.euA.requests.at(-1)!.body.max_tokens;
    expect(cap).to.be.within(31_000, 32_000 - 1);
    const trace = await api(gw.app.baseUrl, `/v1/traces/${lowered.headers.get('x-request-id')}`, { key: gw.key });
    expect(trace.body.notes.join(' ')).to.contain('max_output_tokens 100000000 was lowered');

    const sentBefore = gw.euA.requests.length;
    // With a cap, and without one (Codex sends none: QA found it sent and billed).
    for (const cap of [{ max_output_tokens: 1000 }, {}, { stream: true }]) {
      const tooLong = await post({ model: 'test/chat-a', cache: false, input: 'woord '.repeat(40_000), ...cap });
      // As OpenAI answers it: Codex retried a 422 five times, and tells its user the context ran out on this 400 (QA).
      expect(tooLong.status, JSON.stringify(cap)).to.equal(400);
      const body = (await tooLong.json()) as { errors: Record<string, string[]>; error: { code: string; param: string } };
      expect(body.error).to.include({ code: 'context_length_exceeded', param: 'input' });
      expect(body.errors.input![0]).to.contain('test/chat-a');
    }
    expect(gw.euA.requests.length, 'nothing sent upstream').to.equal(sentBefore);
  });

  it('hands a stored response back as it was sent and answered, key order included', async () => {
    const parameters = { type: 'object', properties: { alpha: { type: 'string' }, b: { type: 'integer' } }, required: ['alpha', 'b'] };
    const tools = [{ type: 'function', name: 'zoek', description: 'Zoek een polis', parameters }];
    const answered = (await (await post({ model: 'test/chat-a', input: 'Zoek polis 9', tools, cache: false })).json()) as any;
    const stored = await api(gw.app.baseUrl, `/v1/responses/${answered.id}`, { key: gw.key });
    expect(stored.status).to.equal(200);
    expect(JSON.stringify(stored.body.tools[0].parameters)).to.equal(JSON.stringify(parameters));
    expect(JSON.stringify(stored.body)).to.equal(JSON.stringify(answered));
  });

  it('ends a stream cut after its first output with response.failed and an error event; nothing is stored or billed', async () => {
    gw.euA.script({ type: 'cutMidStream', afterChunks: 2 });
    const response = await post({ model: 'test/chat-a', input: 'Vertel een lang verhaal', stream: true }, { 'x-request-id': 'resp-cut-1' });
    expect(response.status).to.equal(200);
    const events = await readEvents(response);
    const names = events.map((e) => e.event);
    expect(names[0]).to.equal('response.created');
    expect(names).not.to.include('response.completed');
    expect(names.slice(-2)).to.deep.equal(['response.failed', 'error']);
    const failed = events.at(-2)!.data.response;
    expect(failed.status).to.equal('failed');
    expect(failed.error.code).to.equal('upstream_stream_error');
    expect(failed.id).to.equal(events[0]!.data.response.id);
    expect(events.at(-1)!.data.message).to.be.a('string');
    expect((await api(gw.app.baseUrl, `/v1/responses/${failed.id}`, { key: gw.key })).status).to.equal(404);
    const trace = await waitFor(async () => (await gw.app.db.pool.query("select status from traces where id = 'resp-cut-1'")).rows[0], {
      what: 'the trace of the broken stream',
    });
    expect(trace.status).to.equal(502);
    expect((await gw.app.db.pool.query("select 1 from usage where request_id = 'resp-cut-1'")).rowCount).to.equal(0);
  });

  it('replays an idempotent retry with the same resp_ id, unbilled, as JSON and as a stream', async () => {
    const body = { model: 'test/chat-a', input: 'Eenmaal graag' };
    const first = await post(body, { 'idempotency-key': 'resp-retry-1' });
    const firstBody = (await first.json()) as Record<string, any>;
    const again = await post(body, { 'idempotency-key': 'resp-retry-1' });
    expect(again.headers.get('x-replay')).to.equal('true');
    const againBody = (await again.json()) as Record<string, any>;
    expect(againBody.id).to.equal(firstBody.id);
    expect(againBody).to.deep.equal(firstBody);
    const streamed = await readEvents(await post({ ...body, stream: true }, { 'idempotency-key': 'resp-retry-1' }));
    expect(streamed[0]!.data.response.id).to.equal(firstBody.id);
    expect(streamed.at(-1)!.data.response.output_text).to.equal(firstBody.output_text);
    expect(gw.euA.requests).to.have.length(1);
    expect((await gw.app.db.pool.query("select 1 from usage where request_id = 'resp-retry-1'")).rowCount).to.equal(1);
    // The trace of the request names the response id.
    const trace = await api(gw.app.baseUrl, '/v1/traces/resp-retry-1', { key: gw.key });
    expect(trace.body.notes.join(' ')).to.contain(firstBody.id);
    // Asking not to store what the first stored is another request (QA: it replayed the stored one).
    const unstored = await post({ ...body, store: false }, { 'idempotency-key': 'resp-retry-1' });
    expect(unstored.status).to.equal(422);
    expect(((await unstored.json()) as Record<string, any>).error.message).to.match(/belongs to another request/);
  });

  it('advises max_output_tokens, the door’s own cap, when a limit or budget refuses', async () => {
    const { key } = await gw.app.key({ org: 'responses-limits', workspace: 'w' });
    const limit = (body: unknown) => api(gw.app.baseUrl, '/v1/settings/limits', { method: 'PUT', key, body });
    const ask = () => api(gw.app.baseUrl, '/v1/responses', { method: 'POST', key, body: { model: 'test/chat-a', input: 'Hoeveel kost het?' } });
    expect((await limit({ workspace: { tokens_per_minute: 30 } })).status).to.equal(200);
    const rated = await ask();
    expect(rated.status).to.equal(429);
    expect(rated.body.error.message).to.contain('max_output_tokens');
    expect(rated.body.error.message).not.to.match(/max_tokens/);
    expect((await limit({ workspace: { tokens_per_minute: null, credits_per_day: 0.001 } })).status).to.equal(200);
    const budgeted = await ask();
    expect(budgeted.status).to.equal(402);
    expect(budgeted.body.error.message).to.contain('send max_output_tokens to reserve less');
    expect(budgeted.body.error.message).not.to.match(/max_tokens/);
  });

  it('keeps stored responses for RESPONSES_RETENTION_DAYS, then the cron task deletes them', async () => {
    const client = new OpenAI({ baseURL: `${gw.app.baseUrl}/v1`, apiKey: gw.key, maxRetries: 0 });
    const old = await client.responses.create({ model: 'test/chat-a', input: 'Oud' });
    const recent = await client.responses.create({ model: 'test/chat-a', input: 'Nieuw' });
    await gw.app.db.pool.query("update stored_responses set created_at = now() - interval '31 days' where id = $1", [old.id]);
    await addJob(gw.app.db.pool, 'responses__prune', {});
    await waitFor(async () => (await gw.app.db.pool.query('select 1 from stored_responses where id = $1', [old.id])).rowCount === 0 || undefined, {
      what: 'the prune of the old response',
    });
    expect((await api(gw.app.baseUrl, `/v1/responses/${old.id}`, { key: gw.key })).status).to.equal(404);
    expect((await api(gw.app.baseUrl, `/v1/responses/${recent.id}`, { key: gw.key })).status).to.equal(200);
  });
});
