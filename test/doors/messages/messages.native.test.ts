import Anthropic from '@anthropic-ai/sdk';
import { expect } from 'chai';
import OpenAI from 'openai';
import { changeNonEuAcceptance } from '../../../src/tenancy/keys.js';
import { api, startTestApp, type TestApp } from '../../helpers/app.js';
import { waitFor } from '../../helpers/db.js';
import { startMessagesStub, type MessagesStub, type StubBlock } from '../../helpers/messagesStub.js';
import { startStubProvider, type StubProvider } from '../../helpers/stubProvider.js';
import { FREE_SERVICES, LOCAL_EMBED_MODEL, loadTestCatalog } from '../../helpers/catalog.js';
import { createCollection, ingest, settled } from '../../memory/documentsFixture.js';

// The native adapter (catalogue `kind: anthropic`): the Messages API upstream, reached through the
// Messages door and through /v1/chat/completions, with prompt-cache usage billed at cache prices
// and a fallback to an OpenAI-compatible provider before the first output.

describe('the native Anthropic adapter (kind: anthropic) behind /v1/messages and /v1/chat/completions', () => {
  let native: MessagesStub;
  let compatible: StubProvider;
  let app: TestApp;
  let key: string;
  let client: Anthropic;
  before(async () => {
    [native, compatible] = await Promise.all([startMessagesStub(), startStubProvider()]);
    const { catalog } = loadTestCatalog(
      `
providers:
  - {id: claude, region: external, kind: anthropic, base_url: "${native.url}", api_key: "\${STUB_KEY}", timeout_ms: 2000}
  - {id: eu-compatible, region: eu, kind: openai, base_url: "${compatible.url}", api_key: "\${STUB_KEY}", timeout_ms: 2000}
  - {id: eu-openai-like, region: eu, kind: openai, profile: openai, base_url: "${compatible.url}", api_key: "\${STUB_KEY}", timeout_ms: 2000}
  - {id: local, region: eu, kind: local}
models:
  - id: test/claude
    type: chat
    context_length: 200000
    pricing: {prompt: 3, completion: 15, cache_read: 0.3, cache_write: 3.75}
    capabilities: [tools, vision]
    reasoning_effort: [none, minimal, low, medium, high]
    endpoints:
      - {provider: claude, upstream_model: claude-stub}
      - {provider: eu-compatible, upstream_model: compatible-fallback}
  - id: test/gpt
    type: chat
    context_length: 128000
    pricing: {prompt: 1, completion: 4}
    capabilities: [tools, vision]
    endpoints:
      - {provider: eu-openai-like, upstream_model: gpt-stub}
${LOCAL_EMBED_MODEL}
aliases: {}
${FREE_SERVICES}
`,
      { STUB_KEY: 'sk-ant-stub-secret' },
    );
    app = await startTestApp({ catalog });
    const created = await app.key({ org: 'claude-users', workspace: 'w' });
    key = created.key;
    await changeNonEuAcceptance(app.db.pool, 'claude-users', 'sofie');
    client = new Anthropic({ baseURL: app.baseUrl, apiKey: key, maxRetries: 0 });
  });
  after(async () => {
    await app.close();
    await Promise.all([native.close(), compatible.close()]);
  });
  beforeEach(() => {
    native.reset();
    compatible.reset();
  });

  it('speaks the Messages API upstream: system, tool_use and tool_result blocks, key and version headers', async () => {
    native.script({ type: 'answer', blocks: [{ type: 'text', text: 'Polis 42 dekt inboedel.' }] });
    const message = await client.messages.create({
      model: 'test/claude',
      max_tokens: 300,
      system: 'Wees kort.',
      tools: [{ name: 'lookup', input_schema: { type: 'object', properties: { n: { type: 'string' } } } }],
      tool_choice: { type: 'auto' },
      messages: [
        { role: 'user', content: 'Zoek polis 42' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_9', name: 'lookup', input: { n: '42' } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_9', content: 'inboedel' }] },
      ],
    });
    expect(message.content).to.deep.equal([{ type: 'text', text: 'Polis 42 dekt inboedel.' }]);
    const sent = native.requests[0]!;
    expect(sent.path).to.equal('/v1/messages');
    expect(sent.headers['x-api-key']).to.equal('sk-ant-stub-secret');
    expect(sent.headers['anthropic-version']).to.equal('2023-06-01');
    expect(sent.body.model).to.equal('claude-stub');
    expect(sent.body.max_tokens).to.equal(300);
    expect(sent.body.system).to.equal('Wees kort.');
    expect(sent.body.tools).to.deep.equal([{ name: 'lookup', input_schema: { type: 'object', properties: { n: { type: 'string' } } } }]);
    expect(sent.body.tool_choice).to.deep.equal({ type: 'auto' });
    expect(sent.body.messages).to.deep.equal([
      { role: 'user', content: [{ type: 'text', text: 'Zoek polis 42' }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_9', name: 'lookup', input: { n: '42' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_9', content: 'inboedel' }] },
    ]);
  });

  it('answers text, a call, more text and a call in the order the provider gave them, as JSON as in the stream', async () => {
    const blocks: StubBlock[] = [
      { type: 'text', text: 'Eerst polis 1.' },
      { type: 'tool_use', id: 'toolu_a', name: 'lookup', input: { n: '1' } },
      { type: 'text', text: 'Dan polis 2.' },
      { type: 'tool_use', id: 'toolu_b', name: 'lookup', input: { n: '2' } },
    ];
    const tools = [{ name: 'lookup', input_schema: { type: 'object' as const, properties: { n: { type: 'string' } } } }];
    const ask = { model: 'test/claude', max_tokens: 300, tools, messages: [{ role: 'user' as const, content: 'Zoek polis 1 en 2' }] };
    native.script({ type: 'answer', blocks, stopReason: 'tool_use' });
    const message = await client.messages.create({ ...ask });
    expect(message.content).to.deep.equal(blocks);
    native.script({ type: 'answer', blocks, stopReason: 'tool_use' });
    const streamed = await client.messages.stream({ ...ask, messages: [{ role: 'user', content: 'Zoek polis 1 en 2, graag' }] }).finalMessage();
    expect(streamed.content).to.deep.equal(blocks);
  });

  it('reports Anthropic’s refusal as refusal, and an answer cut by the context window as max_tokens, not as a finished turn', async () => {
    native.script({ type: 'answer', blocks: [{ type: 'text', text: 'Nee.' }], stopReason: 'refusal' });
    const refused = await client.messages.create({ model: 'test/claude', max_tokens: 100, messages: [{ role: 'user', content: 'Iets verbodens' }] });
    expect(refused.stop_reason).to.equal('refusal');
    native.script({ type: 'answer', blocks: [{ type: 'text', text: 'Het begin' }], stopReason: 'model_context_window_exceeded' });
    const cut = await client.messages.create({ model: 'test/claude', max_tokens: 100, messages: [{ role: 'user', content: 'Schrijf veel' }] });
    expect(cut.stop_reason).to.equal('max_tokens');
  });

  it("gives a native provider a failed tool's is_error as it came, and tells any other provider in the text", async () => {
    // QA: the native provider got "Error: boom" and no is_error, from Claude Code's failed Reads.
    const messages = [
      { role: 'user' as const, content: 'Lees het bestand' },
      { role: 'assistant' as const, content: [{ type: 'tool_use' as const, id: 'toolu_e', name: 'lookup', input: { n: 'x' } }] },
      { role: 'user' as const, content: [{ type: 'tool_result' as const, tool_use_id: 'toolu_e', is_error: true, content: 'boom' }] },
    ];
    const tools = [{ name: 'lookup', input_schema: { type: 'object' as const, properties: { n: { type: 'string' } } } }];
    native.script({ type: 'answer', blocks: [{ type: 'text', text: 'Dat mislukte.' }] });
    await client.messages.create({ model: 'test/claude', max_tokens: 100, tools, messages });
    expect(native.requests[0]!.body.messages[2]).to.deep.equal({ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_e', content: 'boom', is_error: true }] });
    await client.messages.create({ model: 'test/gpt', max_tokens: 100, tools, messages });
    expect(compatible.requests.at(-1)!.body.messages[2]).to.deep.include({ role: 'tool', tool_call_id: 'toolu_e', content: 'Error: boom' });
  });

  it('keeps an image in the tool_result it came in for a native provider, and sends it after the tool results to any other', async () => {
    // QA: Claude Code's Read of a PNG reached the native provider as an empty tool_result, its image
    // after an unrelated tool result.
    const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
    const messages = [
      { role: 'user' as const, content: 'Bekijk de schermafdruk en de lijst' },
      {
        role: 'assistant' as const,
        content: [
          { type: 'tool_use' as const, id: 'toolu_img', name: 'lookup', input: { n: 'a.png' } },
          { type: 'tool_use' as const, id: 'toolu_ls', name: 'lookup', input: { n: 'ls' } },
        ],
      },
      {
        role: 'user' as const,
        content: [
          { type: 'tool_result' as const, tool_use_id: 'toolu_img', content: [{ type: 'image' as const, source: { type: 'base64' as const, media_type: 'image/png' as const, data: png } }] },
          { type: 'tool_result' as const, tool_use_id: 'toolu_ls', content: 'a.png b.txt' },
        ],
      },
    ];
    const tools = [{ name: 'lookup', input_schema: { type: 'object' as const, properties: { n: { type: 'string' } } } }];
    native.script({ type: 'answer', blocks: [{ type: 'text', text: 'Gezien.' }] });
    await client.messages.create({ model: 'test/claude', max_tokens: 100, tools, messages });
    expect(native.requests[0]!.body.messages[2]).to.deep.equal({
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'toolu_img', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: png } }] },
        { type: 'tool_result', tool_use_id: 'toolu_ls', content: 'a.png b.txt' },
      ],
    });
    await client.messages.create({ model: 'test/gpt', max_tokens: 100, tools, messages });
    const sent = compatible.requests.at(-1)!.body.messages;
    expect(sent.slice(2)).to.deep.equal([
      { role: 'tool', tool_call_id: 'toolu_img', content: '' },
      { role: 'tool', tool_call_id: 'toolu_ls', content: 'a.png b.txt' },
      { role: 'user', content: [{ type: 'image_url', image_url: { url: `data:image/png;base64,${png}` } }] },
    ]);
  });

  it('streams tool input that arrives in input_json_delta pieces whole to the SDK', async () => {
    native.script({
      type: 'answer',
      blocks: [
        { type: 'thinking', thinking: 'Even nadenken.', signature: 'sig-abc' },
        { type: 'text', text: 'Ik zoek het op. ' },
        { type: 'tool_use', id: 'toolu_1', name: 'lookup', input: { n: '42', note: 'één ✓' } },
      ],
      jsonPiece: 3,
    });
    const stream = client.messages.stream({
      model: 'test/claude',
      max_tokens: 100,
      tools: [{ name: 'lookup', input_schema: { type: 'object', properties: {} } }],
      messages: [{ role: 'user', content: 'Zoek polis 42' }],
    });
    const message = await stream.finalMessage();
    expect(message.stop_reason).to.equal('tool_use');
    expect(message.content).to.deep.equal([
      { type: 'thinking', thinking: 'Even nadenken.', signature: 'sig-abc' },
      { type: 'text', text: 'Ik zoek het op. ' },
      { type: 'tool_use', id: 'toolu_1', name: 'lookup', input: { n: '42', note: 'één ✓' } },
    ]);
  });

  it('returns thinking blocks with their signatures byte-identical, and passes them back as they came', async () => {
    const thought = { type: 'thinking' as const, thinking: 'De klant vraagt naar polis 42.\nDus: 42 × 2 = 84 ✓ "quoted" \\ backslash', signature: 'EqQBCkYIBxgCKkA+/0/9z=\u00e9' };
    const redacted = { type: 'redacted_thinking' as const, data: 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP' };
    native.script({ type: 'answer', blocks: [thought, { type: 'text', text: 'Antwoord.' }] });
    const message = await client.messages.create({ model: 'test/claude', max_tokens: 2000, thinking: { type: 'enabled', budget_tokens: 1024 }, messages: [{ role: 'user', content: 'Denk na' }] });
    expect(message.content[0]).to.deep.equal(thought);
    expect(message.content[1]).to.deep.equal({ type: 'text', text: 'Antwoord.' });

    native.script({ type: 'answer', blocks: [thought, { type: 'text', text: 'Gestreamd.' }] });
    const streamed = await client.messages.stream({ model: 'test/claude', max_tokens: 2000, messages: [{ role: 'user', content: 'Denk gestreamd na' }] }).finalMessage();
    expect(streamed.content[0]).to.deep.equal(thought);

    await client.messages.create({
      model: 'test/claude',
      max_tokens: 2000,
      messages: [
        { role: 'user', content: 'Denk na' },
        { role: 'assistant', content: [redacted, thought, { type: 'text', text: 'Antwoord.' }] },
        { role: 'user', content: 'En nu?' },
      ],
    });
    const sentBack = native.requests.at(-1)!.body.messages[1].content;
    expect(sentBack[0]).to.deep.equal(redacted);
    expect(sentBack[1]).to.deep.equal(thought);
  });

  it('keeps thinking within the answer cap that limits and budgets reserve, never raising max_tokens for it', async () => {
    // A cap too small for Anthropic's smallest budget (1,024): no thinking, rather than a provider
    // asked for 8,208 tokens while the limits reserved 16.
    await client.messages.create({ model: 'test/claude', max_tokens: 16, thinking: { type: 'adaptive' } as never, messages: [{ role: 'user', content: 'Denk kort na' }] });
    let sent = native.requests.at(-1)!.body;
    expect(sent.max_tokens).to.equal(16);
    expect(sent).not.to.have.property('thinking');

    // A budget the cap cannot hold is bounded as a level's is: three quarters of the cap.
    await client.messages.create({ model: 'test/claude', max_tokens: 2000, thinking: { type: 'enabled', budget_tokens: 4000 }, messages: [{ role: 'user', content: 'Denk even na' }] });
    sent = native.requests.at(-1)!.body;
    expect(sent.max_tokens).to.equal(2000);
    expect(sent.thinking).to.deep.equal({ type: 'enabled', budget_tokens: 1500 });

    // Without a cap, the model's default cap (catalogue max_output_tokens, 4,096 here), which is what rate limits count.
    const openai = new OpenAI({ baseURL: `${app.baseUrl}/v1`, apiKey: key, maxRetries: 0 });
    await openai.chat.completions.create({ model: 'test/claude', reasoning_effort: 'high', messages: [{ role: 'user', content: 'Denk lang na' }] });
    sent = native.requests.at(-1)!.body;
    expect(sent.max_tokens).to.equal(4096);
    expect(sent.thinking).to.deep.equal({ type: 'enabled', budget_tokens: 3072 });
  });

  it('sends the caller’s thinking settings as given: an exact budget, adaptive as adaptive, effort as output_config.effort', async () => {
    // Over plain HTTP: the SDK will not send 32,000 max_tokens without streaming.
    const ask = async (settings: Record<string, unknown>) => {
      const res = await api(app.baseUrl, '/v1/messages', { method: 'POST', key, body: { model: 'test/claude', max_tokens: 32000, cache: false, ...settings, messages: [{ role: 'user', content: 'Denk na' }] } });
      expect(res.status).to.equal(200);
      return native.requests.at(-1)!.body;
    };
    for (const budget of [20000, 1024, 5000]) {
      const sent = await ask({ thinking: { type: 'enabled', budget_tokens: budget } });
      expect(sent.thinking).to.deep.equal({ type: 'enabled', budget_tokens: budget });
      expect(sent.max_tokens).to.equal(32000);
    }
    expect((await ask({ thinking: { type: 'adaptive' } })).thinking).to.deep.equal({ type: 'adaptive' });
    // Anthropic refuses `enabled` without a budget; the door serves it at the medium level's budget.
    expect((await ask({ thinking: { type: 'enabled' } })).thinking).to.deep.equal({ type: 'enabled', budget_tokens: 8192 });
    expect((await ask({ thinking: { type: 'adaptive', display: 'omitted' } })).thinking).to.deep.equal({ type: 'adaptive', display: 'omitted' });
    // Anthropic refuses a client tool without input_schema; the door offers it as one taking an empty object.
    expect((await ask({ tools: [{ name: 'ping', description: 'Ping' }] })).tools).to.deep.equal([{ name: 'ping', description: 'Ping', input_schema: { type: 'object', properties: {} } }]);
    expect((await ask({ thinking: { type: 'disabled' }, temperature: 0.2 }))).to.deep.include({ thinking: { type: 'disabled' }, temperature: 0.2 });

    const effortAlone = await ask({ output_config: { effort: 'max' } });
    expect(effortAlone.output_config).to.deep.equal({ effort: 'max' });
    expect(effortAlone).not.to.have.property('thinking');
    // As Claude Code sends them.
    const both = await ask({ thinking: { type: 'adaptive' }, output_config: { effort: 'high' } });
    expect(both).to.deep.include({ thinking: { type: 'adaptive' }, output_config: { effort: 'high' } });

    // The same request falling back to an OpenAI-compatible provider asks for the reasoning level it stands for.
    native.script({ type: 'status', status: 503 });
    await ask({ thinking: { type: 'enabled', budget_tokens: 20000 }, cache: false });
    const compatibleBody = compatible.requests.at(-1)!.body;
    expect(compatibleBody.reasoning_effort).to.equal('high');
    expect(compatibleBody).not.to.have.property('thinking');
  });

  it('passes back a thinking block that holds placeholders, and leaves out one that holds personal data in clear', async () => {
    const masked = { type: 'thinking' as const, thinking: 'De klant [PERSON_1] wil betalen naar [IBAN_1].', signature: 'sig-1' };
    const clear = { type: 'thinking' as const, thinking: 'Mail noor.devries@example.nl terug.', signature: 'sig-2' };
    await client.messages.create({
      model: 'test/claude',
      max_tokens: 100,
      messages: [
        { role: 'user', content: 'Betaal Noor de Vries op NL91ABNA0417164300' },
        { role: 'assistant', content: [masked, clear, { type: 'text', text: 'Goed.' }] },
        { role: 'user', content: 'Dank' },
      ],
    });
    const sent = native.requests.at(-1)!.body;
    expect(JSON.stringify(sent)).not.to.contain('noor.devries@example.nl');
    expect(sent.messages[1].content[0]).to.deep.equal(masked);
    expect(sent.messages[1].content.filter((b: { type: string }) => b.type === 'thinking')).to.have.length(1);
  });

  describe('a tool loop whose thinking cannot be sent back', () => {
    const tools = [{ name: 'mail', input_schema: { type: 'object' as const, properties: { to: { type: 'string' } } } }];
    /** Claude Code's second request of a tool loop: its first answer, thinking first, then the tool's result. */
    const loop = (thinking: Anthropic.ThinkingBlockParam, text: string) => ({
      model: 'test/claude',
      max_tokens: 4000,
      thinking: { type: 'enabled' as const, budget_tokens: 2000 },
      tools,
      messages: [
        { role: 'user' as const, content: text },
        { role: 'assistant' as const, content: [thinking, { type: 'tool_use' as const, id: 'toolu_loop', name: 'mail', input: { to: 'klant' } }] },
        { role: 'user' as const, content: [{ type: 'tool_result' as const, tool_use_id: 'toolu_loop', content: 'verstuurd' }] },
      ],
    });
    const traceNotes = async (id: string): Promise<string> =>
      (await waitFor(async () => (await api(app.baseUrl, `/v1/traces/${id}`, { key })).body.notes as string[] | undefined, { what: `the trace of ${id}` })).join(' ');

    it('answers without thinking when the firewall left out the thinking that began it (personal data in clear)', async () => {
      native.script({ type: 'answer', blocks: [{ type: 'text', text: 'De mail is verstuurd.' }] });
      const withLoop = new Anthropic({ baseURL: app.baseUrl, apiKey: key, maxRetries: 0, defaultHeaders: { 'x-request-id': 'loop-firewall-1' } });
      const stream = withLoop.messages.stream(loop({ type: 'thinking', thinking: 'Mail noor.devries@example.nl terug.', signature: 'sig-mail' }, 'Mail de klant terug'));
      const message = await stream.finalMessage();
      expect(message.content).to.deep.equal([{ type: 'text', text: 'De mail is verstuurd.' }]);
      const sent = native.requests.at(-1)!.body;
      expect(sent).not.to.have.property('thinking');
      expect(JSON.stringify(sent)).not.to.contain('noor.devries@example.nl');
      expect(sent.messages[1].content[0].type).to.equal('tool_use');
      expect(await traceNotes('loop-firewall-1')).to.contain('thinking was left out of the request to claude');
    });

    it('answers without thinking when the loop began on an OpenAI-compatible provider, whose reasoning is unsigned', async () => {
      const res = await api(app.baseUrl, '/v1/messages', {
        method: 'POST',
        key,
        headers: { 'x-request-id': 'loop-fallback-1' },
        body: loop({ type: 'thinking', thinking: 'Ik mail de klant.', signature: '' }, 'Mail de klant nu'),
      });
      expect(res.status).to.equal(200);
      expect(native.requests.at(-1)!.body).not.to.have.property('thinking');
      expect(await traceNotes('loop-fallback-1')).to.contain('thinking was left out');
    });

    it('keeps thinking on when the loop’s signed thinking goes back as it came', async () => {
      await client.messages.create(loop({ type: 'thinking', thinking: 'Ik mail [PERSON_1].', signature: 'sig-ok' }, 'Mail Noor de Vries'));
      const sent = native.requests.at(-1)!.body;
      expect(sent.thinking).to.have.property('type', 'enabled');
      expect(sent.messages[1].content[0]).to.deep.equal({ type: 'thinking', thinking: 'Ik mail [PERSON_1].', signature: 'sig-ok' });
    });
  });

  it('sends a tool_choice that forces a tool without thinking, which Anthropic refuses with it, and notes it', async () => {
    const res = await api(app.baseUrl, '/v1/messages', {
      method: 'POST',
      key,
      headers: { 'x-request-id': 'forced-tool-thinking-1' },
      body: {
        model: 'test/claude',
        max_tokens: 4000,
        thinking: { type: 'enabled', budget_tokens: 2000 },
        tools: [{ name: 'mail', input_schema: { type: 'object', properties: {} } }],
        tool_choice: { type: 'any' },
        messages: [{ role: 'user', content: 'Mail de klant' }],
      },
    });
    expect(res.status).to.equal(200);
    const sent = native.requests.at(-1)!.body;
    expect(sent).not.to.have.property('thinking');
    expect(sent.tool_choice).to.include({ type: 'any' });
    const notes = await waitFor(async () => (await api(app.baseUrl, '/v1/traces/forced-tool-thinking-1', { key })).body.notes as string[] | undefined, {
      what: 'the trace',
    });
    expect(notes.join(' ')).to.contain('Anthropic refuses thinking with a tool_choice that forces a tool (any)');
  });

  /** A second turn whose assistant turn holds `thinking` before its text. */
  const secondTurnAfter = (thinking: Anthropic.ThinkingBlockParam) =>
    client.messages.create({
      model: 'test/claude',
      max_tokens: 100,
      messages: [
        { role: 'user', content: 'Denk na' },
        { role: 'assistant', content: [thinking, { type: 'text', text: 'Antwoord.' }] },
        { role: 'user', content: 'En nu?' },
      ],
    });

  it('drops thinking blocks for an OpenAI-compatible provider', async () => {
    native.script({ type: 'status', status: 503 });
    await secondTurnAfter({ type: 'thinking', thinking: 'hmm', signature: 'sig' });
    expect(JSON.stringify(compatible.requests[0]!.body)).not.to.contain('hmm');
    expect(compatible.requests[0]!.body.messages[1]).to.deep.equal({ role: 'assistant', content: 'Antwoord.' });
  });

  it('keeps prompt-cache marks where the client put them, and drops them for an OpenAI-compatible provider', async () => {
    const ephemeral = { type: 'ephemeral' as const };
    const request = {
      model: 'test/claude',
      max_tokens: 100,
      system: [
        { type: 'text' as const, text: 'Je bent een verzekeringsassistent.' },
        { type: 'text' as const, text: 'Polisvoorwaarden: …', cache_control: { type: 'ephemeral' as const, ttl: '1h' as const } },
      ],
      tools: [{ name: 'lookup', input_schema: { type: 'object' as const, properties: {} }, cache_control: ephemeral }],
      messages: [
        { role: 'user' as const, content: 'Zoek polis 42' },
        { role: 'assistant' as const, content: [{ type: 'tool_use' as const, id: 'toolu_7', name: 'lookup', input: {} }] },
        {
          role: 'user' as const,
          content: [
            { type: 'tool_result' as const, tool_use_id: 'toolu_7', content: 'inboedel', cache_control: ephemeral },
            { type: 'text' as const, text: 'En de premie?', cache_control: ephemeral },
          ],
        },
      ],
    };
    await client.messages.create(request);
    const sent = native.requests.at(-1)!.body;
    expect(sent.system).to.deep.equal([
      { type: 'text', text: 'Je bent een verzekeringsassistent.' },
      { type: 'text', text: 'Polisvoorwaarden: …', cache_control: { type: 'ephemeral', ttl: '1h' } },
    ]);
    expect(sent.tools[0].cache_control).to.deep.equal(ephemeral);
    expect(sent.messages[2].content).to.deep.equal([
      { type: 'tool_result', tool_use_id: 'toolu_7', content: 'inboedel', cache_control: ephemeral },
      { type: 'text', text: 'En de premie?', cache_control: ephemeral },
    ]);

    // The same request, when it falls back to an OpenAI-compatible provider, reaches it unmarked.
    native.script({ type: 'status', status: 503 });
    await client.messages.create({ ...request, cache: false } as typeof request);
    const plain = compatible.requests.at(-1)!.body;
    expect(JSON.stringify(plain)).not.to.contain('cache_control');
    expect(plain.messages[0]).to.deep.equal({ role: 'system', content: 'Je bent een verzekeringsassistent.\nPolisvoorwaarden: …' });
    expect(plain.messages[3]).to.deep.equal({ role: 'tool', tool_call_id: 'toolu_7', content: 'inboedel' });
    expect(plain.messages[4]).to.deep.equal({ role: 'user', content: [{ type: 'text', text: 'En de premie?' }] });
  });

  it('puts the knowledge retrieval found at the start of the last user message, so that system and the turns before it stay the prefix Anthropic cached', async () => {
    // A workspace of its own: its memory is retrieved into every one of its calls.
    const memoryKey = (await app.key({ org: 'claude-users', workspace: 'with-memory' })).key;
    await app.startWorker();
    const collection = await createCollection(app, memoryKey, 'Polissen');
    const document = await ingest(app, memoryKey, { title: 'Inboedel', collection, text: 'Het eigen risico van de inboedelverzekering is 250 euro per gebeurtenis.' });
    expect((await settled(app, memoryKey, document)).status).to.equal('ready');
    const withMemory = new Anthropic({ baseURL: app.baseUrl, apiKey: memoryKey, maxRetries: 0 });
    const ephemeral = { type: 'ephemeral' as const };
    const system = [{ type: 'text' as const, text: 'Je bent een verzekeringsassistent.', cache_control: ephemeral }];
    const tools = [{ name: 'lookup', input_schema: { type: 'object' as const, properties: {} } }];
    const turn = [
      { role: 'user' as const, content: 'Zoek polis 42' },
      { role: 'assistant' as const, content: [{ type: 'tool_use' as const, id: 'toolu_8', name: 'lookup', input: {} }] },
      {
        role: 'user' as const,
        content: [
          { type: 'tool_result' as const, tool_use_id: 'toolu_8', content: 'inboedel' },
          { type: 'text' as const, text: 'Wat is mijn eigen risico?', cache_control: ephemeral },
        ],
      },
    ];
    await withMemory.messages.create({ model: 'test/claude', max_tokens: 100, system, tools, messages: turn });
    const first = native.requests.at(-1)!.body;
    expect(first.system).to.deep.equal([{ type: 'text', text: 'Je bent een verzekeringsassistent.', cache_control: ephemeral }]);
    const asked = first.messages.at(-1).content;
    expect(asked.map((block: any) => block.type)).to.deep.equal(['tool_result', 'text', 'text']);
    expect(asked[1].text).to.match(/^Knowledge retrieved for this conversation\.[^]*250 euro/);
    expect(asked[2]).to.deep.equal({ type: 'text', text: 'Wat is mijn eigen risico?', cache_control: ephemeral });

    // The next question: the knowledge changes with it, the prefix before the new turn does not.
    const next = [...turn, { role: 'assistant' as const, content: 'Uw eigen risico is 250 euro.' }, { role: 'user' as const, content: 'Geldt dat eigen risico per gebeurtenis?' }];
    await withMemory.messages.create({ model: 'test/claude', max_tokens: 100, system, tools, messages: next });
    const second = native.requests.at(-1)!.body;
    expect(second.system).to.deep.equal(first.system);
    expect(second.tools).to.deep.equal(first.tools);
    expect(second.messages.slice(0, 2)).to.deep.equal(first.messages.slice(0, 2));
    expect(second.messages.at(-1).content[0].text).to.match(/^Knowledge retrieved for this conversation\./);
    expect(second.messages.at(-1).content.at(-1)).to.deep.equal({ type: 'text', text: 'Geldt dat eigen risico per gebeurtenis?' });
  });

  it('passes cache_control on chat content parts and tools to a native provider', async () => {
    const res = await api(app.baseUrl, '/v1/chat/completions', {
      method: 'POST',
      key,
      body: {
        model: 'test/claude',
        max_tokens: 20,
        messages: [
          { role: 'system', content: [{ type: 'text', text: 'Lange instructies.', cache_control: { type: 'ephemeral' } }] },
          { role: 'user', content: [{ type: 'text', text: 'Hallo', cache_control: { type: 'ephemeral' } }] },
        ],
      },
    });
    expect(res.status).to.equal(200);
    const sent = native.requests.at(-1)!.body;
    expect(sent.system).to.deep.equal([{ type: 'text', text: 'Lange instructies.', cache_control: { type: 'ephemeral' } }]);
    expect(sent.messages[0].content).to.deep.equal([{ type: 'text', text: 'Hallo', cache_control: { type: 'ephemeral' } }]);
    const refused = await api(app.baseUrl, '/v1/chat/completions', {
      method: 'POST',
      key,
      body: { model: 'test/claude', messages: [{ role: 'user', content: [{ type: 'text', text: 'x', cache_control: { type: 'forever' } }] }] },
    });
    expect(refused.status).to.equal(422);
    expect(Object.keys(refused.body.errors)).to.include('messages.0.content.0.cache_control.type');
  });

  it('shows thinking as a Responses reasoning item whose encrypted_content gives the signed blocks back', async () => {
    const openai = new OpenAI({ baseURL: `${app.baseUrl}/v1`, apiKey: key, maxRetries: 0 });
    const thought = { type: 'thinking' as const, thinking: 'Polis 42: inboedel.', signature: 'sig-resp-1' };
    native.script({ type: 'answer', blocks: [thought, { type: 'text', text: 'Inboedel.' }] });
    const first = await openai.responses.create({ model: 'test/claude', input: 'Wat dekt polis 42?', reasoning: { effort: 'low' } });
    const [reasoning, message] = first.output as [OpenAI.Responses.ResponseReasoningItem, OpenAI.Responses.ResponseOutputMessage];
    expect(reasoning.type).to.equal('reasoning');
    expect(reasoning.content).to.deep.equal([{ type: 'reasoning_text', text: 'Polis 42: inboedel.' }]);
    expect(reasoning.encrypted_content).to.be.a('string');
    expect(message.type).to.equal('message');
    native.script({ type: 'answer', blocks: [thought, { type: 'text', text: 'Inboedel.' }] });
    const streamed = await openai.responses.stream({ model: 'test/claude', input: 'Wat dekt polis 42? (gestreamd)', reasoning: { effort: 'low' } }).finalResponse();
    expect(streamed.output.map((item) => item.type)).to.deep.equal(['reasoning', 'message']);
    expect((streamed.output[0] as OpenAI.Responses.ResponseReasoningItem).encrypted_content).to.equal(reasoning.encrypted_content);

    // Passed back as input items (as Codex does), the blocks reach Anthropic as it signed them.
    await openai.responses.create({
      model: 'test/claude',
      reasoning: { effort: 'low' },
      store: false,
      input: [{ role: 'user', content: 'Wat dekt polis 42?' }, ...(first.output as OpenAI.Responses.ResponseInputItem[]), { role: 'user', content: 'En polis 43?' }],
    });
    expect(native.requests.at(-1)!.body.messages[1].content[0]).to.deep.equal(thought);
    // And through a stored chain.
    await openai.responses.create({ model: 'test/claude', reasoning: { effort: 'low' }, previous_response_id: first.id, input: 'En polis 44?' });
    expect(native.requests.at(-1)!.body.messages[1].content[0]).to.deep.equal(thought);
  });

  it('shows the thinking of a Responses reasoning item restored, and gives its blocks back as signed, masked', async () => {
    // QA with Codex: the reasoning item read "Zoek [PERSON_1] op" while the answer was restored.
    const openai = new OpenAI({ baseURL: `${app.baseUrl}/v1`, apiKey: key, maxRetries: 0 });
    const email = 'noor.devries@example.nl';
    const thought = { type: 'thinking' as const, thinking: 'De klant is [EMAIL_1].', signature: 'sig-resp-masked' };
    for (const stream of [false, true]) {
      native.script({ type: 'answer', blocks: [thought, { type: 'text', text: 'Gevonden: [EMAIL_1]' }] });
      const request = { model: 'test/claude', input: `Zoek ${email} op`, reasoning: { effort: 'low' as const } };
      const response = stream ? await openai.responses.stream(request).finalResponse() : await openai.responses.create(request);
      const reasoning = response.output[0] as OpenAI.Responses.ResponseReasoningItem;
      expect(reasoning.content, `stream: ${stream}`).to.deep.equal([{ type: 'reasoning_text', text: `De klant is ${email}.` }]);
      expect(response.output_text).to.equal(`Gevonden: ${email}`);
      expect(JSON.stringify(native.requests.at(-1)!.body)).not.to.contain(email);
      // Given back, the block is the one Anthropic signed.
      await openai.responses.create({
        model: 'test/claude',
        reasoning: { effort: 'low' },
        store: false,
        input: [{ role: 'user', content: `Zoek ${email} op` }, ...(response.output as OpenAI.Responses.ResponseInputItem[]), { role: 'user', content: 'Dank je' }],
      });
      expect(native.requests.at(-1)!.body.messages[1].content[0]).to.deep.equal(thought);
    }
  });

  it('never sends a thinking block without a signature (another provider’s reasoning) to Anthropic', async () => {
    await secondTurnAfter({ type: 'thinking', thinking: 'van Mistral', signature: '' });
    expect(native.requests.at(-1)!.body.messages[1].content).to.deep.equal([{ type: 'text', text: 'Antwoord.' }]);
  });

  it('says which stop sequence ended the answer, as Anthropic did, through both doors and streamed', async () => {
    const stopped = { type: 'answer' as const, blocks: [{ type: 'text' as const, text: 'Polis 42 dekt inboedel.' }], stopReason: 'stop_sequence', stopSequence: 'EINDE' };
    native.script(stopped);
    const message = await client.messages.create({ model: 'test/claude', max_tokens: 100, stop_sequences: ['EINDE'], messages: [{ role: 'user', content: 'Polis 42?' }] });
    expect(message).to.include({ stop_reason: 'stop_sequence', stop_sequence: 'EINDE' });
    native.script(stopped);
    const streamed = await client.messages.stream({ model: 'test/claude', max_tokens: 100, stop_sequences: ['EINDE'], messages: [{ role: 'user', content: 'Polis 43?' }] }).finalMessage();
    expect(streamed).to.include({ stop_reason: 'stop_sequence', stop_sequence: 'EINDE' });
    native.script(stopped);
    const chat = await api(app.baseUrl, '/v1/chat/completions', { method: 'POST', key, body: { model: 'test/claude', stop: ['EINDE'], messages: [{ role: 'user', content: 'Polis 44?' }] } });
    expect(chat.body.choices[0]).to.include({ finish_reason: 'stop', stop_sequence: 'EINDE' });
    // Without a stop sequence, an ordinary end.
    const plain = await client.messages.create({ model: 'test/claude', max_tokens: 100, messages: [{ role: 'user', content: 'Polis 45?' }] });
    expect(plain).to.include({ stop_reason: 'end_turn', stop_sequence: null });
  });

  it('passes any number of stop sequences: all of them to a native provider; past what a provider takes, dropped with a note, or a 422 in strict mode', async () => {
    const six = ['EINDE', 'STOP', '###', '---', '@@@', '%%%'];
    const ask = (model: string, stop_sequences: string[], extra: Record<string, unknown> = {}, id?: string) =>
      api(app.baseUrl, '/v1/messages', {
        method: 'POST',
        key,
        ...(id ? { headers: { 'x-request-id': id } } : {}),
        body: { model, max_tokens: 50, stop_sequences, cache: false, messages: [{ role: 'user', content: 'Tel tot tien' }], ...extra },
      });
    expect((await ask('test/claude', six)).status).to.equal(200);
    expect(native.requests.at(-1)!.body.stop_sequences).to.deep.equal(six);

    // OpenAI takes at most 4: as with any parameter a provider does not take.
    const dropped = await ask('test/gpt', six, {}, 'stop-six-1');
    expect(dropped.status).to.equal(200);
    expect(compatible.requests.at(-1)!.body).not.to.have.property('stop');
    const trace = await api(app.baseUrl, '/v1/traces/stop-six-1', { key });
    expect(trace.body.dropped_parameters).to.deep.equal(['stop']);
    expect(trace.body.notes.join(' ')).to.contain('eu-openai-like takes at most 4 stop sequences, not 6');
    expect((await ask('test/gpt', six.slice(0, 4))).status).to.equal(200);
    expect(compatible.requests.at(-1)!.body.stop).to.deep.equal(six.slice(0, 4));

    const strict = await ask('test/gpt', six, { provider: { require_parameters: true } });
    expect(strict.status).to.equal(422);
    expect(strict.body.errors['provider.require_parameters']).to.deep.equal(['eu-openai-like takes at most 4 stop sequences, not 6']);
  });

  describe('documents and search results, in tool results and user messages', () => {
    const pdf = Buffer.from('%PDF-1.4 polis').toString('base64');
    const result = {
      type: 'tool_result' as const,
      tool_use_id: 'toolu_docs',
      content: [
        { type: 'text' as const, text: 'Gevonden:' },
        { type: 'document' as const, title: 'Polis 42', context: 'inboedel', source: { type: 'text' as const, media_type: 'text/plain' as const, data: 'Verzekerde: noor.devries@example.nl' } },
        {
          type: 'search_result' as const,
          source: 'https://intranet.example.nl/polissen/42',
          title: 'Voorwaarden',
          content: [{ type: 'text' as const, text: 'Eigen risico 250 euro; vragen aan jan.jansen@example.nl' }],
          citations: { enabled: true },
        },
        {
          type: 'document' as const,
          title: 'polis.pdf',
          context: 'Getekend door noor.devries@example.nl',
          citations: { enabled: true },
          source: { type: 'base64' as const, media_type: 'application/pdf' as const, data: pdf },
        },
        { type: 'tool_reference', tool_name: 'lookup' },
      ],
    };
    const body = (extra: Record<string, unknown> = {}) => ({
      model: 'test/claude',
      max_tokens: 100,
      cache: false,
      tools: [{ name: 'lookup', input_schema: { type: 'object', properties: {} } }],
      messages: [
        { role: 'user', content: 'Zoek polis 42' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_docs', name: 'lookup', input: {} }] },
        { role: 'user', content: [result, { type: 'search_result', source: 'kb://faq/7', title: 'FAQ', content: [{ type: 'text', text: 'Bel 020-1234567' }] }, { type: 'text', text: 'Wat dekt hij?' }] },
      ],
      ...extra,
    });

    it('go to a native provider as they are, masked; a PDF beside the tool result, with its title, context and citations; an unknown block left out and noted', async () => {
      const res = await api(app.baseUrl, '/v1/messages', { method: 'POST', key, headers: { 'x-request-id': 'docs-native-1' }, body: body() });
      expect(res.status).to.equal(200);
      const sent = native.requests.at(-1)!.body;
      expect(JSON.stringify(sent)).not.to.contain('noor.devries@example.nl').and.not.to.contain('jan.jansen@example.nl');
      const [toolResult, pdfBlock, searchResult, text] = sent.messages[2].content;
      expect(toolResult.content.map((block: { type: string }) => block.type)).to.deep.equal(['text', 'document', 'search_result']);
      expect(toolResult.content[1]).to.deep.include({ type: 'document', title: 'Polis 42', context: 'inboedel' });
      expect(toolResult.content[1].source).to.deep.include({ type: 'text', media_type: 'text/plain' });
      expect(toolResult.content[1].source.data).to.match(/^Verzekerde: \[EMAIL_1\]$/);
      expect(toolResult.content[2]).to.deep.include({ type: 'search_result', source: 'https://intranet.example.nl/polissen/42', title: 'Voorwaarden', citations: { enabled: true } });
      expect(toolResult.content[2].content[0].text).to.match(/^Eigen risico 250 euro; vragen aan \[EMAIL_\d\]$/);
      expect(pdfBlock).to.deep.include({ type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: pdf }, title: 'polis.pdf', citations: { enabled: true } });
      expect(pdfBlock.context).to.match(/^Getekend door \[EMAIL_\d\]$/);
      expect(searchResult).to.deep.include({ type: 'search_result', source: 'kb://faq/7', title: 'FAQ' });
      expect(text).to.deep.equal({ type: 'text', text: 'Wat dekt hij?' });
      const trace = await api(app.baseUrl, '/v1/traces/docs-native-1', { key });
      expect(trace.body.notes.join(' ')).to.contain('tool result blocks of a type the door does not serve were left out: tool_reference');
    });

    it('go to an OpenAI-compatible provider as their text, and the PDF as a file part without Anthropic’s settings', async () => {
      native.script({ type: 'status', status: 503 });
      const res = await api(app.baseUrl, '/v1/messages', { method: 'POST', key, body: body() });
      expect(res.status).to.equal(200);
      const messages = compatible.requests.at(-1)!.body.messages;
      expect(JSON.stringify(messages)).not.to.contain('noor.devries@example.nl');
      expect(messages[2].role).to.equal('tool');
      expect(messages[2].content).to.match(/^Gevonden:\nPolis 42\ninboedel\n\nVerzekerde: \[EMAIL_1\]\nVoorwaarden\nhttps:\/\/intranet\.example\.nl\/polissen\/42\n\nEigen risico 250 euro/);
      expect(messages[3].content[0]).to.deep.equal({ type: 'file', file: { file_data: `data:application/pdf;base64,${pdf}`, filename: 'polis.pdf' } });
      expect(messages[3].content[1]).to.deep.equal({ type: 'text', text: 'FAQ\nkb://faq/7\n\nBel [PHONE_1]' });
    });

    it('refuses a document the gateway would have to fetch, inside a tool result as at the top', async () => {
      const res = await api(app.baseUrl, '/v1/messages', {
        method: 'POST',
        key,
        body: body({
          messages: [
            { role: 'user', content: 'Zoek' },
            { role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'lookup', input: {} }] },
            { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: [{ type: 'document', source: { type: 'url', url: 'https://example.nl/a.pdf' } }] }] },
          ],
        }),
      });
      expect(res.status).to.equal(422);
      expect(Object.keys(res.body.errors)).to.deep.equal(['messages.2.content.0.content.0.source']);
    });
  });

  it('sends top_k to a native provider; drops it for one that takes none, listed in the trace’s dropped_parameters; a 422 in strict mode', async () => {
    const ask = (model: string, extra: Record<string, unknown> = {}, id?: string) =>
      api(app.baseUrl, '/v1/messages', {
        method: 'POST',
        key,
        ...(id ? { headers: { 'x-request-id': id } } : {}),
        body: { model, max_tokens: 2000, top_k: 5, cache: false, messages: [{ role: 'user', content: 'Kies een woord' }], ...extra },
      });
    expect((await ask('test/claude', { provider: { require_parameters: true } }, 'top-k-native-1')).status).to.equal(200);
    expect(native.requests.at(-1)!.body.top_k).to.equal(5);
    const served = await api(app.baseUrl, '/v1/traces/top-k-native-1', { key });
    expect(served.body.dropped_parameters).to.deep.equal([]);
    expect(served.body.notes.join(' ')).not.to.contain('top_k');

    expect((await ask('test/gpt', {}, 'top-k-openai-1')).status).to.equal(200);
    expect(compatible.requests.at(-1)!.body).not.to.have.property('top_k');
    const dropped = await api(app.baseUrl, '/v1/traces/top-k-openai-1', { key });
    expect(dropped.body.dropped_parameters).to.deep.equal(['top_k']);
    expect(dropped.body.notes.join(' ')).to.contain('dropped top_k for test/gpt via eu-openai-like: eu-openai-like does not take top_k');

    const strict = await ask('test/gpt', { provider: { require_parameters: true } });
    expect(strict.status).to.equal(422);
    expect(strict.body.errors['provider.require_parameters']).to.deep.equal(['eu-openai-like does not take top_k']);

    // Anthropic takes no top_k (nor temperature) with thinking: dropped as a parameter it does not
    // take, listed in the trace, and refused in strict mode.
    const thinkingOn = { thinking: { type: 'enabled', budget_tokens: 1024 }, temperature: 0.5 };
    expect((await ask('test/claude', thinkingOn, 'top-k-thinking-1')).status).to.equal(200);
    expect(native.requests.at(-1)!.body).to.deep.include({ thinking: { type: 'enabled', budget_tokens: 1024 } }).and.not.have.any.keys('top_k', 'temperature');
    const thinking = await api(app.baseUrl, '/v1/traces/top-k-thinking-1', { key });
    expect(thinking.body.dropped_parameters).to.have.members(['top_k', 'temperature']);
    expect(thinking.body.notes.join(' ')).to.contain('dropped top_k for test/claude via claude: claude takes no top_k with thinking');
    const strictThinking = await ask('test/claude', { ...thinkingOn, provider: { require_parameters: true } });
    expect(strictThinking.status).to.equal(422);
    expect(strictThinking.body.errors['provider.require_parameters']).to.have.members(['claude takes no top_k with thinking', 'claude takes no temperature with thinking', 'eu-compatible does not take top_k']);
    // Thinking switched off leaves both as the caller set them.
    expect((await ask('test/claude', { thinking: { type: 'disabled' }, temperature: 0.5, provider: { require_parameters: true } })).status).to.equal(200);
    expect(native.requests.at(-1)!.body).to.deep.include({ top_k: 5, temperature: 0.5 });
    // So does thinking that is never sent: a forced tool (Anthropic refuses thinking with it), or a
    // reasoning level the model does not take.
    const forcedTool = { ...thinkingOn, tools: [{ name: 'pick', input_schema: { type: 'object' } }], tool_choice: { type: 'any' } };
    expect((await ask('test/claude', forcedTool)).status).to.equal(200);
    expect(native.requests.at(-1)!.body).to.deep.include({ top_k: 5, temperature: 0.5 }).and.not.have.property('thinking');
    const levelNotTaken = await api(app.baseUrl, '/v1/chat/completions', {
      method: 'POST',
      key,
      body: { model: 'test/claude', reasoning_effort: 'xhigh', temperature: 0.2, cache: false, messages: [{ role: 'user', content: 'Kies een woord' }] },
    });
    expect(levelNotTaken.status).to.equal(200);
    expect(native.requests.at(-1)!.body).to.deep.include({ temperature: 0.2 }).and.not.have.property('thinking');
  });

  it('sends a chat’s temperature above 1 to a native provider as 1, and temperature without top_p, each noted on the trace', async () => {
    // QA: temperature 1.7 went as 1 unnoted, and both went, which Anthropic's recent models refuse.
    const res = await api(app.baseUrl, '/v1/chat/completions', {
      method: 'POST',
      key,
      headers: { 'x-request-id': 'sampling-native-1' },
      body: { model: 'test/claude', temperature: 1.7, top_p: 0.9, cache: false, messages: [{ role: 'user', content: 'Kies een woord' }] },
    });
    expect(res.status, res.text).to.equal(200);
    const sent = native.requests.at(-1)!.body;
    expect(sent.temperature).to.equal(1);
    expect(sent).not.to.have.property('top_p');
    const notes = (await api(app.baseUrl, '/v1/traces/sampling-native-1', { key })).body.notes.join(' ');
    expect(notes).to.contain('temperature 1.7 was sent to claude as 1').and.to.contain('top_p was not sent to claude beside temperature');
    // top_p alone goes as it is.
    await api(app.baseUrl, '/v1/chat/completions', { method: 'POST', key, body: { model: 'test/claude', top_p: 0.9, cache: false, messages: [{ role: 'user', content: 'Nog een' }] } });
    expect(native.requests.at(-1)!.body).to.include({ top_p: 0.9 });
  });

  it('lists the cache prices with the model, as the catalogue names them', async () => {
    const model = await api(app.baseUrl, '/v1/models/test/claude', { key });
    expect(model.body.pricing).to.deep.equal({ prompt: 3, completion: 15, cache_read: 0.3, cache_write: 3.75 });
  });

  it('bills cache reads and writes reported by Anthropic at the catalogue’s cache prices', async () => {
    native.script({ type: 'answer', usage: { input_tokens: 1_000, output_tokens: 100, cache_read_input_tokens: 6_000, cache_creation_input_tokens: 3_000 } });
    const res = await api(app.baseUrl, '/v1/messages', {
      method: 'POST',
      key,
      headers: { 'x-request-id': 'native-cache-1' },
      body: { model: 'test/claude', max_tokens: 100, messages: [{ role: 'user', content: 'Lang document' }] },
    });
    expect(res.status).to.equal(200);
    expect(res.body.usage).to.deep.equal({ input_tokens: 1_000, output_tokens: 100, cache_read_input_tokens: 6_000, cache_creation_input_tokens: 3_000 });
    const expected = (1_000 * 3 + 6_000 * 0.3 + 3_000 * 3.75 + 100 * 15) / 1000;
    expect(res.body.credits.base).to.be.closeTo(expected, 1e-8);
    const row = await waitFor(async () => (await app.db.pool.query("select * from usage where request_id = 'native-cache-1'")).rows[0], { what: 'the usage row' });
    expect(row).to.include({ prompt_tokens: 10_000, cached_tokens: 6_000, cache_write_tokens: 3_000, completion_tokens: 100 });
    expect(Number(row.credits_base)).to.be.closeTo(expected, 1e-8);
  });

  it('bills a stream the client closed for the prompt Anthropic counted at message_start, cache reads and writes at the cache prices', async () => {
    native.script({
      type: 'answer',
      blocks: [{ type: 'text', text: 'Een lang antwoord dat de klant niet afwacht.' }],
      usage: { input_tokens: 50, output_tokens: 400, cache_creation_input_tokens: 1_000, cache_read_input_tokens: 2_000 },
      stallAfterFirstDelta: true,
    });
    const controller = new AbortController();
    const response = await fetch(`${app.baseUrl}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json', 'x-request-id': 'closed-native-1' },
      body: JSON.stringify({ model: 'test/claude', max_tokens: 500, stream: true, messages: [{ role: 'user', content: 'Vertel het hele verhaal' }] }),
      signal: controller.signal,
    });
    await response.body!.getReader().read();
    controller.abort();
    const row = await waitFor(async () => (await app.db.pool.query("select * from usage where request_id = 'closed-native-1'")).rows[0], {
      what: 'the usage row of the closed stream',
    });
    expect(row).to.include({ prompt_tokens: 3_050, cached_tokens: 2_000, cache_write_tokens: 1_000, partial: true });
    // What was streamed until then, as the tokenizer counts it (the provider's count comes only at the end).
    expect(row.completion_tokens).to.be.above(0).and.below(400);
    const expected = (50 * 3 + 2_000 * 0.3 + 1_000 * 3.75 + row.completion_tokens * 15) / 1000;
    expect(Number(row.credits_base)).to.be.closeTo(expected, 1e-8);
    const trace = (await app.db.pool.query("select status, prompt_tokens, cached_tokens, cache_write_tokens from traces where id = 'closed-native-1'")).rows[0];
    expect(trace).to.deep.equal({ status: 499, prompt_tokens: 3_050, cached_tokens: 2_000, cache_write_tokens: 1_000 });
  });

  it('bills a stream closed while the model thinks for the prompt Anthropic counted, and thinking delivered before a close as output (QA)', async () => {
    // QA: closed during thinking, the prompt was counted by the tokenizer without the cache's
    // prices (77.83 credits for 24.09); closed after a whole thinking block, the thinking was not billed.
    native.script({
      type: 'answer',
      blocks: [{ type: 'thinking', thinking: 'Eens kijken wat de klant bedoelt.', signature: 'sig-t' }],
      usage: { input_tokens: 50, output_tokens: 400, cache_creation_input_tokens: 1_000, cache_read_input_tokens: 2_000 },
      stallInThinking: true,
    });
    const controller = new AbortController();
    const pending = fetch(`${app.baseUrl}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json', 'x-request-id': 'closed-thinking-1' },
      body: JSON.stringify({ model: 'test/claude', max_tokens: 2000, stream: true, thinking: { type: 'enabled', budget_tokens: 1024 }, messages: [{ role: 'user', content: 'Denk er goed over na' }] }),
      signal: controller.signal,
    }).catch(() => undefined);
    const stallsBefore = native.stalls;
    // message_start and the first thinking delta are out when the stub stalls (the poll's pauses let the gateway read them).
    await waitFor(async () => (native.stalls > stallsBefore ? true : undefined), { what: 'the model thinking' });
    controller.abort();
    await pending;
    const row = await waitFor(async () => (await app.db.pool.query("select * from usage where request_id = 'closed-thinking-1'")).rows[0], {
      what: 'the usage row of the stream closed while thinking',
    });
    expect(row).to.include({ prompt_tokens: 3_050, cached_tokens: 2_000, cache_write_tokens: 1_000, completion_tokens: 0, partial: true });

    native.script({
      type: 'answer',
      blocks: [
        { type: 'thinking', thinking: 'De klant vraagt naar de dekking van zijn inboedel bij waterschade.', signature: 'sig-u' },
        { type: 'text', text: 'Een lang antwoord dat de klant niet afwacht.' },
      ],
      usage: { input_tokens: 50, output_tokens: 400 },
      stallAfterFirstDelta: true,
    });
    const closing = new AbortController();
    const response = await fetch(`${app.baseUrl}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json', 'x-request-id': 'closed-thinking-2' },
      body: JSON.stringify({ model: 'test/claude', max_tokens: 2000, stream: true, thinking: { type: 'enabled', budget_tokens: 1024 }, messages: [{ role: 'user', content: 'Denk er nog eens over na' }] }),
      signal: closing.signal,
    });
    const reader = response.body!.getReader();
    let seen = '';
    while (!seen.includes('text_delta')) seen += new TextDecoder().decode((await reader.read()).value);
    closing.abort();
    const delivered = await waitFor(async () => (await app.db.pool.query("select * from usage where request_id = 'closed-thinking-2'")).rows[0], {
      what: 'the usage row of the stream closed after its thinking',
    });
    // The thinking's tokens (a dozen or more) and the first words of the text.
    expect(delivered.completion_tokens).to.be.above(12);
  });

  it('begins the message as soon as the model thinks, before its thinking goes out whole (QA: nothing, not even the status, for a long think)', async () => {
    native.script({
      type: 'answer',
      blocks: [{ type: 'thinking', thinking: 'Eerst de polis lezen.', signature: 'sig-p' }],
      usage: { input_tokens: 40, output_tokens: 300, cache_read_input_tokens: 100 },
      stallInThinking: true,
    });
    const controller = new AbortController();
    const response = await fetch(`${app.baseUrl}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json', 'x-request-id': 'thinking-progress-1' },
      body: JSON.stringify({ model: 'test/claude', max_tokens: 2000, stream: true, thinking: { type: 'enabled', budget_tokens: 1024 }, messages: [{ role: 'user', content: 'Denk lang na' }] }),
      signal: controller.signal,
    });
    // The stub stalls inside the thinking block: the status, message_start and a ping came anyway.
    expect(response.status).to.equal(200);
    const reader = response.body!.getReader();
    let seen = '';
    while (!seen.includes('event: ping')) seen += new TextDecoder().decode((await reader.read()).value);
    const start = JSON.parse(seen.split('\n').find((line) => line.startsWith('data: {"type":"message_start"'))!.slice(6));
    expect(start.message.usage).to.deep.equal({ input_tokens: 40, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 100 });
    expect(seen).not.to.contain('content_block_start');
    controller.abort();
    const trace = await waitFor(async () => (await app.db.pool.query("select status from traces where id = 'thinking-progress-1'")).rows[0], { what: 'the trace' });
    expect(trace.status).to.equal(499);
  });

  it('gives message_start the prompt as message_delta splits it: Anthropic’s own count, and a cache hit’s all read from the cache (QA)', async () => {
    const startAndDelta = async (requestId: string) => {
      const response = await fetch(`${app.baseUrl}/v1/messages`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json', 'x-request-id': requestId },
        body: JSON.stringify({ model: 'test/claude', max_tokens: 50, stream: true, messages: [{ role: 'user', content: 'Wat dekt de polis bij storm?' }] }),
      });
      const events = (await response.text()).split('\n').filter((line) => line.startsWith('data: ')).map((line) => JSON.parse(line.slice(6)));
      return { cache: response.headers.get('x-cache'), start: events.find((e) => e.type === 'message_start').message.usage, delta: events.find((e) => e.type === 'message_delta').usage };
    };
    native.script({ type: 'answer', usage: { input_tokens: 50, output_tokens: 5, cache_creation_input_tokens: 1_000, cache_read_input_tokens: 2_000 } });
    const live = await startAndDelta('start-usage-1');
    expect(live.cache).to.equal('MISS');
    expect(live.start).to.deep.equal({ input_tokens: 50, output_tokens: 0, cache_creation_input_tokens: 1_000, cache_read_input_tokens: 2_000 });
    expect(live.delta).to.include({ input_tokens: 50, cache_creation_input_tokens: 1_000, cache_read_input_tokens: 2_000 });
    // The same request again is a hit of the response cache: its whole prompt read from the cache, in
    // message_start as in message_delta (Claude Code added the two: the prompt counted twice).
    const hit = await startAndDelta('start-usage-2');
    expect(hit.cache).to.equal('HIT');
    expect(hit.start).to.deep.equal({ input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 3_050 });
    expect(hit.delta).to.include({ input_tokens: 0, cache_read_input_tokens: 3_050 });
  });

  it('translates /v1/chat/completions to the Messages API too, with cached tokens in prompt_tokens_details', async () => {
    native.script({ type: 'answer', usage: { input_tokens: 50, output_tokens: 5, cache_read_input_tokens: 200 } });
    const res = await api(app.baseUrl, '/v1/chat/completions', {
      method: 'POST',
      key,
      body: { model: 'test/claude', messages: [{ role: 'system', content: 'Kort.' }, { role: 'user', content: 'Hallo daar' }], max_tokens: 20, stop: 'EINDE' },
    });
    expect(res.status).to.equal(200);
    expect(res.body.choices[0].message.content).to.equal('echo: Hallo daar');
    expect(res.body.usage.prompt_tokens).to.equal(250);
    expect(res.body.usage.prompt_tokens_details.cached_tokens).to.equal(200);
    expect(native.requests[0]!.body).to.deep.include({ system: 'Kort.', max_tokens: 20, stop_sequences: ['EINDE'] });
  });

  it('falls back from an overloaded Anthropic (529) to the next provider before the first output', async () => {
    native.script({ type: 'status', status: 529, errorType: 'overloaded_error' });
    const stream = client.messages.stream({ model: 'test/claude', max_tokens: 50, messages: [{ role: 'user', content: 'Nog iemand?' }] });
    const message = await stream.finalMessage();
    expect(message.content).to.deep.equal([{ type: 'text', text: 'echo: Nog iemand?' }]);
    expect(compatible.requests).to.have.length(1);
  });

  it('falls back when Anthropic’s stream fails after message_start but before any output', async () => {
    native.script({ type: 'errorAfterStart' });
    const stream = client.messages.stream({ model: 'test/claude', max_tokens: 50, messages: [{ role: 'user', content: 'Toch iemand?' }] });
    const message = await stream.finalMessage();
    expect(message.content).to.deep.equal([{ type: 'text', text: 'echo: Toch iemand?' }]);
  });
});
