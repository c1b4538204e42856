import { expect } from 'chai';
import { api } from '../helpers/app.js';
import { waitFor } from '../helpers/db.js';
import { chatBody, postChat, startGatewayFixture, type GatewayFixture } from '../helpers/gateway.js';

describe('erasure of an end-user and their chat traces', () => {
  let gw: GatewayFixture;
  before(async () => {
    gw = await startGatewayFixture();
    await gw.app.startWorker();
  });
  after(async () => {
    await gw.close();
  });

  it('removes the traces that named the end-user, and only those', async () => {
    await postChat(gw, chatBody({ user: 'leaving-customer' }), { 'x-request-id': 'about-them' });
    await postChat(gw, chatBody({ user: 'staying-customer' }), { 'x-request-id': 'about-someone-else' });
    const traceIds = async () => (await gw.app.db.pool.query('select id from traces order by id')).rows.map((r) => r.id);
    await waitFor(async () => (await traceIds()).length === 2, { what: 'both traces' });
    const erased = await api(gw.app.baseUrl, '/v1/memory?user_ref=leaving-customer', { method: 'DELETE', key: gw.key });
    expect(erased.status).to.equal(200);
    expect(erased.body.user_ref).to.equal('leaving-customer');
    expect(await traceIds()).to.deep.equal(['about-someone-else']);
    const audit = await waitFor(
      async () => (await gw.app.db.pool.query("select details from audit_log where action = 'memory.erased'")).rows[0],
      { what: 'the erasure audit entry' },
    );
    expect(audit.details.traces).to.equal(1);
  });
});
