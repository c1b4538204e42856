import { expect } from 'chai';
import { createKey } from '../../src/tenancy/keys.js';
import { api } from '../helpers/app.js';
import { startWeb, stopProcess, type WebProcess } from '../helpers/cluster.js';
import { createTestDatabase, waitFor, type TestDatabase } from '../helpers/db.js';
import { FREE_SERVICES, writeTestCatalog } from '../helpers/catalog.js';
import { startStubProvider, type StubProvider } from '../helpers/stubProvider.js';

// Several web processes on one database, as the README tells operators to run them: a budget and a
// rate limit hold over all of them, because each process only spends what it leased from Postgres.
describe('limits across several web processes', function () {
  this.timeout(60_000);
  let db: TestDatabase;
  const webs: WebProcess[] = [];
  before(async () => {
    db = await createTestDatabase();
    for (let i = 0; i < 3; i++) webs.push(await startWeb({ DATABASE_URL: db.url }));
  });
  after(async () => {
    for (const web of webs) await stopProcess(web);
    await db.drop();
  });

  const embed = (url: string, key: string) =>
    api(url, '/v1/embeddings', { method: 'POST', key, body: { model: 'local/embed-1024', input: 'woord '.repeat(1000) } });

  it('50 concurrent requests against a small budget: what is billed stays within the budget', async () => {
    const { key, workspace_id: workspaceId } = await createKey(db.pool, { organization: 'budget', workspace: 'w', kind: 'organization' });
    // Each request costs about 0.001 credits (1,000 tokens of local/embed-1024), all of it its worst case.
    const budget = 0.0205;
    expect((await api(webs[0]!.url, '/v1/settings/limits', { method: 'PUT', key, body: { workspace: { credits_per_day: budget } } })).status).to.equal(200);
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => embed(webs[i % 2]!.url, key)));
    const statuses = answers.map((a) => a.status);
    expect(statuses.every((s) => s === 200 || s === 402), statuses.join(",")).to.equal(true);
    const { rows } = await db.pool.query<{ billed: string; requests: number }>(
      `select coalesce(sum(credits_total), 0) as billed, count(*)::int as requests from usage where workspace_id = $1`,
      [workspaceId],
    );
    const billed = Number(rows[0]!.billed);
    const admitted = statuses.filter((s) => s === 200).length;
    // The bound the README states: the budget, plus one request's worst case per web process
    // (zero here: a request never costs more than its worst case).
    expect(billed).to.be.at.most(budget + 2 * 0.0011);
    expect(rows[0]!.requests).to.equal(admitted);
    // And the budget is used, not stranded in the processes' leases.
    expect(admitted).to.be.at.least(18);
    // What the counter counts as leased is what the two processes hold, each as its own (sql/0033),
    // so that a process that dies can be given back exactly its part.
    const leases = await db.pool.query<{ leased: string; held: string; holders: number }>(
      `select c.leased, (select coalesce(sum(l.amount), 0) from limit_leases l
                          where (l.scope_kind, l.scope_id, l.counter, l.window_start) = (c.scope_kind, c.scope_id, c.counter, c.window_start)) as held,
              (select count(distinct l.holder)::int from limit_leases l where l.scope_id = c.scope_id) as holders
         from limit_counters c where c.scope_kind = 'workspace' and c.scope_id = $1 and c.counter = 'credits_day'`,
      [workspaceId],
    );
    expect(Number(leases.rows[0]!.held)).to.equal(Number(leases.rows[0]!.leased));
    expect(leases.rows[0]!.holders).to.be.within(1, 2);
    console.log(`      budget ${budget}, billed ${billed.toFixed(6)}, admitted ${admitted} of 50`);
  });

  it('a rate limit of 60 per minute holds within 110 % over both processes', async () => {
    const { key } = await createKey(db.pool, { organization: 'rate', workspace: 'w', kind: 'organization' });
    expect((await api(webs[1]!.url, '/v1/settings/limits', { method: 'PUT', key, body: { workspace: { requests_per_minute: 60 } } })).status).to.equal(200);
    // All in one fixed minute: start in its first 40 seconds.
    await waitFor(async () => new Date().getUTCSeconds() < 40, { timeoutMs: 25_000, what: 'the start of a minute' });
    const answers = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        api(webs[i % 2]!.url, '/v1/chat/completions', {
          method: 'POST',
          key,
          body: { model: 'local/echo', max_tokens: 10, cache: false, messages: [{ role: 'user', content: `vraag ${i}` }] },
        }),
      ),
    );
    const admitted = answers.filter((a) => a.status === 200).length;
    expect(answers.filter((a) => a.status !== 200).every((a) => a.status === 429)).to.equal(true);
    expect(admitted).to.be.at.most(66);
    expect(admitted).to.be.at.least(54);
    console.log(`      limit 60/min, admitted ${admitted} of 100`);
  });

  it('admits a request that fits a budget at once, though other processes hold what earlier requests left of their leases; a 402 shows what is billed', async () => {
    const budget = 0.1;
    const { key, key_id: keyId } = await createKey(db.pool, {
      organization: 'idle',
      workspace: 'w',
      kind: 'organization',
      limits: { requests_per_minute: null, tokens_per_minute: null, credits_per_day: budget, credits_per_month: null },
    });
    // About 1,100 prompt tokens: 0.011 credits, and as much for the firewall. An answer capped at 500
    // tokens reserves 0.01 more than the few tokens local/echo writes cost.
    const system = 'woord '.repeat(1090);
    const chat = (url: string, maxTokens: number) =>
      api(url, '/v1/chat/completions', {
        method: 'POST',
        key,
        body: { model: 'local/echo', max_tokens: maxTokens, cache: false, messages: [{ role: 'system', content: system }, { role: 'user', content: 'hoi' }] },
      });
    const billedNow = async () => (await api(webs[0]!.url, '/v1/usage', { key })).body.budgets[0].used as number;
    // One request through each process: each keeps what its request did not use of its lease.
    for (const web of webs) {
      const answer = await chat(web.url, 500);
      expect(answer.status, answer.text).to.equal(200);
    }
    const billed = await billedNow();
    expect(billed).to.be.within(0.064, 0.068);
    // Nothing is in flight, and billed + its worst case (about 0.032) fits: admitted now, not once
    // the other processes give back what they hold after 15 to 30 s idle.
    const asked = performance.now();
    const fourth = await chat(webs[0]!.url, 500);
    const tookMs = performance.now() - asked;
    expect(fourth.status, fourth.text).to.equal(200);
    console.log(`      admitted after the other processes gave back what they held unused, in ${tookMs.toFixed(1)} ms`);
    // A request whose worst case (about 0.022) does not fit beside what is billed (about 0.088).
    const spent = await billedNow();
    const refused = await chat(webs[0]!.url, 10);
    expect(refused.status, refused.text).to.equal(402);
    expect(refused.body.budget.used, 'what is billed, not billed plus leased').to.equal(spent);
    // That refusal reaches the 100 % mark (a request of at most a quarter of the budget), which says what is billed too.
    const marks = await db.pool.query<{ billed: string }>(
      `select details->>'billed' as billed from audit_log
        where action = 'budget.threshold' and target = $1 and (details->>'percent')::int = 100`,
      [keyId],
    );
    expect(marks.rows.map((row) => Number(row.billed))).to.deep.equal([spent]);
  });

  it('reclaims at once what a killed process held of a budget, when a request that fits needs it', async () => {
    const { key } = await createKey(db.pool, {
      organization: 'killed',
      workspace: 'w',
      kind: 'organization',
      limits: { requests_per_minute: null, tokens_per_minute: null, credits_per_day: 0.1, credits_per_month: null },
    });
    const system = 'woord '.repeat(1090);
    const chat = (url: string) =>
      api(url, '/v1/chat/completions', {
        method: 'POST',
        key,
        body: { model: 'local/echo', max_tokens: 500, cache: false, messages: [{ role: 'system', content: system }, { role: 'user', content: 'hoi' }] },
      });
    // Each process keeps what its request did not use of its block; then one of them is killed.
    for (const web of webs) expect((await chat(web.url)).status).to.equal(200);
    const victim = webs[2]!;
    const gone = new Promise((resolve) => victim.child.once('exit', resolve));
    victim.child.kill('SIGKILL');
    await gone;
    // Billed (about 0.066) and this request's worst case (about 0.032) fit only with the killed
    // process's unused part given back, which it cannot answer a recall for.
    const asked = performance.now();
    const answer = await chat(webs[0]!.url);
    expect(answer.status, answer.text).to.equal(200);
    console.log(`      admitted ${(performance.now() - asked).toFixed(1)} ms after asking, with the killed process's part reclaimed`);
  });
});

describe('a budget held by another process’s request in flight', function () {
  this.timeout(60_000);
  let db: TestDatabase;
  let stub: StubProvider;
  const webs: WebProcess[] = [];
  before(async () => {
    db = await createTestDatabase();
    stub = await startStubProvider();
    const catalog = writeTestCatalog(`providers:
  - {id: eu-chat, region: eu, kind: openai, base_url: "${stub.url}", api_key: "\${STUB_KEY}", timeout_ms: 10000}
models:
  - id: stub/chat
    type: chat
    context_length: 32000
    pricing: {prompt: 1, completion: 10}
    endpoints:
      - {provider: eu-chat, upstream_model: chat-upstream}
aliases: {}
${FREE_SERVICES}
`);
    for (let i = 0; i < 2; i++) webs.push(await startWeb({ DATABASE_URL: db.url, CATALOG_FILE: catalog, STUB_KEY: 'sk-stub' }));
  });
  after(async () => {
    for (const web of webs) await stopProcess(web);
    await stub.close();
    await db.drop();
  });

  it('is refused while that request runs, its 402 saying what is billed, and admitted as soon as it ended', async () => {
    const { key } = await createKey(db.pool, {
      organization: 'in-flight',
      workspace: 'w',
      kind: 'organization',
      limits: { requests_per_minute: null, tokens_per_minute: null, credits_per_day: 1.5, credits_per_month: null },
    });
    // Each reserves about 1.0 (100 answer tokens at 10 credits per 1,000) and bills a few hundredths:
    // two do not fit at once; one beside what the other billed does.
    const chat = (url: string) =>
      api(url, '/v1/chat/completions', { method: 'POST', key, body: { model: 'stub/chat', max_tokens: 100, cache: false, messages: [{ role: 'user', content: 'hoi' }] } });
    stub.script({ type: 'answer', delayMs: 1_500 });
    let ended = false;
    const first = chat(webs[0]!.url).finally(() => (ended = true));
    await stub.waitFor(() => stub.requests.length === 1, 5_000);
    // Asked again and again while it runs: refused each time (unless it ended meanwhile).
    let refusals = 0;
    while (!ended) {
      const refused = await chat(webs[1]!.url);
      if (ended) break;
      expect(refused.status, refused.text).to.equal(402);
      expect(refused.body.budget.used, 'nothing is billed yet').to.equal(0);
      refusals++;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(refusals).to.be.at.least(1);
    expect((await first).status).to.equal(200);
    const billed = (await api(webs[0]!.url, '/v1/usage', { key })).body.budgets[0].used as number;
    expect(billed).to.be.within(0.001, 0.2);
    // QA: refused for up to a second after the first ended, its 402 saying 0 was used.
    await new Promise((resolve) => setTimeout(resolve, 150));
    const admitted = await chat(webs[1]!.url);
    expect(admitted.status, admitted.text).to.equal(200);
  });
});
