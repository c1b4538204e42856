import { expect } from 'chai';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { loadCatalog } from '../../../../src/gateway/catalog.js';
import { createLocalAdapter } from '../../../../src/gateway/providers/local/adapter.js';
import { ECHO_PREFIX, echoCompletion, echoStream, minimalValue } from '../../../../src/gateway/providers/local/echo.js';
import { embedBatch, toNumberArray } from '../../../../src/gateway/providers/local/embed.js';
import {
  UpstreamError,
  type ChatMessage,
  type UpstreamChatRequest,
  type UpstreamChunk,
  type UpstreamCompletion,
  type UpstreamTarget,
} from '../../../../src/gateway/providers/types.js';
import { countCompletionTokens, countMessageTokens, countTokens } from '../../../../src/gateway/tokens.js';

const ajv = new Ajv2020({ allErrors: true });

function validates(schema: Record<string, unknown>, value: unknown): void {
  const validate = ajv.compile(schema);
  const ok = validate(value);
  expect(ok, `${JSON.stringify(value)}: ${ajv.errorsText(validate.errors)}`).to.equal(true);
}

const WEATHER = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    description: 'Current weather for a place',
    parameters: {
      type: 'object',
      properties: {
        location: { type: 'string' },
        unit: { type: 'string', enum: ['celsius', 'fahrenheit'] },
        days: { type: 'integer', minimum: 1, maximum: 7 },
      },
      required: ['location', 'unit', 'days'],
      additionalProperties: false,
    },
  },
};

// What clients send for structured output and tools (OpenAI's strict subset): nested objects,
// arrays, enums, integers with a minimum, $defs/$ref, nullable anyOf and type lists, consts.
const BOOKING_SCHEMA = {
  type: 'object',
  $defs: {
    person: {
      type: 'object',
      properties: { name: { type: 'string' }, age: { type: 'integer', minimum: 18 } },
      required: ['name', 'age'],
      additionalProperties: false,
    },
  },
  properties: {
    guest: { $ref: '#/$defs/person' },
    rooms: { type: 'array', items: { type: 'object', properties: { beds: { type: 'integer', minimum: 2 } }, required: ['beds'] }, minItems: 2 },
    tags: { type: 'array', items: { type: 'string' } },
    level: { type: 'string', enum: ['basic', 'premium'] },
    price: { type: 'number', minimum: 0.25, maximum: 0.5 },
    breakfast: { type: 'boolean' },
    note: { anyOf: [{ type: 'null' }, { type: 'string' }] },
    kind: { const: 'booking' },
    address: {
      type: 'object',
      properties: { street: { type: 'string' }, zip: { type: ['string', 'null'] } },
      required: ['street', 'zip'],
    },
    optional: { type: 'string' },
  },
  required: ['guest', 'rooms', 'tags', 'level', 'price', 'breakfast', 'note', 'kind', 'address'],
  additionalProperties: false,
};

const BOOK = { type: 'function' as const, function: { name: 'book_room', parameters: BOOKING_SCHEMA } };

function user(content: string): ChatMessage {
  return { role: 'user', content };
}

interface Reassembled {
  role: string | undefined;
  content: string | null;
  tool_calls: { id: string; type: string; function: { name: string; arguments: string } }[];
  finish_reason: string | null;
}

async function collect(iterable: AsyncIterable<UpstreamChunk>): Promise<UpstreamChunk[]> {
  const out: UpstreamChunk[] = [];
  for await (const chunk of iterable) out.push(chunk);
  return out;
}

/** Puts streamed chunks back together, checking the order rules on the way. */
function reassemble(chunks: UpstreamChunk[]): Map<number, Reassembled> {
  const choices = new Map<number, Reassembled>();
  for (const chunk of chunks) {
    for (const c of chunk.choices) {
      let r = choices.get(c.index);
      if (!r) {
        expect(c.delta.role, 'first delta of a choice has the role').to.equal('assistant');
        r = { role: c.delta.role, content: null, tool_calls: [], finish_reason: null };
        choices.set(c.index, r);
      } else {
        expect(c.delta.role).to.equal(undefined);
      }
      expect(r.finish_reason, 'nothing after finish_reason').to.equal(null);
      if (typeof c.delta.content === 'string') r.content = (r.content ?? '') + c.delta.content;
      for (const d of c.delta.tool_calls ?? []) {
        expect(d.index).to.be.a('number');
        if (d.id !== undefined) {
          expect(d.index).to.equal(r.tool_calls.length);
          expect(d.function?.name).to.be.a('string');
          r.tool_calls.push({ id: d.id, type: d.type ?? 'function', function: { name: d.function!.name!, arguments: d.function?.arguments ?? '' } });
        } else {
          const call = r.tool_calls[d.index]!;
          expect(d.function?.name).to.equal(undefined);
          call.function.arguments += d.function?.arguments ?? '';
        }
      }
      if (c.finish_reason !== null) r.finish_reason = c.finish_reason;
    }
  }
  return choices;
}

function expectStreamMatches(chunks: UpstreamChunk[], completion: UpstreamCompletion): void {
  const choices = reassemble(chunks);
  expect(choices.size).to.equal(completion.choices.length);
  for (const choice of completion.choices) {
    const r = choices.get(choice.index)!;
    expect(r.content).to.equal(choice.message.content);
    expect(r.tool_calls).to.deep.equal(choice.message.tool_calls ?? []);
    expect(r.finish_reason).to.equal(choice.finish_reason);
  }
}

describe('local/echo', () => {
  describe('plain replies', () => {
    it(`echoes the last user message as "${ECHO_PREFIX}<text>" with usage from the tokenizer`, () => {
      const messages: ChatMessage[] = [
        { role: 'system', content: 'Relevant knowledge:\n- The office is in Utrecht.' },
        user('first question'),
        { role: 'assistant', content: 'Echo: first question' },
        user('Where is the office?'),
      ];
      const res = echoCompletion({ messages });
      expect(res.choices).to.have.length(1);
      const [choice] = res.choices;
      expect(choice!.index).to.equal(0);
      expect(choice!.message).to.deep.equal({ role: 'assistant', content: 'Echo: Where is the office?' });
      expect(choice!.finish_reason).to.equal('stop');
      expect(res.usage).to.deep.equal({
        prompt_tokens: countMessageTokens(messages),
        completion_tokens: countTokens('Echo: Where is the office?'),
        total_tokens: countMessageTokens(messages) + countTokens('Echo: Where is the office?'),
      });
      expect(res.id).to.match(/^chatcmpl-/);
      expect(res.created).to.be.a('number');
    });

    it('joins text parts and leaves attachments out', () => {
      const res = echoCompletion({
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'What is' },
              { type: 'image_url', image_url: { url: 'https://example.com/cat.png' } },
              { type: 'text', text: 'in this picture?' },
            ],
          },
        ],
      });
      expect(res.choices[0]!.message.content).to.equal('Echo: What is\nin this picture?');
    });

    it('accepts every parameter, reasoning_effort included, without throwing', () => {
      const res = echoCompletion({
        messages: [{ role: 'developer', content: 'be brief' }, user('hi')],
        temperature: 0.2,
        top_p: 0.9,
        seed: 7,
        presence_penalty: 0,
        frequency_penalty: 0,
        logit_bias: { '50256': -100 },
        logprobs: true,
        top_logprobs: 2,
        reasoning_effort: 'high',
        user: 'u-1',
        response_format: { type: 'text' },
      });
      expect(res.choices[0]!.message.content).to.equal('Echo: hi');
      expect(echoCompletion({ messages: [] }).choices[0]!.message.content).to.equal('Echo: ');
    });

    it('copes with odd but valid requests', () => {
      const odd: UpstreamChatRequest[] = [
        { messages: [{ role: 'user', content: null }] },
        { messages: [{ role: 'assistant', content: 'prefill' }] },
        { messages: [user('x')], response_format: { type: 'json_schema', json_schema: { name: 'empty' } } },
        { messages: [user('x')], stop: [] },
        { messages: [user('x')], tools: [], tool_choice: 'auto' },
        { messages: [user('x')], n: 1000 },
        {
          messages: [
            { role: 'assistant', content: null, tool_calls: [{ id: 'a', function: { name: 'f', arguments: '{}' } }, { id: 'b', function: { name: 'g', arguments: '{}' } }] },
            { role: 'tool', tool_call_id: 'a', content: [{ type: 'text', text: 'one' }] },
            { role: 'tool', tool_call_id: 'b', content: 'two' },
          ],
        },
      ];
      const contents = odd.map((r) => echoCompletion(r).choices[0]!.message.content);
      expect(contents).to.deep.equal(['Echo: ', 'Echo: ', '{}', 'Echo: x', 'Echo: x', 'Echo: x', 'Echo: tool result one\ntwo']);
      expect(echoCompletion(odd[5]!).choices).to.have.length(128);
    });

    it('gives n identical choices with their indexes', () => {
      const res = echoCompletion({ messages: [user('twice')], n: 2 });
      expect(res.choices.map((c) => c.index)).to.deep.equal([0, 1]);
      expect(res.choices[0]!.message).to.deep.equal(res.choices[1]!.message);
      expect(res.usage!.completion_tokens).to.equal(2 * countTokens('Echo: twice'));
    });
  });

  describe('limits', () => {
    it('max_tokens truncates with finish_reason length', () => {
      const text = 'one two three four five six seven eight nine ten';
      const res = echoCompletion({ messages: [user(text)], max_tokens: 4 });
      const choice = res.choices[0]!;
      expect(choice.finish_reason).to.equal('length');
      expect(choice.message.content).to.equal('Echo: one two');
      expect(res.usage!.completion_tokens).to.equal(4);
      expect(`Echo: ${text}`.startsWith(choice.message.content!)).to.equal(true);
    });

    it('max_completion_tokens wins over max_tokens; a reply that fits is not cut', () => {
      const a = echoCompletion({ messages: [user('one two three four')], max_tokens: 100, max_completion_tokens: 3 });
      expect(a.choices[0]!.finish_reason).to.equal('length');
      expect(a.usage!.completion_tokens).to.be.at.most(3);
      const b = echoCompletion({ messages: [user('short')], max_tokens: 100 });
      expect(b.choices[0]!.finish_reason).to.equal('stop');
      expect(b.choices[0]!.message.content).to.equal('Echo: short');
    });

    it('stop sequences cut the reply', () => {
      const res = echoCompletion({ messages: [user('alpha. beta. gamma')], stop: ['. g', '. b'] });
      expect(res.choices[0]!.message.content).to.equal('Echo: alpha');
      expect(res.choices[0]!.finish_reason).to.equal('stop');
      expect(echoCompletion({ messages: [user('x y')], stop: 'y' }).choices[0]!.message.content).to.equal('Echo: x ');
    });
  });

  describe('tools', () => {
    it('tool_choice required calls the first tool with arguments valid for its schema', () => {
      const messages = [user('What is the weather in Amsterdam?')];
      const res = echoCompletion({ messages, tools: [WEATHER, BOOK], tool_choice: 'required' });
      const choice = res.choices[0]!;
      expect(choice.finish_reason).to.equal('tool_calls');
      expect(choice.message.content).to.equal(null);
      expect(choice.message.tool_calls).to.have.length(1);
      const call = choice.message.tool_calls![0]!;
      expect(call.type).to.equal('function');
      expect(call.id).to.be.a('string').and.not.equal('');
      expect(call.function.name).to.equal('get_weather');
      const args = JSON.parse(call.function.arguments);
      validates(WEATHER.function.parameters, args);
      expect(args).to.deep.equal({ location: 'What is the weather in Amsterdam?', unit: 'celsius', days: 1 });
      expect(res.usage!.completion_tokens).to.equal(countCompletionTokens(choice.message));
    });

    it('fills arguments with what was asked, without the <system-reminder> notes a coding agent adds to the turn', () => {
      const bash = { type: 'function' as const, function: { name: 'Bash', parameters: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] } } };
      const todo = { type: 'function' as const, function: { name: 'TodoWrite', parameters: { type: 'object', properties: {} } } };
      const content = [
        { type: 'text' as const, text: '<system-reminder>\nUse TodoWrite to plan.\n</system-reminder>' },
        { type: 'text' as const, text: 'echo polder-ok # Bash\n<system-reminder>Today is 2026-11-26.</system-reminder>' },
      ];
      const call = echoCompletion({ messages: [{ role: 'user', content }], tools: [bash, todo] }).choices[0]!.message.tool_calls!;
      expect(call.map((c) => c.function.name)).to.deep.equal(['Bash']);
      expect(JSON.parse(call[0]!.function.arguments)).to.deep.equal({ command: 'echo polder-ok # Bash' });
      // The reply itself still echoes the whole turn.
      expect(echoCompletion({ messages: [user('a <system-reminder>b</system-reminder> c')] }).choices[0]!.message.content).to.equal('Echo: a <system-reminder>b</system-reminder> c');
    });

    it('a named tool_choice calls that tool, with valid arguments for a nested schema', () => {
      const res = echoCompletion({
        messages: [user('book it')],
        tools: [WEATHER, BOOK],
        tool_choice: { type: 'function', function: { name: 'book_room' } },
      });
      const call = res.choices[0]!.message.tool_calls![0]!;
      expect(call.function.name).to.equal('book_room');
      const args = JSON.parse(call.function.arguments);
      validates(BOOKING_SCHEMA, args);
      expect(args.rooms).to.have.length(2);
      expect(args.level).to.equal('basic');
      expect(args.kind).to.equal('booking');
      expect(args).not.to.have.property('optional');
    });

    it('auto calls a tool only when the user names it', () => {
      const plain = echoCompletion({ messages: [user('What is the weather?')], tools: [WEATHER, BOOK], tool_choice: 'auto' });
      expect(plain.choices[0]!.message.content).to.equal('Echo: What is the weather?');
      expect(plain.choices[0]!.message.tool_calls).to.equal(undefined);
      expect(plain.choices[0]!.finish_reason).to.equal('stop');

      const named = echoCompletion({ messages: [user('please use get_weather for Paris')], tools: [WEATHER, BOOK] });
      expect(named.choices[0]!.finish_reason).to.equal('tool_calls');
      expect(named.choices[0]!.message.tool_calls!.map((c) => c.function.name)).to.deep.equal(['get_weather']);

      const both = echoCompletion({ messages: [user('use BOOK_ROOM and get_weather')], tools: [WEATHER, BOOK], tool_choice: 'auto' });
      expect(both.choices[0]!.message.tool_calls!.map((c) => c.function.name)).to.deep.equal(['get_weather', 'book_room']);
      const ids = both.choices[0]!.message.tool_calls!.map((c) => c.id);
      expect(new Set(ids).size).to.equal(2);

      const single = echoCompletion({ messages: [user('use book_room and get_weather')], tools: [WEATHER, BOOK], parallel_tool_calls: false });
      expect(single.choices[0]!.message.tool_calls).to.have.length(1);

      const prefix = echoCompletion({ messages: [user('get_weather_now')], tools: [WEATHER] });
      expect(prefix.choices[0]!.message.tool_calls).to.equal(undefined);
    });

    it('none never calls a tool', () => {
      const res = echoCompletion({ messages: [user('use get_weather')], tools: [WEATHER], tool_choice: 'none' });
      expect(res.choices[0]!.message.content).to.equal('Echo: use get_weather');
    });

    it('answers a tool result with text', () => {
      const messages: ChatMessage[] = [
        user('use get_weather for Paris'),
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{}' } }] },
        { role: 'tool', tool_call_id: 'call_1', content: '{"temp": 21}' },
      ];
      const res = echoCompletion({ messages, tools: [WEATHER], tool_choice: 'auto' });
      expect(res.choices[0]!.message.content).to.equal('Echo: tool result {"temp": 21}');
      expect(res.choices[0]!.finish_reason).to.equal('stop');
      expect(res.choices[0]!.message.tool_calls).to.equal(undefined);
    });

    it('a forced tool without a schema, or not among the tools, gets {} and does not throw', () => {
      const res = echoCompletion({
        messages: [user('x')],
        tools: [{ type: 'function', function: { name: 'ping' } }],
        tool_choice: { type: 'function', function: { name: 'missing' } },
      });
      expect(res.choices[0]!.message.tool_calls![0]!.function).to.deep.equal({ name: 'missing', arguments: '{}' });
      const req = echoCompletion({ messages: [user('x')], tools: [{ type: 'function', function: { name: 'ping' } }], tool_choice: 'required' });
      expect(req.choices[0]!.message.tool_calls![0]!.function).to.deep.equal({ name: 'ping', arguments: '{}' });
      // required without tools has nothing to call: text.
      expect(echoCompletion({ messages: [user('x')], tool_choice: 'required' }).choices[0]!.message.content).to.equal('Echo: x');
    });

    it('max_tokens cuts tool-call arguments with finish_reason length', () => {
      const res = echoCompletion({ messages: [user('book it')], tools: [BOOK], tool_choice: 'required', max_tokens: 10 });
      const choice = res.choices[0]!;
      expect(choice.finish_reason).to.equal('length');
      expect(res.usage!.completion_tokens).to.be.at.most(10);
      expect(choice.message.tool_calls![0]!.function.name).to.equal('book_room');
    });
  });

  describe('response_format', () => {
    it('json_schema gives a minimal object valid for the schema', () => {
      const res = echoCompletion({
        messages: [user('abc')],
        response_format: { type: 'json_schema', json_schema: { name: 'booking', schema: BOOKING_SCHEMA, strict: true } },
      });
      const value = JSON.parse(res.choices[0]!.message.content!);
      validates(BOOKING_SCHEMA, value);
      expect(value.guest.name).to.equal('abc');
      expect(value.guest.age).to.equal(18);
      expect(value.rooms[0].beds).to.equal(2);
      expect(value.price).to.equal(0.25);
      expect(value.note).to.equal('abc');
    });

    it('json_object gives {"echo": <text>}', () => {
      const res = echoCompletion({ messages: [user('hi "there"')], response_format: { type: 'json_object' } });
      expect(res.choices[0]!.message.content).to.equal(JSON.stringify({ echo: 'hi "there"' }));
      expect(JSON.parse(res.choices[0]!.message.content!)).to.deep.equal({ echo: 'hi "there"' });
    });

    it('minimalValue: const or first enum value, required properties only, minItems items, first non-null branch', () => {
      expect(minimalValue({ type: 'object', properties: { a: { const: 7 }, b: { enum: ['x', 'y'] }, c: { type: 'string' } }, required: ['a', 'b'] }, 't')).to.deep.equal({ a: 7, b: 'x' });
      expect(minimalValue({ type: 'array', items: { type: 'integer', minimum: 3 }, minItems: 2 })).to.deep.equal([3, 3]);
      expect(minimalValue({ oneOf: [{ type: 'null' }, { type: 'boolean' }] })).to.equal(false);
      expect(minimalValue({ type: ['null', 'string'] }, 'hi')).to.equal('hi');
      expect(minimalValue({ $defs: { n: { type: 'number' } }, $ref: '#/$defs/n' })).to.equal(0);
      // A required property the schema does not describe takes additionalProperties' schema.
      expect(minimalValue({ type: 'object', required: ['k'], additionalProperties: { type: 'string' } }, 'v')).to.deep.equal({ k: 'v' });
      expect(minimalValue(JSON.parse('{"type":"object","properties":{"__proto__":{"type":"integer"}},"required":["__proto__"]}'))).to.satisfy(
        (v: object) => Object.hasOwn(v, '__proto__') && JSON.stringify(v) === '{"__proto__":0}',
      );
    });

    it('minimalValue stays bounded on hostile schemas', () => {
      // Self-recursive schemas end at the depth or node bound instead of recursing forever.
      const recursive = { $defs: { a: { anyOf: [{ $ref: '#/$defs/a' }, { type: 'string' }] } }, $ref: '#/$defs/a' };
      expect(minimalValue(recursive, 'x')).to.equal(null);
      const required = { $defs: { n: { type: 'object', properties: { next: { $ref: '#/$defs/n' } }, required: ['next'] } }, $ref: '#/$defs/n' };
      expect(JSON.stringify(minimalValue(required)).length).to.be.below(1000);
      const wide = { type: 'array', minItems: 1e9, items: { type: 'array', minItems: 1e9, items: { type: 'array', minItems: 1e9 } } };
      expect(minimalValue(wide)).to.have.length(16);
      // Caller patterns are never run: the user's text stands as it is.
      expect(minimalValue({ type: 'string', pattern: '^(a+)+$' }, 'a'.repeat(40) + '!')).to.equal('a'.repeat(40) + '!');
  });
  });

  describe('streaming', () => {
    const cases: [string, UpstreamChatRequest][] = [
      ['plain text', { messages: [user('Hello streaming world, this is a somewhat longer sentence with averyveryverylongwordindeed.')] }],
      ['tool calls', { messages: [user('use get_weather and book_room')], tools: [WEATHER, BOOK] }],
      ['json_schema', { messages: [user('x')], response_format: { type: 'json_schema', json_schema: { name: 'b', schema: BOOKING_SCHEMA } } }],
      ['truncated', { messages: [user('one two three four five six')], max_tokens: 3 }],
      ['n = 2', { messages: [user('two of us')], n: 2 }],
      ['emoji', { messages: [user('🙂🙂🙂🙂🙂🙂🙂🙂🙂🙂🙂🙂🙂🙂🙂🙂🙂🙂')] }],
    ];
    for (const [name, request] of cases) {
      it(`reassembles to exactly the non-stream answer: ${name}`, async () => {
        const chunks = await collect(echoStream(request));
        expectStreamMatches(chunks, echoCompletion(request));
        expect(chunks.length).to.be.greaterThan(3);
        expect(chunks.every((c) => c.usage === undefined)).to.equal(true);
      });
    }

    it('splits text into several small deltas, role first and finish_reason last', async () => {
      const chunks = await collect(echoStream({ messages: [user('a b c d e f')] }));
      const deltas = chunks.map((c) => c.choices[0]!.delta);
      expect(deltas[0]).to.deep.equal({ role: 'assistant', content: '' });
      expect(deltas.slice(1, -1).map((d) => d.content)).to.deep.equal(['Echo:', ' a', ' b', ' c', ' d', ' e', ' f']);
      expect(chunks.at(-1)!.choices[0]!.finish_reason).to.equal('stop');
      expect(chunks.slice(0, -1).every((c) => c.choices[0]!.finish_reason === null)).to.equal(true);
    });

    it('sends the tool call id and name first, then the arguments in pieces', async () => {
      const chunks = await collect(echoStream({ messages: [user('book it')], tools: [BOOK], tool_choice: 'required' }));
      const first = chunks[0]!.choices[0]!.delta;
      expect(first.role).to.equal('assistant');
      expect(first.content).to.equal(null);
      const head = chunks[1]!.choices[0]!.delta.tool_calls![0]!;
      expect(head).to.include({ index: 0, type: 'function' });
      expect(head.id).to.be.a('string');
      expect(head.function).to.deep.equal({ name: 'book_room', arguments: '' });
      const argChunks = chunks.filter((c) => c.choices[0]?.delta.tool_calls?.[0]?.function?.arguments);
      expect(argChunks.length).to.be.greaterThan(3);
      expect(chunks.at(-1)!.choices[0]!.finish_reason).to.equal('tool_calls');
    });

    it('adds a usage chunk when stream_options.include_usage is set', async () => {
      const request: UpstreamChatRequest = { messages: [user('count me')], stream_options: { include_usage: true } };
      const chunks = await collect(echoStream(request));
      const last = chunks.at(-1)!;
      expect(last.choices).to.deep.equal([]);
      expect(last.usage).to.deep.equal(echoCompletion(request).usage);
      expect(chunks.at(-2)!.choices[0]!.finish_reason).to.equal('stop');
      expect(chunks.slice(0, -1).every((c) => c.usage === undefined)).to.equal(true);
    });

    it('streams 100,000 characters', async () => {
      const text = 'word '.repeat(20_000);
      const request: UpstreamChatRequest = { messages: [user(text)] };
      const chunks = await collect(echoStream(request));
      expectStreamMatches(chunks, echoCompletion(request));
    });
  });
});

describe('local adapter', () => {
  const catalog = loadCatalog({ env: {} });
  const local = catalog.providers.get('local')!;
  const echo: UpstreamTarget = { provider: local, upstreamModel: 'echo', modelId: 'local/echo' };
  const embed: UpstreamTarget = { provider: local, upstreamModel: 'embed-1024', modelId: 'local/embed-1024' };
  const adapter = createLocalAdapter();
  const live = () => new AbortController().signal;

  after(() => adapter.close());

  it('serves the catalogue’s local models', () => {
    const models = [...catalog.models.values()].filter((m) => m.endpoints.some((e) => e.provider === 'local'));
    expect(models.map((m) => [m.id, m.endpoints[0]!.upstreamModel])).to.deep.include.members([
      ['local/echo', 'echo'],
      ['local/embed-1024', 'embed-1024'],
    ]);
  });

  it('supports every upstream parameter', () => {
    const params = adapter.supportedParameters(echo);
    for (const p of ['temperature', 'max_tokens', 'max_completion_tokens', 'tools', 'tool_choice', 'response_format', 'reasoning_effort', 'n', 'stop', 'seed', 'user'] as const) {
      expect(params.has(p), p).to.equal(true);
    }
    expect(params.size).to.equal(19);
  });

  it('complete and stream answer with echo', async () => {
    const request: UpstreamChatRequest = { messages: [user('hello')], stream_options: { include_usage: true } };
    const res = await adapter.complete(echo, request, live());
    expect(res.choices[0]!.message.content).to.equal('Echo: hello');
    const { chunks } = await adapter.stream(echo, request, live());
    const all = await collect(chunks);
    expectStreamMatches(all, res);
    expect(all.at(-1)!.usage).to.deep.equal(res.usage);
  });

  it('embeds with local/embed-1024: 1024 floats per input, in order, with usage', async () => {
    const input = ['Verzekering opzeggen', 'Résilier l’assurance', 'The office is in Utrecht.'];
    const out = await adapter.embed(embed, { input }, live());
    expect(out.embeddings).to.have.length(3);
    const expected = embedBatch(input).map(toNumberArray);
    out.embeddings.forEach((v, i) => {
      expect(v).to.have.length(1024);
      expect(v.every((x) => typeof x === 'number' && Number.isFinite(x))).to.equal(true);
      expect(v).to.deep.equal(expected[i]);
    });
    const tokens = input.reduce((n, t) => n + countTokens(t), 0);
    expect(out.usage).to.deep.equal({ prompt_tokens: tokens, total_tokens: tokens });

    const many = Array.from({ length: 70 }, (_, i) => `passage ${i}`);
    const big = await adapter.embed(embed, { input: many, dimensions: 1024 }, live());
    expect(big.embeddings[69]).to.deep.equal(toNumberArray(embedBatch(['passage 69'])[0]!));
  });

  it('answers a large chat and a large batch with the same results while the event loop goes on', async () => {
    // A megabyte of addresses: tokenizing and echoing it takes most of a second.
    const text = Array.from({ length: 30_000 }, (_, i) => `Lindenweg ${i % 200}, ${10_000 + i} Köln`).join('\n');
    const request: UpstreamChatRequest = { messages: [user(text)], max_tokens: 5, stream_options: { include_usage: true } };
    const input = Array.from({ length: 64 }, (_, i) => `passage ${i} ${text.slice(i * 1000, i * 1000 + 8000)}`);
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 5);
    try {
      const answered = await adapter.complete(echo, request, live());
      expect(answered.choices).to.deep.equal(echoCompletion(request).choices);
      expect(answered.usage).to.deep.equal(echoCompletion(request).usage);
      const { chunks } = await adapter.stream(echo, request, live());
      expectStreamMatches(await collect(chunks), answered);
      const embedded = await adapter.embed(embed, { input }, live());
      expect(embedded.embeddings).to.deep.equal(embedBatch(input).map(toNumberArray));
      const tokens = input.reduce((n, t) => n + countTokens(t), 0);
      expect(embedded.usage).to.deep.equal({ prompt_tokens: tokens, total_tokens: tokens });
    } finally {
      clearInterval(ticker);
    }
    // Computed on the provider's thread: the timer ran meanwhile, as other requests would.
    expect(ticks).to.be.above(10);
  });

  it('answers unknown models and the wrong kind with an upstream 404', async () => {
    const unknown = { ...echo, upstreamModel: 'nope', modelId: 'local/nope' };
    for (const call of [
      () => adapter.complete(unknown, { messages: [user('x')] }, live()),
      () => adapter.stream(embed, { messages: [user('x')] }, live()),
      () => adapter.embed(echo, { input: ['x'] }, live()),
    ]) {
      const err = await call().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).to.be.instanceOf(UpstreamError);
      expect((err as UpstreamError).kind).to.equal('status');
      expect((err as UpstreamError).status).to.equal(404);
      expect((err as UpstreamError).retryable).to.equal(false);
    }
  });

  it('respects the abort signal', async () => {
    const aborted = AbortSignal.abort();
    for (const call of [
      () => adapter.complete(echo, { messages: [user('x')] }, aborted),
      () => adapter.stream(echo, { messages: [user('x')] }, aborted),
      () => adapter.embed(embed, { input: ['x'] }, aborted),
    ]) {
      const err = await call().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).to.be.instanceOf(UpstreamError);
      expect((err as UpstreamError).kind).to.equal('aborted');
    }

    const controller = new AbortController();
    const { chunks } = await adapter.stream(echo, { messages: [user('a b c d e f g h')] }, controller.signal);
    const seen: UpstreamChunk[] = [];
    const err = await (async () => {
      for await (const chunk of chunks) {
        seen.push(chunk);
        if (seen.length === 2) controller.abort();
      }
    })().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(seen).to.have.length(2);
    expect((err as UpstreamError).kind).to.equal('aborted');
  });
});
