import { expect } from 'chai';
import { api } from '../helpers/app.js';
import { chatBody, postChat, useGatewayFixture } from '../helpers/gateway.js';

// When a budget's refusals reach its marks (LimitGate.refuse): what is billed decides, not what
// requests in flight reserved.
describe('budget marks on refusals', () => {
  const gw = useGatewayFixture();

  it('marks nothing when a burst is refused for what requests in flight reserved, with the budget nearly unbilled', async () => {
    const { key } = await gw.app.key({ org: 'burst', workspace: 'w' });
    expect((await api(gw.app.baseUrl, '/v1/settings/limits', { method: 'PUT', key, body: { workspace: { credits_per_day: 10 } } })).status).to.equal(200);
    // Each reserves about 2.2 (1,100 answer tokens at 2 credits per 1,000): four fit at once, and
    // each is small enough (under a quarter of the budget) that a refusal of it when the budget is
    // spent marks 100 %. Each bills a few hundredths.
    for (let i = 0; i < 12; i++) gw.euA.script({ type: 'answer', delayMs: 300 });
    const statuses = await Promise.all(Array.from({ length: 12 }, async (_, i) => (await postChat(gw, chatBody({ max_tokens: 1_100, messages: [{ role: 'user', content: `vraag ${i}` }] }), {}, key)).status));
    expect(statuses.filter((status) => status === 402)).to.have.length.of.at.least(6);
    const billed = (await api(gw.app.baseUrl, '/v1/usage', { key })).body.budgets[0].used as number;
    expect(billed).to.be.below(1);
    expect((await api(gw.app.baseUrl, '/v1/audit-log?action=budget.threshold', { key })).body.data).to.deep.equal([]);
  });
});
