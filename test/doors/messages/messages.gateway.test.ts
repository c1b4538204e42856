import Anthropic from '@anthropic-ai/sdk';
import { expect } from 'chai';
import { waitFor } from '../../helpers/db.js';
import { api } from '../../helpers/app.js';
import type { GatewayFixture } from '../../helpers/gateway.js';
import { fresh, useMessagesDoor } from './fixture.js';

// The door is the chat gateway: firewall, egress guard, idempotency, fallback and broken streams
// behave as on /v1/chat/completions, seen through Anthropic's shapes.

interface DoorEvent {
  event: string;
  data: any;
}

/** POSTs to /v1/messages and reads the whole SSE answer as `event:`/`data:` pairs. */
async function streamMessages(gw: GatewayFixture, body: Record<string, unknown>, headers: Record<string, string> = {}): Promise<{ status: number; events: DoorEvent[]; headers: Headers }> {
  const response = await fetch(`${gw.app.baseUrl}/v1/messages`, {
    method: 'POST',
    headers: { 'x-api-key': gw.key, 'content-type': 'application/json', 'anthropic-version': '2023-06-01', ...headers },
    body: JSON.stringify({ ...body, stream: true }),
  });
  const text = await response.text();
  const events = text
    .split('\n\n')
    .filter((frame) => frame.trim() !== '')
    .map((frame) => {
      const event = /^event: (.*)$/m.exec(frame)?.[1] ?? '';
      const data = /^data: (.*)$/m.exec(frame)?.[1];
      return { event, data: data ? JSON.parse(data) : undefined };
    });
  return { status: response.status, events, headers: response.headers };
}

const textOf = (events: DoorEvent[]) =>
  events.flatMap((e) => (e.event === 'content_block_delta' && e.data.delta.type === 'text_delta' ? [e.data.delta.text] : [])).join('');

describe('/v1/messages through the gateway: firewall, egress, idempotency, fallback, broken streams', () => {
  const door = useMessagesDoor();
  const { gw } = door;

  it('masks personal data in system and in a tool_result before it leaves, and restores it in the answer', async () => {
    gw.euA.script({ type: 'answer', content: 'Betaald naar [IBAN_1], bevestiging aan [EMAIL_1].' });
    const message = await door.client.messages.create({
      model: 'test/chat-a',
      max_tokens: 100,
      system: 'Je helpt Noor de Vries met haar betalingen.',
      tools: [{ name: 'customer', input_schema: { type: 'object', properties: {} } }],
      messages: [
        { role: 'user', content: fresh('Betaal mijn rekening') },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'customer', input: {} }] },
        {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'IBAN NL91ABNA0417164300, mail noor.devries@example.nl' }] }],
        },
      ],
    });
    const sent = JSON.stringify(gw.euA.requests[0]!.body);
    for (const value of ['NL91ABNA0417164300', 'noor.devries@example.nl', 'Noor de Vries']) expect(sent, value).not.to.contain(value);
    expect(sent).to.contain('[IBAN_1]').and.contain('[EMAIL_1]').and.contain('[PERSON_1]');
    expect(message.content).to.deep.equal([{ type: 'text', text: 'Betaald naar NL91ABNA0417164300, bevestiging aan noor.devries@example.nl.' }]);
  });

  it("sends an assistant turn's text blocks around a tool_use as paragraphs of their own, not run together", async () => {
    await door.client.messages.create({
      model: 'test/chat-a',
      max_tokens: 100,
      tools: [{ name: 'weather', input_schema: { type: 'object', properties: {} } }],
      messages: [
        { role: 'user', content: fresh('Hoe is het weer?') },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Ik kijk het na.' },
            { type: 'tool_use', id: 'toolu_w', name: 'weather', input: {} },
            { type: 'text', text: 'Een moment.' },
          ],
        },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_w', content: 'zonnig' }] },
      ],
    });
    const assistant = gw.euA.requests[0]!.body.messages.find((m: any) => m.role === 'assistant');
    expect(assistant.content).to.equal('Ik kijk het na.\n\nEen moment.');
    expect(assistant.tool_calls[0]).to.deep.include({ id: 'toolu_w' });
  });

  it('restores a placeholder in streamed tool input', async () => {
    gw.euA.script({ type: 'answer', toolCalls: [{ id: 'call_p', name: 'pay', arguments: '{"iban":"[IBAN_1]"}' }] });
    const stream = door.client.messages.stream({
      model: 'test/chat-a',
      max_tokens: 100,
      tools: [{ name: 'pay', input_schema: { type: 'object', properties: { iban: { type: 'string' } } } }],
      messages: [{ role: 'user', content: fresh('Betaal aan NL91ABNA0417164300') }],
    });
    const message = await stream.finalMessage();
    expect(JSON.stringify(gw.euA.requests[0]!.body)).not.to.contain('NL91ABNA0417164300');
    expect(message.content).to.deep.equal([{ type: 'tool_use', id: 'call_p', name: 'pay', input: { iban: 'NL91ABNA0417164300' } }]);
  });

  it('reports the stop sequence an OpenAI-compatible provider names (vLLM’s stop_reason), JSON and streamed', async () => {
    gw.euA.script({ type: 'answer', content: 'Tot zover', stopReason: '###' });
    const message = await door.client.messages.create({ model: 'test/chat-a', max_tokens: 50, stop_sequences: ['###'], messages: [{ role: 'user', content: fresh('Stop bij ###') }] });
    expect(message).to.include({ stop_reason: 'stop_sequence', stop_sequence: '###' });
    gw.euA.script({ type: 'answer', content: 'Tot zover', stopReason: '###' });
    const streamed = await door.client.messages.stream({ model: 'test/chat-a', max_tokens: 50, stop_sequences: ['###'], messages: [{ role: 'user', content: fresh('Stop bij ###') }] }).finalMessage();
    expect(streamed).to.include({ stop_reason: 'stop_sequence', stop_sequence: '###' });
  });

  it('reports a provider’s content filter as stop_reason refusal, JSON and streamed', async () => {
    gw.euA.script({ type: 'answer', content: 'Daar help ik niet bij.', finishReason: 'content_filter' });
    const message = await door.client.messages.create({ model: 'test/chat-a', max_tokens: 50, messages: [{ role: 'user', content: fresh('Iets verbodens') }] });
    expect(message.stop_reason).to.equal('refusal');
    gw.euA.script({ type: 'answer', content: 'Daar help ik niet bij.', finishReason: 'content_filter' });
    const streamed = await door.client.messages.stream({ model: 'test/chat-a', max_tokens: 50, messages: [{ role: 'user', content: fresh('Iets verbodens') }] }).finalMessage();
    expect(streamed.stop_reason).to.equal('refusal');
  });

  it('refuses a model outside the EU with 403 in Anthropic’s shape', async () => {
    const err = await door.client.messages
      .create({ model: 'test/external', max_tokens: 10, messages: [{ role: 'user', content: fresh('Hoi') }] })
      .catch((e: unknown) => e);
    expect(err).to.be.instanceOf(Anthropic.PermissionDeniedError);
    const body = (err as { error: any }).error;
    expect(body.type).to.equal('error');
    expect(body.error.type).to.equal('permission_error');
    expect(body.code).to.equal('egress_refused');
    expect(gw.ext.requests).to.have.length(0);
  });

  it('refuses more text than the firewall scans with a 413 in Anthropic’s shape, before judging the context, as the chat API does', async () => {
    const limit = gw.app.config.firewallMaxChars;
    const err = await door.client.messages
      .create({ model: 'test/chat-a', max_tokens: 10, messages: [{ role: 'user', content: fresh('a '.repeat(Math.ceil(limit / 2) + 1)) }] })
      .catch((e: unknown) => e);
    expect(err).to.have.property('status', 413);
    const body = (err as { error: any }).error;
    expect(body.error.type).to.equal('request_too_large');
    expect(body.code).to.equal('payload_too_large');
    expect(body.error.message).to.contain('FIREWALL_MAX_CHARS');
    expect(gw.euA.requests).to.have.length(0);
  });

  it('replays an answer under the same request id as SSE, without calling the provider again', async () => {
    const body = { model: 'test/chat-a', max_tokens: 50, messages: [{ role: 'user', content: fresh('Eenmaal') }] };
    const first = await api(gw.app.baseUrl, '/v1/messages', { method: 'POST', key: gw.key, body, headers: { 'x-request-id': 'msg-replay-1' } });
    expect(first.status).to.equal(200);
    const again = await streamMessages(gw, body, { 'x-request-id': 'msg-replay-1' });
    expect(again.status).to.equal(200);
    expect(gw.euA.requests).to.have.length(1);
    expect(again.events.map((e) => e.event)).to.deep.equal([
      'message_start',
      'ping',
      'content_block_start',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    expect(textOf(again.events)).to.equal(first.body.content[0].text);
    expect(again.events[0]!.data.message.id).to.equal('msg_msg-replay-1');
  });

  it('falls back before the first output without the client seeing it', async () => {
    gw.euA.script({ type: 'status', status: 503 });
    const text = fresh('Val terug');
    const { status, events, headers } = await streamMessages(gw, { model: 'test/chat-a', max_tokens: 50, messages: [{ role: 'user', content: text }] });
    expect(status).to.equal(200);
    expect(headers.get('x-provider')).to.equal('eu-b');
    expect(events[0]!.event).to.equal('message_start');
    expect(events.map((e) => e.event)).not.to.include('error');
    expect(events.at(-1)!.event).to.equal('message_stop');
    expect(textOf(events)).to.equal(`echo: ${text}`);
  });

  it('answers a stream whose whole chain fails with a 503 in Anthropic’s shape, not a stream', async () => {
    gw.euA.script({ type: 'status', status: 503 });
    gw.euB.script({ type: 'status', status: 503 });
    const response = await fetch(`${gw.app.baseUrl}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': gw.key, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'test/chat-a', max_tokens: 50, stream: true, messages: [{ role: 'user', content: fresh('Niemand') }] }),
    });
    expect(response.status).to.equal(503);
    expect(response.headers.get('content-type')).to.match(/application\/json/);
    const body = (await response.json()) as any;
    expect(body.type).to.equal('error');
    expect(body.error.type).to.equal('overloaded_error');
    expect(body.attempts).to.have.length(2);
  });

  it('ends a stream cut after its first output with an error event, never message_stop, unbilled', async () => {
    gw.euA.script({ type: 'cutMidStream', afterChunks: 2 });
    const { status, events } = await streamMessages(gw, { model: 'test/chat-a', max_tokens: 50, messages: [{ role: 'user', content: fresh('Breek af na een paar woorden') }] }, { 'x-request-id': 'msg-cut-1' });
    expect(status).to.equal(200);
    const names = events.map((e) => e.event);
    expect(names[0]).to.equal('message_start');
    expect(names).not.to.include('message_stop');
    expect(names.at(-1)).to.equal('error');
    expect(events.at(-1)!.data).to.deep.include({ type: 'error' });
    expect(events.at(-1)!.data.error.type).to.equal('api_error');
    const trace = await waitFor(async () => (await gw.app.db.pool.query("select * from traces where id = 'msg-cut-1'")).rows[0], { what: 'the trace' });
    expect(trace.status).to.equal(502);
    expect((await gw.app.db.pool.query("select * from usage where request_id = 'msg-cut-1'")).rows).to.have.length(0);
  });

  it('names the Messages field when what it becomes breaks a chat rule, in Anthropic’s shape', async () => {
    // 10 MiB and a little more, once decoded.
    const big = 'A'.repeat(Math.ceil((10 * 1024 * 1024 + 10) / 3) * 4);
    const image = { type: 'image', source: { type: 'base64', media_type: 'image/png', data: big } };
    const refused = async (messages: unknown[]) => {
      const got = await api(gw.app.baseUrl, '/v1/messages', {
        key: gw.key,
        method: 'POST',
        headers: { 'anthropic-version': '2023-06-01' },
        body: { model: 'test/chat-a', max_tokens: 100, system: 'Kort graag.', messages },
      });
      expect(got.status, got.text.slice(0, 300)).to.equal(422);
      expect(got.body.type).to.equal('error');
      expect(got.body.error.type).to.equal('invalid_request_error');
      return got.body;
    };
    const user = await refused([{ role: 'user', content: [{ type: 'text', text: fresh('Kijk') }, image] }]);
    expect(Object.keys(user.errors)).to.deep.equal(['messages.0.content.1']);
    expect(user.error.message).to.contain('messages.0.content.1');

    const result = await refused([
      { role: 'user', content: fresh('Bekijk het schermafdruk') },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'view_image', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'de afbeelding:' }, image] }] },
    ]);
    expect(Object.keys(result.errors)).to.deep.equal(['messages.2.content.0.content.1']);

    // Search results and documents take their place among the parts, as text does.
    const searched = await refused([
      {
        role: 'user',
        content: [
          { type: 'search_result', source: 'https://example.com/polis', title: 'Polis', content: [{ type: 'text', text: 'Dekking' }] },
          { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'Voorwaarden' } },
          image,
        ],
      },
    ]);
    expect(Object.keys(searched.errors)).to.deep.equal(['messages.0.content.2']);
    expect(gw.euA.requests).to.have.length(0);
  });

  it('meters the call as chat usage and traces it with the door noted', async () => {
    const res = await api(gw.app.baseUrl, '/v1/messages', {
      method: 'POST',
      key: gw.key,
      body: { model: 'test/chat-a', max_tokens: 50, top_k: 5, messages: [{ role: 'user', content: fresh('Tel mij') }] },
      headers: { 'x-request-id': 'msg-metered-1' },
    });
    expect(res.status).to.equal(200);
    const usage = await waitFor(async () => (await gw.app.db.pool.query("select * from usage where request_id = 'msg-metered-1'")).rows[0], { what: 'the usage row' });
    expect(usage.kind).to.equal('chat');
    expect(Number(usage.credits_total)).to.be.closeTo(res.body.credits.total, 1e-8);
    expect(usage.prompt_tokens).to.equal(res.body.usage.input_tokens + res.body.usage.cache_read_input_tokens);
    const trace = await api(gw.app.baseUrl, '/v1/traces/msg-metered-1', { key: gw.key });
    expect(trace.body.notes.join(' ')).to.contain('Messages door').and.contain('top_k');
  });
});
