import { expect } from 'chai';
import OpenAI from 'openai';
import { api, startTestApp, type TestApp } from '../helpers/app.js';
import { waitFor } from '../helpers/db.js';

// Rate limits and credit budgets of a workspace and an organization, as a caller meets them.
describe('limits and budgets', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(async () => {
    await app.close();
  });

  const setLimits = (key: string, body: unknown) => api(app.baseUrl, '/v1/settings/limits', { method: 'PUT', key, body });
  const chat = (key: string, content: string, headers: Record<string, string> = {}, extra: Record<string, unknown> = {}) =>
    api(app.baseUrl, '/v1/chat/completions', {
      method: 'POST',
      key,
      headers,
      body: { model: 'local/echo', max_tokens: 50, cache: false, messages: [{ role: 'user', content }], ...extra },
    });
  const embed = (key: string, input: string, headers: Record<string, string> = {}) =>
    api(app.baseUrl, '/v1/embeddings', { method: 'POST', key, headers, body: { model: 'local/embed-1024', input } });

  it('answers 429 past requests_per_minute, with retry-after and x-ratelimit headers that count down', async () => {
    const { key } = await app.key({ org: 'rate', workspace: 'w' });
    expect((await setLimits(key, { workspace: { requests_per_minute: 3 } })).status).to.equal(200);
    const remaining: string[] = [];
    for (let i = 0; i < 3; i++) {
      const response = await chat(key, `vraag ${i}`);
      expect(response.status).to.equal(200);
      expect(response.headers.get('x-ratelimit-limit-requests')).to.equal('3');
      expect(response.headers.get('x-ratelimit-reset-requests')).to.match(/^(\d+m)?\d+s$/);
      remaining.push(response.headers.get('x-ratelimit-remaining-requests')!);
    }
    expect(remaining).to.deep.equal(['2', '1', '0']);
    const refused = await chat(key, 'vraag 4', { 'x-request-id': 'over-the-rate' });
    expect(refused.status).to.equal(429);
    // A limit sheds load: its refusals are counted in /metrics, not traced or audited one by one.
    expect((await api(app.baseUrl, '/v1/traces/over-the-rate', { key })).status).to.equal(404);
    expect(refused.body).to.include({ code: 'rate_limited' });
    expect(refused.body.error).to.include({ type: 'rate_limit_error', code: 'rate_limited' });
    expect(refused.body.message).to.match(/workspace's limit of 3 requests per minute/);
    // As on OpenAI's 429s: what is left, and when it starts anew.
    expect(refused.headers.get('x-ratelimit-limit-requests')).to.equal('3');
    expect(refused.headers.get('x-ratelimit-remaining-requests')).to.equal('0');
    expect(refused.headers.get('x-ratelimit-reset-requests')).to.match(/^(\d+m)?\d+s$/);
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(refused.headers.get('x-should-retry'), 'a limit merely reached is worth retrying').to.equal(null);
    expect(retryAfter).to.be.within(1, 60);
    // Embeddings count against the same limit.
    expect((await embed(key, 'tekst')).status).to.equal(429);
    const metrics = await api(app.baseUrl, '/metrics');
    expect(metrics.text).to.match(/polder_limit_refusals_total\{limit="requests_per_minute",level="workspace"\} [2-9]/);
    const settings = await api(app.baseUrl, '/v1/settings/limits', { key });
    expect(settings.body.workspace.limits).to.deep.equal({ requests_per_minute: 3, tokens_per_minute: null, credits_per_day: null, credits_per_month: null });
    expect(settings.body.workspace.used.requests_this_minute).to.equal(3);
  });

  it('answers 429 past tokens_per_minute, counting the prompt and max_tokens before the answer', async () => {
    const { key } = await app.key({ org: 'tokens', workspace: 'w' });
    await setLimits(key, { workspace: { tokens_per_minute: 150 } });
    expect((await chat(key, 'kort')).status).to.equal(200);
    expect((await chat(key, 'kort', {}, { max_tokens: 500 })).status).to.equal(429);
    // Each of n choices may take max_tokens: four of 50 do not fit in 150.
    const many = await chat(key, 'vier keer', {}, { n: 4 });
    expect(many.status).to.equal(429);
    expect(many.body.message).to.match(/this request counts 2\d\d tokens/);
  });

  it("counts the model's default cap for a request without max_tokens, and says when a request alone is too large", async () => {
    const { key } = await app.key({ org: 'uncapped', workspace: 'w' });
    // local/echo has a context of 1,048,576 tokens: counting all of it would refuse every uncapped request.
    await setLimits(key, { workspace: { tokens_per_minute: 10_000 } });
    const uncapped = await chat(key, 'zonder max_tokens', {}, { max_tokens: undefined });
    expect(uncapped.status, uncapped.text).to.equal(200);
    // While the answer was out, the prompt and 4,096 tokens were held; the real count was billed after.
    expect(Number(uncapped.headers.get('x-ratelimit-remaining-tokens'))).to.be.within(10_000 - 4_096 - 50, 10_000 - 4_096);
    const tooLarge = await chat(key, 'te groot', {}, { max_tokens: 20_000 });
    expect(tooLarge.status).to.equal(429);
    expect(tooLarge.body.message).to.match(/this request counts \d+ tokens .* more than the workspace's limit of 10000 tokens per minute; send a smaller max_tokens/);
    // The SDKs would retry it for nothing: they are told not to. A limit merely reached is retried.
    expect(tooLarge.headers.get('x-should-retry')).to.equal('false');
    expect(tooLarge.headers.get('retry-after')).to.match(/^\d+$/);
    // A prompt of hundreds of kilobytes is counted too (paced, a slice at a time).
    const longPrompt = await chat(key, 'woord '.repeat(40_000), {}, { max_tokens: 10 });
    expect(longPrompt.status).to.equal(429);
    expect(longPrompt.body.message).to.match(/this request counts 4\d{4} tokens/);
  });

  it('answers 402 when a budget would be passed, naming the level, and counts what was billed', async () => {
    const { key } = await app.key({ org: 'budget', workspace: 'w' });
    // local/embed-1024 costs 0.001 credits per 1,000 tokens; each input below is about 1,000 tokens.
    const input = 'woord '.repeat(1000);
    await setLimits(key, { workspace: { credits_per_day: 0.0035 } });
    const answered: number[] = [];
    for (let i = 0; i < 5; i++) answered.push((await embed(key, input)).status);
    expect(answered.slice(0, 3)).to.deep.equal([200, 200, 200]);
    expect(answered.slice(3)).to.deep.equal([402, 402]);
    const refused = await embed(key, input, { 'x-request-id': 'over-budget-embeddings' });
    expect(refused.body).to.include({ code: 'budget_exhausted' });
    expect(refused.body.budget).to.include({ level: 'workspace', window: 'day', limit: 0.0035 });
    expect(refused.body.budget.resets_at).to.match(/T00:00:00.000Z$/);
    expect(refused.body.error.type).to.equal('insufficient_quota');
    // Said in an embeddings call's terms: it has no answer cap to lower.
    expect(refused.body.message).to.match(/reserves up to [\d.]+ credits \(its inputs at the dearest model of its chain\)/);
    expect(refused.body.message).to.not.match(/max_tokens|chat/);
    const settings = await api(app.baseUrl, '/v1/settings/limits', { key });
    expect(settings.body.workspace.used.credits_today).to.be.within(0.0029, 0.0035);
    expect(settings.body.workspace.used.credits_this_month).to.be.within(0.0029, 0.0035);
    const usage = await api(app.baseUrl, '/v1/usage', { key });
    expect(usage.body.budgets).to.have.length(1);
    expect(usage.body.budgets[0]).to.include({ level: 'workspace', window: 'day', limit: 0.0035 });
    expect(usage.body.budgets[0].used).to.equal(settings.body.workspace.used.credits_today);
    // The budget's owner finds the refusal: traced and audited, never billed.
    const trace = await api(app.baseUrl, '/v1/traces/over-budget-embeddings', { key });
    expect(trace.status).to.equal(200);
    expect(trace.body).to.include({ status: 402, kind: 'embeddings' });
    expect(trace.body.usage, "a refusal is not billed").to.equal(null);
    const chatRefused = await chat(key, 'nog een vraag', { 'x-request-id': 'over-budget-chat' });
    expect(chatRefused.status).to.equal(402);
    const chatTrace = await api(app.baseUrl, '/v1/traces/over-budget-chat', { key });
    expect(chatTrace.body).to.include({ status: 402, kind: 'chat' });
    expect(JSON.stringify(chatTrace.body.response)).to.contain('budget');
    const audited = await api(app.baseUrl, '/v1/audit-log?limit=100', { key });
    const refusals = audited.body.data.filter((e: any) => ['over-budget-embeddings', 'over-budget-chat'].includes(e.target));
    expect(refusals.map((e: any) => [e.action, e.details.status, e.details.refused, e.details.budget])).to.have.deep.members([
      ['embeddings.create', 402, 'budget_exhausted', { level: 'workspace', window: 'day' }],
      ['chat.completion', 402, 'budget_exhausted', { level: 'workspace', window: 'day' }],
    ]);
    // And it is not held: the same id runs once the budget allows it.
    expect((await setLimits(key, { workspace: { credits_per_day: null } })).status).to.equal(200);
    expect((await embed(key, input, { 'x-request-id': 'over-budget-embeddings' })).status).to.equal(200);
  });

  it('refuses a request only when its worst case does not fit beside what was billed, whatever the decimals of the credits', async () => {
    // QA: with a budget of 0.1, requests reserving 0.0201 and billing 0.0151 were refused at 0.0604
    // billed: the sums of grants and needs, kept as binary floats, fell short of a need by 1e-18.
    for (const [limit, maxTokens] of [[0.01, 20], [0.0123, 33], [0.02, 70]] as const) {
      const { key } = await app.key({ org: `decimals-${limit}`, workspace: 'w' });
      await setLimits(key, { workspace: { credits_per_day: limit } });
      let refused: Awaited<ReturnType<typeof chat>> | undefined;
      let answered = 0;
      for (let i = 0; i < 60 && !refused; i++) {
        const response = await chat(key, `vraag nummer ${i} over de polis`, {}, { max_tokens: maxTokens });
        if (response.status === 402) refused = response;
        else {
          expect(response.status, response.text).to.equal(200);
          answered++;
        }
      }
      expect(refused, `a budget of ${limit} runs out`).not.to.equal(undefined);
      const reserved = Number(/reserves up to ([0-9.]+) credits/.exec(refused!.body.message)![1]);
      expect(refused!.body.budget.used + reserved, `${limit}: ${refused!.body.message} after ${answered} answered`).to.be.above(limit);
    }
  });

  it('a request refused for its size does not refuse the smaller ones after it, and a raised limit applies at once', async () => {
    const { key } = await app.key({ org: 'after-refusal', workspace: 'w' });
    // All in one minute: the requests answered before a rate limit is set count toward it.
    await waitFor(async () => new Date().getUTCSeconds() < 45, { timeoutMs: 20_000, what: 'the start of a minute' });
    await setLimits(key, { workspace: { tokens_per_minute: 100 } });
    expect((await chat(key, 'groot', {}, { max_tokens: 200 })).status).to.equal(429);
    const small = await chat(key, 'klein', {}, { max_tokens: 20 });
    expect(small.status, small.text).to.equal(200);

    // local/echo's worst case without max_tokens is about 31.5 credits: far past this budget, unlike a capped request.
    await setLimits(key, { workspace: { tokens_per_minute: null, credits_per_day: 0.01 } });
    expect((await chat(key, 'zonder plafond', {}, { max_tokens: undefined })).status).to.equal(402);
    const capped = await chat(key, 'met plafond', {}, { max_tokens: 20 });
    expect(capped.status, capped.text).to.equal(200);

    // Two answered this minute already: a limit of 3 leaves one.
    await setLimits(key, { workspace: { credits_per_day: null, requests_per_minute: 3 } });
    expect((await chat(key, 'een')).status).to.equal(200);
    expect((await chat(key, 'twee')).status).to.equal(429);
    await setLimits(key, { workspace: { requests_per_minute: 1000 } });
    const raised = await chat(key, 'drie');
    expect(raised.status, raised.text).to.equal(200);
  });

  it('shows what was used this minute, not the blocks leased ahead of use', async () => {
    const { key } = await app.key({ org: 'used-shown', workspace: 'w' });
    await setLimits(key, { workspace: { requests_per_minute: 1000, tokens_per_minute: 100_000 } });
    const answered = await chat(key, 'een vraag');
    expect(answered.status).to.equal(200);
    const used = (await api(app.baseUrl, '/v1/settings/limits', { key })).body.workspace.used;
    expect(used.requests_this_minute).to.equal(1);
    // The prompt and the answer: at most what was held while the answer was out (the prompt and max_tokens).
    expect(used.tokens_this_minute).to.be.within(1, 100_000 - Number(answered.headers.get('x-ratelimit-remaining-tokens')));
  });

  it('counts what the minute answered before a rate limit was set, for a workspace and for a key', async () => {
    const { key, workspace_id: workspace } = await app.key({ org: 'rate-set-late', workspace: 'w' });
    // All in one minute.
    await waitFor(async () => new Date().getUTCSeconds() < 45, { timeoutMs: 20_000, what: 'the start of a minute' });
    const created = await api(app.baseUrl, '/v1/keys', { method: 'POST', key, body: { workspace, name: 'late', kind: 'restricted', scopes: ['chat.create'] } });
    expect(created.status, created.text).to.equal(201);
    const restricted = created.body.data.key as string;
    for (let i = 0; i < 4; i++) expect((await chat(restricted, `vroeg ${i}`)).status).to.equal(200);
    expect((await chat(key, 'vroeg org')).status).to.equal(200);

    // The key's limit of 5 leaves one more this minute; the workspace's of 6 one more after the key's.
    const patched = await api(app.baseUrl, `/v1/keys/${created.body.data.id}`, { method: 'PATCH', key, body: { limits: { requests_per_minute: 5 } } });
    expect(patched.status, patched.text).to.equal(200);
    expect((await chat(restricted, 'laat 1')).status).to.equal(200);
    const overKey = await chat(restricted, 'laat 2');
    expect(overKey.status).to.equal(429);
    expect(overKey.body.message).to.match(/key's limit of 5 requests per minute/);

    expect((await setLimits(key, { workspace: { requests_per_minute: 7 } })).status).to.equal(200);
    expect((await api(app.baseUrl, '/v1/settings/limits', { key })).body.workspace.used.requests_this_minute).to.equal(6);
    expect((await chat(key, 'laat org 1')).status).to.equal(200);
    const overWorkspace = await chat(key, 'laat org 2');
    expect(overWorkspace.status).to.equal(429);
    expect(overWorkspace.body.message).to.match(/workspace's limit of 7 requests per minute/);
  });

  it('shows what a scope without rate limits used this minute: the chats and embeddings answered, less cache hits', async () => {
    const { key } = await app.key({ org: 'no-rate-limit', workspace: 'w' });
    // A budget does not count requests or tokens: the minute's use comes from the usage lines.
    await setLimits(key, { workspace: { credits_per_day: 100 } });
    // All in one minute.
    await waitFor(async () => new Date().getUTCSeconds() < 50, { timeoutMs: 15_000, what: 'the start of a minute' });
    const answers = [await chat(key, 'een vraag'), await embed(key, 'tekst'), await chat(key, 'uit de cache', {}, { cache: true })];
    const hit = await chat(key, 'uit de cache', {}, { cache: true });
    expect(hit.headers.get('x-cache')).to.equal('HIT');
    const tokens = answers.reduce((sum, answer) => sum + (answer.body.usage.total_tokens as number), 0);
    const { workspace, organization } = (await api(app.baseUrl, '/v1/settings/limits', { key })).body;
    expect(workspace.limits.requests_per_minute).to.equal(null);
    expect(organization.limits.requests_per_minute).to.equal(null);
    for (const scope of [workspace, organization]) {
      expect(scope.used.requests_this_minute).to.equal(3);
      expect(scope.used.tokens_this_minute).to.equal(tokens);
    }
  });

  it('refuses ingest and fact submissions with 402 once a budget is spent, since they are billed after the call', async () => {
    const { key } = await app.key({ org: 'spent', workspace: 'w' });
    const collection = await api(app.baseUrl, '/v1/recall/collections', { method: 'POST', key, body: { name: 'Handboek' } });
    expect(collection.status).to.equal(201);
    const input = 'woord '.repeat(1000);
    // About 0.001 credits billed, then a budget below it: spent, as ingest billed past a budget would leave it.
    expect((await embed(key, input)).status).to.equal(200);
    await setLimits(key, { organization: { credits_per_day: 0.0009 } });
    const document = await api(app.baseUrl, '/v1/memory/documents', {
      method: 'POST',
      key,
      body: { collection: collection.body.data.slug, title: 'Verzuim', text: 'Meld ziekte voor negen uur.' },
    });
    expect(document.status).to.equal(402);
    expect(document.body).to.include({ code: 'budget_exhausted' });
    expect(document.body.message).to.match(/organization's budget of 0.0009 credits per day is spent/);
    expect(document.body.budget).to.include({ level: 'organization', window: 'day', limit: 0.0009 });
    expect(document.body.budget.used).to.be.above(0.0009);
    const fact = await api(app.baseUrl, '/v1/recall/facts', { method: 'POST', key, body: { content: 'Ik werk op maandag.', user_ref: 'klant-1' } });
    expect(fact.status).to.equal(402);
    // A raised budget takes them again.
    await setLimits(key, { organization: { credits_per_day: 1 } });
    expect((await api(app.baseUrl, '/v1/recall/facts', { method: 'POST', key, body: { content: 'Ik werk op maandag.', user_ref: 'klant-1' } })).status).to.equal(202);
  });

  it('takes a burst of submissions larger than the connection pool under a budget: each checks it before its transaction', async () => {
    const { key } = await app.key({ org: 'burst', workspace: 'w' });
    await setLimits(key, { workspace: { credits_per_day: 100 } });
    const collection = await api(app.baseUrl, '/v1/recall/collections', { method: 'POST', key, body: { name: 'Bulk' } });
    // The test app's pool holds 10 connections; a check inside the transaction took a second one each.
    const answers = await Promise.all([
      ...Array.from({ length: 60 }, (_, i) => api(app.baseUrl, '/v1/recall/facts', { method: 'POST', key, body: { content: `Ik hou van getal ${i}.`, user_ref: 'bulk' } })),
      ...Array.from({ length: 15 }, (_, i) =>
        api(app.baseUrl, '/v1/memory/documents', { method: 'POST', key, body: { collection: collection.body.data.slug, title: `Deel ${i}`, text: `Hoofdstuk ${i}.` } }),
      ),
    ]);
    expect(answers.map((a) => a.status)).to.deep.equal([...Array(60).fill(202), ...Array(15).fill(201)]);
  });

  it('answers a call that needs no credits under a budget as it would without one: a 503 for a chain with no provider left, never a 500 (QA)', async () => {
    const { key } = await app.key({ org: 'free-under-budget', workspace: 'w' });
    expect((await setLimits(key, { workspace: { credits_per_day: 50 } })).status).to.equal(200);
    // No MISTRAL_API_KEY here: the chain has no candidate, so the request's worst case is 0 credits,
    // and this process holds no block of the budget yet (it answered 500 until another call leased one).
    const refused = await api(app.baseUrl, '/v1/embeddings', { method: 'POST', key, body: { model: 'mistral/mistral-embed', input: 'x' } });
    expect(refused.status, refused.text).to.equal(503);
    expect(refused.body.attempts).to.be.an('array');
    expect((await embed(key, 'tekst')).status).to.equal(200);
  });

  it('admits an uncapped request whose worst case fits a budget with nothing billed yet', async () => {
    const { key } = await app.key({ org: 'worst-case', workspace: 'w' });
    // local/echo's worst case without max_tokens (its whole context at its dearer price) is about 31.5 credits.
    await setLimits(key, { workspace: { credits_per_day: 50 } });
    const uncapped = await chat(key, 'zonder plafond', {}, { max_tokens: undefined });
    expect(uncapped.status, uncapped.text).to.equal(200);
    expect((await chat(key, 'nog eens zonder plafond', {}, { max_tokens: undefined })).status).to.equal(200);
    // A cap beyond the context reserves what the context leaves, no more than no cap does (QA: it was reserved at face value, a 402).
    const beyondContext = await chat(key, 'een plafond voorbij de context', {}, { max_tokens: 100_000_000 });
    expect(beyondContext.status, beyondContext.text).to.equal(200);
  });

  it('applies a lowered budget to the next request, not once the blocks leased under the old one run out', async () => {
    const { key } = await app.key({ org: 'lowered', workspace: 'w' });
    await setLimits(key, { workspace: { credits_per_day: 200 } });
    expect((await chat(key, 'eerste')).status).to.equal(200);
    await setLimits(key, { workspace: { credits_per_day: 0.0001 } });
    const refused = await chat(key, 'tweede');
    expect(refused.status).to.equal(402);
    expect(refused.body.budget).to.include({ level: 'workspace', limit: 0.0001 });
    expect(refused.body.message).to.match(/budget of 0.0001 credits per day would be passed: this request reserves up to [\d.]+ credits .* send max_tokens to reserve less/);

    // A key's budget, lowered over the keys API, the same.
    const created = await api(app.baseUrl, '/v1/keys', {
      method: 'POST',
      key,
      body: { workspace: 'w', name: 'budgeted', kind: 'restricted', scopes: ['chat.create'], limits: { credits_per_day: 100 } },
    });
    expect(created.status, created.text).to.equal(201);
    await setLimits(key, { workspace: { credits_per_day: null } });
    expect((await chat(created.body.data.key, 'derde')).status).to.equal(200);
    const lowered = await api(app.baseUrl, `/v1/keys/${created.body.data.id}`, { method: 'PATCH', key, body: { limits: { credits_per_day: 0.00001 } } });
    expect(lowered.status, lowered.text).to.equal(200);
    const refusedKey = await chat(created.body.data.key, 'vierde');
    expect(refusedKey.status).to.equal(402);
    expect(refusedKey.body.budget).to.include({ level: 'key' });
  });

  it('a budget set mid-day starts from what the workspace has already billed today', async () => {
    const { key } = await app.key({ org: 'midday', workspace: 'w' });
    const input = 'woord '.repeat(1000);
    expect((await embed(key, input)).status).to.equal(200);
    expect((await embed(key, input)).status).to.equal(200);
    const before = await api(app.baseUrl, '/v1/settings/limits', { key });
    expect(before.body.workspace.used.credits_today).to.be.within(0.0019, 0.0021);
    await setLimits(key, { workspace: { credits_per_day: 0.0035 } });
    expect((await embed(key, input)).status).to.equal(200);
    const refused = await embed(key, input);
    expect(refused.status).to.equal(402);
    expect(refused.body.budget.used).to.be.within(0.0029, 0.0031);
  });

  it('audits reaching 80 % and 100 % of a budget, once each per window: 100 % when billing reaches it or the budget refuses a request of its size', async () => {
    const { key } = await app.key({ org: 'marks', workspace: 'w' });
    await setLimits(key, { workspace: { credits_per_day: 0.005 } });
    const input = 'woord '.repeat(1000);
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) statuses.push((await embed(key, input)).status);
    expect(statuses.filter((s) => s === 200)).to.have.length.within(4, 5);
    expect(statuses.at(-1)).to.equal(402);
    const marks = await api(app.baseUrl, '/v1/audit-log?action=budget.threshold', { key });
    const seen = marks.body.data.map((e: any) => `${e.details.level}:${e.details.window}:${e.details.percent}`).sort();
    expect(seen).to.deep.equal(['workspace:day:100', 'workspace:day:80']);
    expect(marks.body.data[0].actor.kind).to.equal('service');
  });

  it('GET /v1/budgets shows an organization key every budget of its organization with what it has spent', async () => {
    const admin = await app.key({ org: 'finance', workspace: 'team-a' });
    const teamB = await app.key({ org: 'finance', workspace: 'team-b' });
    const elsewhere = await app.key({ org: 'not-finance', workspace: 'w' });
    await setLimits(elsewhere.key, { workspace: { credits_per_day: 1 } });
    await setLimits(admin.key, { workspace: { credits_per_month: 5 }, organization: { credits_per_day: 10 } });
    const app1 = await api(app.baseUrl, '/v1/keys', {
      method: 'POST',
      key: admin.key,
      body: { workspace: teamB.workspace_id, name: 'Helpdesk', kind: 'restricted', scopes: ['embeddings.create'], limits: { credits_per_day: 2 } },
    });
    expect(app1.status, app1.text).to.equal(201);
    expect((await embed(app1.body.data.key, 'woord '.repeat(1000))).status).to.equal(200);
    expect((await embed(admin.key, 'woord '.repeat(500))).status).to.equal(200);

    const listed = await api(app.baseUrl, '/v1/budgets', { key: admin.key });
    expect(listed.status, listed.text).to.equal(200);
    const shown = listed.body.data.map((b: any) => [b.level, b.scope.name, b.window, b.limit]);
    expect(shown).to.deep.equal([
      ['organization', 'finance', 'day', 10],
      ['workspace', 'team-a', 'month', 5],
      ['key', 'Helpdesk', 'day', 2],
    ]);
    const [organization, workspace, key] = listed.body.data;
    expect(key.scope.workspace).to.deep.equal({ id: teamB.workspace_id, name: 'team-b' });
    expect(key.used).to.be.within(0.0009, 0.0011);
    expect(workspace.used).to.be.within(0.0004, 0.0006);
    expect(organization.used).to.be.closeTo(key.used + workspace.used, 1e-8);
    expect(organization.resets_at).to.match(/T00:00:00.000Z$/);
    // Only an organization key sees them all.
    const restricted = (await app.key({ org: 'finance', workspace: 'team-a', kind: 'restricted', scopes: ['usage.read'] })).key;
    expect((await api(app.baseUrl, '/v1/budgets', { key: restricted })).status).to.equal(403);
  });

  it('marks nothing when a budget with most of it left refuses one request too large for it', async () => {
    const { key } = await app.key({ org: 'one-large', workspace: 'w' });
    await setLimits(key, { workspace: { credits_per_month: 30 } });
    // Without max_tokens local/echo reserves its whole context, about 31.5 credits: more than the
    // budget, though nothing of it is spent.
    expect((await chat(key, 'groot', {}, { max_tokens: undefined })).status).to.equal(402);
    expect((await chat(key, 'klein')).status).to.equal(200);
    expect((await api(app.baseUrl, '/v1/audit-log?action=budget.threshold', { key })).body.data).to.deep.equal([]);
  });

  it('marks a budget set below what the window has spent already: it will never be crossed now', async () => {
    const { key } = await app.key({ org: 'late-budget', workspace: 'w' });
    const input = 'woord '.repeat(1000);
    for (let i = 0; i < 3; i++) expect((await embed(key, input)).status).to.equal(200);
    // About 0.003 spent: a budget of 0.0035 is past 80 %, one of 0.002 past 100 %.
    await setLimits(key, { workspace: { credits_per_day: 0.0035 } });
    const marks = async () =>
      (await api(app.baseUrl, '/v1/audit-log?action=budget.threshold', { key })).body.data.map((e: any) => e.details.percent).sort() as number[];
    expect(await marks()).to.deep.equal([80]);
    await setLimits(key, { workspace: { credits_per_day: 0.002 } });
    expect(await marks()).to.deep.equal([100, 80]);
    // Once per window, however often the budget is set again.
    await setLimits(key, { workspace: { credits_per_day: 0.0019 } });
    expect(await marks()).to.deep.equal([100, 80]);
  });

  it('names the budget that refuses, after another of the request’s budgets was raised (QA)', async () => {
    const { key } = await app.key({ org: 'which-budget', workspace: 'w' });
    const used = async () => (await api(app.baseUrl, '/v1/settings/limits', { key })).body;
    expect((await chat(key, 'eerste')).status).to.equal(200);
    await setLimits(key, { workspace: { credits_per_month: (await used()).workspace.used.credits_this_month + 0.0001 } });
    expect((await chat(key, 'tweede')).status).to.equal(402);
    // The workspace's budget raised; the organization's set just above what it used.
    await setLimits(key, { workspace: { credits_per_month: 1000 }, organization: { credits_per_day: (await used()).organization.used.credits_today + 0.0001 } });
    const small = await chat(key, 'derde');
    expect(small.status).to.equal(402);
    expect(small.body.budget).to.include({ level: 'organization', window: 'day' });
    // Refused by the organization's budget, which a counter marked spent: not by the workspace's, which has room.
    const large = await chat(key, 'vierde', {}, { max_tokens: undefined });
    expect(large.status).to.equal(402);
    expect(large.body.budget).to.include({ level: 'organization', window: 'day' });
    expect(large.body.message).to.match(/^the organization's budget/);
  });

  it('lets a replay and a cache hit through a limit that the first request passed', async () => {
    const { key } = await app.key({ org: 'replay', workspace: 'w' });
    await setLimits(key, { workspace: { requests_per_minute: 2 } });
    const first = await chat(key, 'herhaal', { 'x-request-id': 'limits-replay-1' });
    expect(first.status).to.equal(200);
    const cached = await chat(key, 'uit de cache', {}, { cache: true });
    expect(cached.status).to.equal(200);
    expect((await chat(key, 'nog een')).status).to.equal(429);
    const replay = await chat(key, 'herhaal', { 'x-request-id': 'limits-replay-1' });
    expect(replay.status).to.equal(200);
    expect(replay.headers.get('x-replay')).to.equal('true');
    // A replay says what is left now, not what was left when the first was answered.
    expect(first.headers.get('x-ratelimit-remaining-requests')).to.equal('1');
    expect(replay.headers.get('x-ratelimit-remaining-requests')).to.equal('0');
    const hit = await chat(key, 'uit de cache', {}, { cache: true });
    expect(hit.status).to.equal(200);
    expect(hit.headers.get('x-cache')).to.equal('HIT');
  });

  it('bills a cache hit its fee while the budget has room, then serves it without the fee: billing never passes a budget through the cache', async () => {
    const { key } = await app.key({ org: 'hit-fee', workspace: 'w' });
    // About 4,000 prompt tokens: the firewall's fee is about 0.04 credits a call, the miss about 0.08.
    const prompt = 'woord '.repeat(4000);
    await setLimits(key, { workspace: { credits_per_day: 0.15 } });
    const miss = await chat(key, prompt, {}, { cache: true, max_tokens: 5 });
    expect(miss.headers.get('x-cache')).to.equal('MISS');
    const fee = miss.body.usage.credits.services;
    expect(fee).to.be.within(0.03, 0.05);
    const first = await chat(key, prompt, {}, { cache: true, max_tokens: 5 });
    expect(first.headers.get('x-cache')).to.equal('HIT');
    expect(first.body.usage.credits).to.deep.include({ base: 0, services: fee });
    const refusalsCounted = async () =>
      Number((await api(app.baseUrl, '/metrics')).text.match(/polder_limit_refusals_total\{limit="credits_per_day",level="workspace"\} (\d+)/)?.[1] ?? 0);
    const refusalsBefore = await refusalsCounted();
    const hits = [];
    for (let i = 0; i < 4; i++) hits.push(await chat(key, prompt, { 'x-request-id': `hit-fee-${i}` }, { cache: true, max_tokens: 5 }));
    // Answered, so not counted as refusals (an alert on refusals fired for traffic that was served).
    expect(await refusalsCounted()).to.equal(refusalsBefore);
    // Never refused, and never billed past the budget.
    expect(hits.map((hit) => [hit.status, hit.headers.get('x-cache')])).to.deep.equal(Array(4).fill([200, 'HIT']));
    expect(hits.map((hit) => hit.body.choices[0].message.content)).to.deep.equal(Array(4).fill(miss.body.choices[0].message.content));
    expect(hits.at(-1)!.body.usage.credits).to.deep.include({ base: 0, services: 0, total: 0 });
    const usage = await api(app.baseUrl, '/v1/usage', { key });
    expect(usage.body.budgets[0]).to.include({ level: 'workspace', window: 'day', limit: 0.15 });
    expect(usage.body.budgets[0].used).to.be.at.most(0.15);
    const trace = await api(app.baseUrl, '/v1/traces/hit-fee-3', { key });
    expect(JSON.stringify(trace.body.notes)).to.match(/the cache hit's fee was not billed: .*budget of 0.15 credits per day/);
  });

  it('answers a cache hit and a replay with the x-ratelimit headers as they stand, taking nothing from the limits', async () => {
    const { key } = await app.key({ org: 'hit-headers', workspace: 'w' });
    await setLimits(key, { workspace: { requests_per_minute: 5, tokens_per_minute: 100_000 } });
    const names = ['requests', 'tokens'].flatMap((kind) => ['limit', 'remaining', 'reset'].map((what) => `x-ratelimit-${what}-${kind}`));
    const headersOf = (answer: { headers: Headers }) => Object.fromEntries(names.map((name) => [name, answer.headers.get(name)]));
    const miss = await chat(key, 'uit de cache', { 'x-request-id': 'hit-headers-1' }, { cache: true });
    expect(miss.headers.get('x-cache')).to.equal('MISS');
    for (const [name, value] of Object.entries(headersOf(miss))) expect(value, name).to.be.a('string');
    expect(miss.headers.get('x-ratelimit-remaining-requests')).to.equal('4');
    const embedded = await embed(key, 'tekst', { 'x-request-id': 'hit-headers-2' });
    expect(embedded.headers.get('x-ratelimit-remaining-requests')).to.equal('3');

    const hit = await chat(key, 'uit de cache', {}, { cache: true });
    expect(hit.headers.get('x-cache')).to.equal('HIT');
    const streamedHit = await chat(key, 'uit de cache', {}, { cache: true, stream: true });
    expect(streamedHit.headers.get('x-cache')).to.equal('HIT');
    const replay = await chat(key, 'uit de cache', { 'x-request-id': 'hit-headers-1' }, { cache: true });
    expect(replay.headers.get('x-replay')).to.equal('true');
    const streamedReplay = await chat(key, 'uit de cache', { 'x-request-id': 'hit-headers-1' }, { cache: true, stream: true });
    expect(streamedReplay.headers.get('x-replay')).to.equal('true');
    const embeddingReplay = await embed(key, 'tekst', { 'x-request-id': 'hit-headers-2' });
    expect(embeddingReplay.headers.get('x-replay')).to.equal('true');
    for (const [what, answer] of Object.entries({ hit, streamedHit, replay, streamedReplay, embeddingReplay })) {
      expect(answer.status, what).to.equal(200);
      const headers = headersOf(answer);
      for (const [name, value] of Object.entries(headers)) expect(value, `${what}: ${name}`).to.be.a('string');
      // None of them took a request: two of five were taken, by the miss and the embedding.
      expect(headers['x-ratelimit-limit-requests'], what).to.equal('5');
      expect(headers['x-ratelimit-remaining-requests'], what).to.equal('3');
      expect(headers['x-ratelimit-limit-tokens'], what).to.equal('100000');
      expect(Number(headers['x-ratelimit-remaining-tokens']), what).to.be.within(99_000, 100_000);
      expect(headers['x-ratelimit-reset-requests'], what).to.match(/^(\d+m)?\d+s$/);
    }
    // And the next request that calls a provider takes the third.
    expect((await chat(key, 'een nieuwe vraag')).headers.get('x-ratelimit-remaining-requests')).to.equal('2');
  });

  it("applies the organization's limits to every workspace; only an organization key sets them", async () => {
    const org = await app.key({ org: 'shared', workspace: 'one' });
    const other = await app.key({ org: 'shared', workspace: 'two' });
    const restricted = await app.key({ org: 'shared', workspace: 'one', kind: 'restricted', scopes: ['settings.write', 'chat.create'] });
    const refused = await setLimits(restricted.key, { organization: { requests_per_minute: 1 } });
    expect(refused.status).to.equal(403);
    expect((await api(app.baseUrl, '/v1/settings/limits', { key: restricted.key })).body.organization).to.equal(null);
    expect((await setLimits(org.key, { organization: { requests_per_minute: 2 } })).status).to.equal(200);
    expect((await chat(org.key, 'een')).status).to.equal(200);
    expect((await chat(other.key, 'twee')).status).to.equal(200);
    expect((await chat(other.key, 'drie')).status).to.equal(429);
    const audit = await api(app.baseUrl, '/v1/audit-log?action=limits.organization.updated', { key: org.key });
    expect(audit.body.data[0].details.after.requests_per_minute).to.equal(2);
  });

  it('validates limits: positive numbers or null, known fields only', async () => {
    const { key } = await app.key({ org: 'valid', workspace: 'w' });
    const response = await setLimits(key, { workspace: { requests_per_minute: 0, credits_per_day: -1, burst: 3 } });
    expect(response.status).to.equal(422);
    expect(Object.keys(response.body.errors)).to.include.members(['workspace.requests_per_minute', 'workspace.credits_per_day']);
    // Credits are kept to 8 decimals: the answer and the audit entry say the limit as it is kept.
    const precise = await setLimits(key, { workspace: { credits_per_day: 0.123456789 } });
    expect(precise.status).to.equal(200);
    expect(precise.body.workspace.limits.credits_per_day).to.equal(0.12345679);
    const audited = await api(app.baseUrl, '/v1/audit-log?action=limits.workspace.updated&limit=1', { key });
    expect(JSON.stringify(audited.body.data[0].details)).to.contain('0.12345679').and.not.to.contain('0.123456789');
  });

  it('the official SDK sees a RateLimitError on 429 and an APIError with status 402, each with our message', async () => {
    const { key } = await app.key({ org: 'sdk', workspace: 'w' });
    const client = new OpenAI({ baseURL: `${app.baseUrl}/v1`, apiKey: key, maxRetries: 0 });
    await setLimits(key, { workspace: { requests_per_minute: 1 } });
    await client.chat.completions.create({ model: 'local/echo', max_tokens: 20, messages: [{ role: 'user', content: 'een' }] });
    const limited = await client.chat.completions
      .create({ model: 'local/echo', max_tokens: 20, messages: [{ role: 'user', content: 'twee' }] })
      .catch((err: unknown) => err);
    expect(limited).to.be.instanceOf(OpenAI.RateLimitError);
    expect((limited as Error).message).to.contain('requests per minute');
    await setLimits(key, { workspace: { credits_per_month: 0.000001 } });
    const broke = await client.embeddings.create({ model: 'local/embed-1024', input: 'woord '.repeat(100), encoding_format: 'float' }).catch((err: unknown) => err);
    expect(broke).to.be.instanceOf(OpenAI.APIError);
    expect((broke as InstanceType<typeof OpenAI.APIError>).status).to.equal(402);
    expect((broke as Error).message).to.contain('budget');
  });
});
