import Anthropic from '@anthropic-ai/sdk';
import { expect } from 'chai';
import { api, startTestApp, type TestApp } from '../../helpers/app.js';
import { waitFor } from '../../helpers/db.js';
import { startStubProvider, type StubProvider } from '../../helpers/stubProvider.js';
import { FREE_SERVICES, loadTestCatalog } from '../../helpers/catalog.js';

// Prompt-cache billing: tokens a provider reports as read from (or written to) its prompt cache
// are billed at the catalogue's cache prices, never at the full prompt price, and every place that
// shows usage splits the prompt into uncached, cache read and cache write.

describe('prompt-cache billing', () => {
  let stub: StubProvider;
  let app: TestApp;
  let key: string;
  before(async () => {
    stub = await startStubProvider();
    const { catalog } = loadTestCatalog(
      `
providers:
  - {id: eu-a, region: eu, kind: openai, base_url: "${stub.url}", api_key: "sk-stub", timeout_ms: 2000}
models:
  - id: test/cached
    type: chat
    context_length: 200000
    pricing: {prompt: 2, completion: 4, cache_read: 0.2, cache_write: 2.5}
    endpoints: [{provider: eu-a, upstream_model: cached-upstream}]
  - id: test/unpriced-cache
    type: chat
    context_length: 200000
    pricing: {prompt: 2, completion: 4}
    endpoints: [{provider: eu-a, upstream_model: plain-upstream}]
aliases: {}
${FREE_SERVICES}
`,
    );
    app = await startTestApp({ catalog });
    key = (await app.key()).key;
  });
  after(async () => {
    await app.close();
    await stub.close();
  });

  const answerWithUsage = (usage: Record<string, unknown>) =>
    stub.script({
      type: 'raw',
      body: JSON.stringify({
        id: 'chatcmpl-1',
        object: 'chat.completion',
        created: 1,
        model: 'm',
        choices: [{ index: 0, message: { role: 'assistant', content: 'Klaar.' }, finish_reason: 'stop' }],
        usage,
      }),
    });

  it('bills cache reads and writes at the cache prices, on the usage row, the answer, the trace and the usage report', async () => {
    answerWithUsage({ prompt_tokens: 10_000, completion_tokens: 100, prompt_tokens_details: { cached_tokens: 6_000, cache_write_tokens: 3_000 } });
    const client = new Anthropic({ baseURL: app.baseUrl, apiKey: key, maxRetries: 0, defaultHeaders: { 'x-request-id': 'cache-1' } });
    const message = await client.messages.create({ model: 'test/cached', max_tokens: 100, messages: [{ role: 'user', content: 'Lang document' }] });
    // 1,000 uncached × 2 + 6,000 read × 0.2 + 3,000 written × 2.5 + 100 completion × 4, per 1,000.
    const expected = (1_000 * 2 + 6_000 * 0.2 + 3_000 * 2.5 + 100 * 4) / 1000;
    expect(message.usage).to.include({ input_tokens: 1_000, cache_read_input_tokens: 6_000, cache_creation_input_tokens: 3_000, output_tokens: 100 });
    expect((message as unknown as { credits: { base: number } }).credits.base).to.be.closeTo(expected, 1e-8);

    const row = await waitFor(async () => (await app.db.pool.query("select * from usage where request_id = 'cache-1'")).rows[0], { what: 'the usage row' });
    expect(row).to.include({ prompt_tokens: 10_000, cached_tokens: 6_000, cache_write_tokens: 3_000, completion_tokens: 100 });
    expect(Number(row.credits_base)).to.be.closeTo(expected, 1e-8);

    const trace = await api(app.baseUrl, '/v1/traces/cache-1', { key });
    expect(trace.body.usage).to.include({ prompt_tokens: 10_000, cached_tokens: 6_000, cache_write_tokens: 3_000 });
    const report = await api(app.baseUrl, '/v1/usage?group_by=model', { key });
    expect(report.status).to.equal(200);
    expect(report.body.total).to.include({ prompt_tokens: 10_000, cached_tokens: 6_000, cache_write_tokens: 3_000 });
  });

  it('shows an OpenAI-compatible provider’s cached tokens in the chat answer and bills them below the prompt price when the catalogue names no cache price', async () => {
    answerWithUsage({ prompt_tokens: 2_000, completion_tokens: 0, prompt_tokens_details: { cached_tokens: 2_000 } });
    const res = await api(app.baseUrl, '/v1/chat/completions', {
      method: 'POST',
      key,
      body: { model: 'test/unpriced-cache', messages: [{ role: 'user', content: 'Weer hetzelfde' }] },
    });
    expect(res.status).to.equal(200);
    expect(res.body.usage.prompt_tokens_details).to.deep.equal({ cached_tokens: 2_000 });
    const fullPrice = (2_000 * 2) / 1000;
    expect(res.body.usage.credits.base).to.be.above(0).and.below(fullPrice);
  });
});
