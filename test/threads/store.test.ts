import { expect } from 'chai';
import { api } from '../helpers/app.js';
import { drainPendingSettlements } from '../../src/metering/pendingSettlements.js';
import { waitFor } from '../helpers/db.js';
import { postChat, startGatewayFixture, type GatewayFixture } from '../helpers/gateway.js';

// A chat's thread messages are written by the settlements drain, ~100 ms after the answer. Until
// then they are pending settlements, and a thread is read and deleted with them. Each test starts
// without a worker, so nothing is drained until the test starts one.
describe('threads/store: a thread with the messages still on their way', () => {
  let gw: GatewayFixture;
  beforeEach(async () => {
    gw = await startGatewayFixture();
  });
  afterEach(async () => {
    await gw.close();
  });

  const chat = async (thread: string, content: string, key = gw.key) => {
    const response = await postChat(gw, { model: 'local/echo', thread, messages: [{ role: 'user', content }] }, {}, key);
    expect(response.status).to.equal(200);
  };
  const read = (thread: string, key = gw.key) => api(gw.app.baseUrl, `/v1/recall/threads/${thread}`, { key });
  const contents = (body: any) => body.messages.map((m: any) => [m.role, m.content]);
  const pendingRows = async () => Number((await gw.app.db.pool.query('select count(*) from pending_settlements')).rows[0].count);
  // What a settlements__drain job runs, called here so that a test decides what has landed.
  const land = async () => {
    await drainPendingSettlements(gw.app.db.pool, 500);
    expect(await pendingRows()).to.equal(0);
  };
  const drainAll = async () => {
    await gw.app.startWorker();
    await waitFor(async () => (await pendingRows()) === 0, { what: 'the drain to write every pending settlement' });
  };

  it('reads a chat in its thread as soon as the answer came, and once the drain wrote it, the same', async () => {
    await chat('intake', 'Eerste vraag');
    expect(await pendingRows()).to.equal(1);
    const before = await read('intake');
    expect(before.status).to.equal(200);
    expect(before.body.id).to.equal('intake');
    expect(contents(before.body)).to.deep.equal([
      ['user', 'Eerste vraag'],
      ['assistant', 'Echo: Eerste vraag'],
    ]);
    expect(before.body.messages[0]).to.have.all.keys('role', 'content', 'created_at', 'request_id');

    await land();
    expect((await read('intake')).body).to.deep.equal(before.body);

    // The written messages first, then those still pending, each once.
    await chat('intake', 'Tweede vraag');
    const expected = [
      ['user', 'Eerste vraag'],
      ['assistant', 'Echo: Eerste vraag'],
      ['user', 'Tweede vraag'],
      ['assistant', 'Echo: Tweede vraag'],
    ];
    const mixed = await read('intake');
    expect(contents(mixed.body)).to.deep.equal(expected);
    await drainAll();
    expect((await read('intake')).body).to.deep.equal(mixed.body);
  });

  it('deletes a thread whose last chat is not written yet, and it does not come back', async () => {
    await chat('kort', 'Alleen deze vraag');
    const deleted = await api(gw.app.baseUrl, '/v1/memory/threads/kort', { method: 'DELETE', key: gw.key });
    expect(deleted.status).to.equal(200);
    expect(deleted.body).to.deep.equal({ deleted: true });
    expect((await read('kort')).status).to.equal(404);

    await drainAll();
    expect((await read('kort')).status).to.equal(404);
    // The chat itself is still billed and traced; only its thread messages are gone.
    const { rows } = await gw.app.db.pool.query('select (select count(*) from usage) as usage, (select count(*) from traces) as traces');
    expect(rows[0]).to.deep.equal({ usage: '1', traces: '1' });
  });

  it('deletes the written and the pending part of a thread together', async () => {
    await chat('lang', 'Een');
    await land();
    await chat('lang', 'Twee');
    expect((await read('lang')).body.messages).to.have.length(4);
    const deleted = await api(gw.app.baseUrl, '/v1/memory/threads/lang', { method: 'DELETE', key: gw.key });
    expect(deleted.body).to.deep.equal({ deleted: true });
    await drainAll();
    expect((await read('lang')).status).to.equal(404);
    const { rows } = await gw.app.db.pool.query('select count(*) from thread_messages');
    expect(rows[0].count).to.equal('0');
  });

  it("answers 404 for another workspace's pending thread, and leaves it alone", async () => {
    await chat('eigen', 'Van mij');
    const elsewhere = await gw.app.key({ org: 'other-org', workspace: 'main' });
    expect((await read('eigen', elsewhere.key)).status).to.equal(404);
    const refused = await api(gw.app.baseUrl, '/v1/memory/threads/eigen', { method: 'DELETE', key: elsewhere.key });
    expect(refused.status).to.equal(404);

    await drainAll();
    expect(contents((await read('eigen')).body)).to.deep.equal([
      ['user', 'Van mij'],
      ['assistant', 'Echo: Van mij'],
    ]);
  });
});
