import Anthropic from '@anthropic-ai/sdk';
import { expect } from 'chai';
import OpenAI from 'openai';
import { chatBody, postChat, readSse, useGatewayFixture } from '../helpers/gateway.js';

// Reasoning an OpenAI-compatible provider gives as text (DeepSeek's and vLLM's `reasoning_content`,
// OpenRouter's `reasoning`, Mistral's `thinking` parts): carried through the chat answer with its
// placeholders restored, and shown by the doors — a Responses `reasoning` item, a Messages
// `thinking` block.

const REASONING = 'The customer [EMAIL_1] asks about policy 42. ';
const ANSWER = 'Policy 42 covers contents.';

describe('reasoning from OpenAI-compatible providers', () => {
  const gw = useGatewayFixture();
  const email = 'noor.jansen@example.nl';

  for (const reasoningAs of ['reasoning_content', 'reasoning', 'mistral'] as const) {
    it(`shows ${reasoningAs} as reasoning_content in the chat answer, restored, with reasoning tokens (JSON and stream)`, async () => {
      gw.euA.script({ type: 'answer', content: ANSWER, reasoning: REASONING, reasoningAs });
      const res = await postChat(gw, chatBody({ cache: false, messages: [{ role: 'user', content: `Mijn e-mail is ${email}. Polis 42?` }] }));
      const body = (await res.json()) as Record<string, any>;
      expect(res.status).to.equal(200);
      expect(JSON.stringify(gw.euA.requests[0]!.body)).not.to.contain(email);
      expect(body.choices[0].message).to.deep.include({ content: ANSWER, reasoning_content: `The customer ${email} asks about policy 42. ` });
      expect(body.usage.completion_tokens_details).to.deep.equal({ reasoning_tokens: 7 });
      if (reasoningAs === 'reasoning_content') {
        // Served again from the cache, it counts as it did.
        const first = chatBody({ messages: [{ role: 'user', content: 'Polis 99, kort graag.' }] });
        gw.euA.script({ type: 'answer', content: ANSWER, reasoning: REASONING, reasoningAs });
        await (await postChat(gw, first)).json();
        const hit = await postChat(gw, { ...first });
        expect(hit.headers.get('x-cache')).to.equal('HIT');
        expect(((await hit.json()) as any).usage.completion_tokens_details).to.deep.equal({ reasoning_tokens: 7 });
      }

      gw.euA.script({ type: 'answer', content: ANSWER, reasoning: REASONING, reasoningAs });
      const streamed = await readSse(await postChat(gw, chatBody({ stream: true, cache: false, messages: [{ role: 'user', content: `Mijn e-mail is ${email}. Polis 7?` }] })));
      const deltas = streamed.flatMap((chunk) => (chunk === '[DONE]' ? [] : chunk.choices.map((c: { delta: Record<string, string> }) => c.delta)));
      expect(deltas.map((d) => d.reasoning_content ?? '').join('')).to.equal(`The customer ${email} asks about policy 42. `);
      expect(deltas.map((d) => d.content ?? '').join('')).to.equal(ANSWER);
      // All of the reasoning comes before the answer.
      const lastReasoning = deltas.findLastIndex((d) => d.reasoning_content !== undefined);
      const firstContent = deltas.findIndex((d) => d.content);
      expect(lastReasoning).to.be.below(firstContent);
    });
  }

  it('puts a reasoning item before the message in a Responses answer, streamed and as JSON alike', async () => {
    const client = new OpenAI({ baseURL: `${gw.app.baseUrl}/v1`, apiKey: gw.key, maxRetries: 0 });
    gw.euA.script({ type: 'answer', content: ANSWER, reasoning: 'Thinking about policy 42.' });
    const json = await client.responses.create({ model: 'test/chat-a', input: 'Polis 42, reasoned', store: false, cache: false } as OpenAI.Responses.ResponseCreateParamsNonStreaming);
    expect(json.output.map((item) => item.type)).to.deep.equal(['reasoning', 'message']);
    const reasoning = json.output[0] as OpenAI.Responses.ResponseReasoningItem;
    expect(reasoning.id).to.match(/^rs_/);
    expect(reasoning.content).to.deep.equal([{ type: 'reasoning_text', text: 'Thinking about policy 42.' }]);
    expect(reasoning.summary).to.deep.equal([]);
    expect(reasoning).not.to.have.property('encrypted_content');
    expect(json.output_text).to.equal(ANSWER);
    expect(json.usage!.output_tokens_details.reasoning_tokens).to.equal(4);

    gw.euA.script({ type: 'answer', content: ANSWER, reasoning: 'Thinking about policy 42.' });
    const stream = client.responses.stream({ model: 'test/chat-a', input: 'Polis 42, reasoned', store: false, cache: false } as { model: string; input: string });
    const events: OpenAI.Responses.ResponseStreamEvent[] = [];
    for await (const event of stream) events.push(event);
    const final = await stream.finalResponse();
    expect(events.map((e) => e.type).slice(0, 5)).to.deep.equal([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.reasoning_text.delta',
    ]);
    const deltas = events.filter((e): e is OpenAI.Responses.ResponseReasoningTextDeltaEvent => e.type === 'response.reasoning_text.delta');
    expect(deltas.map((d) => d.delta).join('')).to.equal('Thinking about policy 42.');
    for (const delta of deltas) expect(delta).to.include({ item_id: reasoning.id.replace(json.id.slice(5, 45), final.id.slice(5, 45)), output_index: 0, content_index: 0 });
    const done = events.find((e): e is OpenAI.Responses.ResponseReasoningTextDoneEvent => e.type === 'response.reasoning_text.done')!;
    expect(done.text).to.equal('Thinking about policy 42.');
    const textDelta = events.find((e): e is OpenAI.Responses.ResponseTextDeltaEvent => e.type === 'response.output_text.delta')!;
    expect(textDelta.output_index).to.equal(1);
    expect(events.map((e) => e.sequence_number)).to.deep.equal(events.map((_e, i) => i));
    // The stream's final response is the JSON one, but for ids and times.
    const comparable = (r: OpenAI.Responses.Response) => ({
      output: r.output.map((item) => {
        const { id: _id, ...rest } = item as unknown as Record<string, unknown>;
        if (!Array.isArray(rest.content)) return rest;
        return { ...rest, content: (rest.content as Record<string, unknown>[]).map(({ parsed: _parsed, ...part }) => part) };
      }),
      output_text: r.output_text,
      usage: r.usage,
    });
    expect(comparable(final)).to.deep.equal(comparable(json));
  });

  it('gives the reasoning as the item\'s summary when the request asks for summaries (as Codex does), streamed and as JSON', async () => {
    const client = new OpenAI({ baseURL: `${gw.app.baseUrl}/v1`, apiKey: gw.key, maxRetries: 0 });
    const ask = { model: 'test/chat-a', input: 'Polis 42, samengevat', store: false, cache: false, reasoning: { summary: 'auto' } } as const;
    gw.euA.script({ type: 'answer', content: ANSWER, reasoning: 'Thinking about policy 42.' });
    const json = await client.responses.create(ask as OpenAI.Responses.ResponseCreateParamsNonStreaming);
    const item = json.output[0] as OpenAI.Responses.ResponseReasoningItem;
    expect(item.summary).to.deep.equal([{ type: 'summary_text', text: 'Thinking about policy 42.' }]);
    expect(item).not.to.have.property('content');
    expect(json.reasoning).to.deep.include({ summary: 'auto' });

    gw.euA.script({ type: 'answer', content: ANSWER, reasoning: 'Thinking about policy 42.' });
    const stream = client.responses.stream(ask as unknown as { model: string; input: string });
    const types: string[] = [];
    for await (const event of stream) types.push(event.type);
    const final = await stream.finalResponse();
    expect(types).to.include.members(['response.reasoning_summary_part.added', 'response.reasoning_summary_text.delta', 'response.reasoning_summary_text.done', 'response.reasoning_summary_part.done']);
    expect(types).not.to.include('response.reasoning_text.delta');
    expect((final.output[0] as OpenAI.Responses.ResponseReasoningItem).summary).to.deep.equal(item.summary);
  });

  it('shows reasoning as a thinking block without a signature through the Messages door (JSON and stream)', async () => {
    const client = new Anthropic({ baseURL: gw.app.baseUrl, apiKey: gw.key, maxRetries: 0 });
    gw.euA.script({ type: 'answer', content: ANSWER, reasoning: 'Thinking about policy 42.' });
    const message = await client.messages.create({ model: 'test/chat-a', max_tokens: 200, messages: [{ role: 'user', content: 'Polis 42, denk na' }] });
    expect(message.content).to.deep.equal([
      { type: 'thinking', thinking: 'Thinking about policy 42.', signature: '' },
      { type: 'text', text: ANSWER },
    ]);

    gw.euA.script({ type: 'answer', content: ANSWER, reasoning: 'Thinking about policy 42.' });
    const streamed = await client.messages.stream({ model: 'test/chat-a', max_tokens: 200, messages: [{ role: 'user', content: 'Polis 42, denk gestreamd na' }] }).finalMessage();
    expect(streamed.content).to.deep.equal([
      { type: 'thinking', thinking: 'Thinking about policy 42.', signature: '' },
      { type: 'text', text: ANSWER },
    ]);
  });
});
