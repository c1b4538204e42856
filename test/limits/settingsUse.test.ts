import { expect } from 'chai';
import { api } from '../helpers/app.js';
import { waitFor } from '../helpers/db.js';
import { chatBody, postChat, useGatewayFixture } from '../helpers/gateway.js';

// What GET /settings/limits shows as used, next to what the budget refuses by.
describe('GET /v1/settings/limits: credits used under a budget', () => {
  const gw = useGatewayFixture();

  it('shows what the budget counts: a stream the client closed and the retry that replaced its bill both count', async () => {
    expect((await api(gw.app.baseUrl, '/v1/settings/limits', { method: 'PUT', key: gw.key, body: { workspace: { credits_per_day: 1000 } } })).status).to.equal(200);
    gw.euA.script({ type: 'answer', chunks: Array.from({ length: 60 }, (_, i) => `woord${i} `), chunkDelayMs: 30 });
    const controller = new AbortController();
    const response = await fetch(`${gw.app.baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gw.key}`, 'content-type': 'application/json', 'x-request-id': 'closed-then-retried' },
      body: JSON.stringify(chatBody({ stream: true, max_tokens: 200 })),
      signal: controller.signal,
    });
    const reader = response.body!.getReader();
    for (let i = 0; i < 5; i++) await reader.read();
    controller.abort();
    await waitFor(async () => (await gw.app.db.pool.query("select 1 from usage where request_id = 'closed-then-retried' and partial")).rowCount === 1, {
      what: 'the partial bill of the closed stream',
    });
    const retried = await postChat(gw, chatBody({ max_tokens: 200 }), { 'x-request-id': 'closed-then-retried' });
    expect(retried.status).to.equal(200);

    const lines = Number((await gw.app.db.pool.query('select sum(credits_total) as total from usage')).rows[0].total);
    const settings = (await api(gw.app.baseUrl, '/v1/settings/limits', { key: gw.key })).body.workspace.used;
    const budget = (await api(gw.app.baseUrl, '/v1/usage', { key: gw.key })).body.budgets[0];
    // The usage lines hold one answer; the budget both bills, and the settings say as much.
    expect(budget.used).to.be.greaterThan(lines);
    expect(settings.credits_today).to.equal(budget.used);
    expect(settings.credits_this_month).to.be.closeTo(lines, 1e-6);

    // Setting the budget again, or another value of it, keeps what it counted (QA: it fell back to the usage lines).
    for (const credits_per_day of [1000, 900]) {
      expect((await api(gw.app.baseUrl, '/v1/settings/limits', { method: 'PUT', key: gw.key, body: { workspace: { credits_per_day } } })).status).to.equal(200);
      expect((await api(gw.app.baseUrl, '/v1/usage', { key: gw.key })).body.budgets[0].used).to.equal(budget.used);
    }
  });

  it('bills a request admitted before any limits changed into its budgets, whoever changed them meanwhile', async () => {
    const budget = async () => (await api(gw.app.baseUrl, '/v1/usage', { key: gw.key })).body.budgets[0].used as number;
    const before = await budget();
    const elsewhere = (await gw.app.key({ org: 'elsewhere', workspace: 'w' })).key;
    const asked = gw.euA.requests.length;
    gw.euA.script({ type: 'answer', content: 'Een antwoord dat even op zich liet wachten.', delayMs: 1000 });
    const running = postChat(gw, chatBody({ max_tokens: 50 }), { 'x-request-id': 'in-flight-under-budget' });
    await waitFor(async () => gw.euA.requests.length > asked, { what: 'the chat at the provider' });
    // Another organization changes its limits while the chat runs: every process forgets its plans.
    expect((await api(gw.app.baseUrl, '/v1/settings/limits', { method: 'PUT', key: elsewhere, body: { workspace: { requests_per_minute: 100 } } })).status).to.equal(200);
    const answered = await running;
    expect(answered.status).to.equal(200);
    const credits = ((await answered.json()) as any).usage.credits.total as number;
    expect(credits).to.be.greaterThan(0);
    expect(await budget()).to.be.closeTo(before + credits, 1e-8);
  });
});
