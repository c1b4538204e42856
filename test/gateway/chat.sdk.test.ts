import { expect } from 'chai';
import OpenAI from 'openai';
import { startTestApp, type TestApp } from '../helpers/app.js';

// The official SDK, unchanged but for its base URL and key, against the running app.
describe('the official openai SDK against /v1/chat/completions', () => {
  let app: TestApp;
  let client: OpenAI;
  before(async () => {
    app = await startTestApp();
    client = new OpenAI({ baseURL: `${app.baseUrl}/v1`, apiKey: (await app.key()).key, maxRetries: 0 });
  });
  after(async () => {
    await app.close();
  });

  it('makes a plain call', async () => {
    const completion = await client.chat.completions.create({
      model: 'local/echo',
      messages: [{ role: 'user', content: 'Wat is mijn eigen risico?' }],
    });
    expect(completion.choices[0]!.message.content).to.equal('Echo: Wat is mijn eigen risico?');
    expect(completion.usage!.total_tokens).to.be.above(0);
  });

  it('takes an OpenAI parameter sent as null as not given, as OpenAI does (its SDKs send null for unset)', async () => {
    // QA: each of these was a 422 ("temperature: must be number"), though OpenAI's own types allow null.
    const completion = await client.chat.completions.create({
      model: 'local/echo',
      messages: [
        { role: 'user', content: 'Eerst', name: null as never },
        { role: 'assistant', content: 'Goed', tool_calls: null as never },
        { role: 'user', content: 'Nul is niets' },
      ],
      temperature: null,
      top_p: null,
      max_tokens: null,
      max_completion_tokens: null,
      stop: null,
      seed: null,
      n: null,
      stream: null,
      stream_options: null,
      presence_penalty: null,
      frequency_penalty: null,
      logit_bias: null,
      logprobs: null,
      top_logprobs: null,
      parallel_tool_calls: null as never,
      response_format: null as never,
      tool_choice: null as never,
      tools: null as never,
      user: null as never,
    });
    expect(completion.choices).to.have.length(1);
    expect(completion.choices[0]!.message.content).to.equal('Echo: Nul is niets');
    // Polder's own fields keep their types: null there is still a mistake worth hearing of.
    const ours = await client.chat.completions.create({ model: 'local/echo', messages: [{ role: 'user', content: 'x' }], firewall: null } as never).catch((e: unknown) => e);
    expect(ours).to.be.instanceOf(OpenAI.UnprocessableEntityError);
  });

  it('streams, including the usage chunk', async () => {
    const stream = await client.chat.completions.create({
      model: 'local/echo',
      messages: [{ role: 'user', content: 'Stream dit alstublieft' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let usage: OpenAI.CompletionUsage | null | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).to.equal('Echo: Stream dit alstublieft');
    expect(usage!.completion_tokens).to.be.above(0);
  });

  it('calls tools, and takes the tool result back', async () => {
    const tools: OpenAI.ChatCompletionTool[] = [
      {
        type: 'function',
        function: {
          name: 'lookup_policy',
          description: 'Finds a policy',
          parameters: { type: 'object', properties: { policy_number: { type: 'string' } }, required: ['policy_number'] },
        },
      },
    ];
    const first = await client.chat.completions.create({
      model: 'local/echo',
      messages: [{ role: 'user', content: 'Zoek polis 42' }],
      tools,
      tool_choice: { type: 'function', function: { name: 'lookup_policy' } },
    });
    const call = first.choices[0]!.message.tool_calls![0]! as OpenAI.ChatCompletionMessageFunctionToolCall;
    expect(first.choices[0]!.finish_reason).to.equal('tool_calls');
    expect(call.function.name).to.equal('lookup_policy');
    expect(JSON.parse(call.function.arguments)).to.have.property('policy_number');
    const second = await client.chat.completions.create({
      model: 'local/echo',
      messages: [
        { role: 'user', content: 'Zoek polis 42' },
        first.choices[0]!.message,
        { role: 'tool', tool_call_id: call.id, content: 'polis 42: inboedel' },
      ],
      tools,
    });
    expect(second.choices[0]!.message.content).to.contain('polis 42: inboedel');
  });

  it('returns structured output for json_schema', async () => {
    const completion = await client.chat.completions.create({
      model: 'local/echo',
      messages: [{ role: 'user', content: 'Geef de klant' }],
      response_format: {
        type: 'json_schema',
        json_schema: {
          name: 'customer',
          strict: true,
          schema: {
            type: 'object',
            properties: { name: { type: 'string' }, age: { type: 'integer' }, tier: { type: 'string', enum: ['gold', 'silver'] } },
            required: ['name', 'age', 'tier'],
            additionalProperties: false,
          },
        },
      },
    });
    const parsed = JSON.parse(completion.choices[0]!.message.content!);
    expect(parsed).to.have.all.keys('name', 'age', 'tier');
    expect(Number.isInteger(parsed.age)).to.equal(true);
    expect(['gold', 'silver']).to.include(parsed.tier);
  });

  it('surfaces our errors as the SDK error classes', async () => {
    try {
      await client.chat.completions.create({ model: 'nope/never', messages: [{ role: 'user', content: 'x' }] });
      expect.fail('should have thrown');
    } catch (err) {
      expect(err).to.be.instanceOf(OpenAI.UnprocessableEntityError);
      expect((err as InstanceType<typeof OpenAI.APIError>).message).to.contain('nope/never');
    }
  });
});
