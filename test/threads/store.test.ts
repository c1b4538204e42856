import { expect } from 'chai';
import { api } from '../helpers/app.js';
import { postChat, startGatewayFixture, type GatewayFixture } from '../helpers/gateway.js';

// A chat's thread messages are written by the group commit that answers it, with its usage row
// and trace: a thread read or deleted right after the answer holds it. No worker runs here: nothing
// is written later.
describe('threads/store: a thread right after its chat', () => {
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

  it('holds each chat as soon as its answer came, in order', async () => {
    await chat('intake', 'Eerste vraag');
    const first = await read('intake');
    expect(first.status).to.equal(200);
    expect(first.body.id).to.equal('intake');
    expect(contents(first.body)).to.deep.equal([
      ['user', 'Eerste vraag'],
      ['assistant', 'Echo: Eerste vraag'],
    ]);
    expect(first.body.messages[0]).to.have.all.keys('role', 'content', 'created_at', 'request_id');

    await chat('intake', 'Tweede vraag');
    expect(contents((await read('intake')).body)).to.deep.equal([
      ['user', 'Eerste vraag'],
      ['assistant', 'Echo: Eerste vraag'],
      ['user', 'Tweede vraag'],
      ['assistant', 'Echo: Tweede vraag'],
    ]);
  });

  it('deletes a thread right after its chat, and it does not come back; the chat stays billed and traced', async () => {
    await chat('kort', 'Alleen deze vraag');
    const deleted = await api(gw.app.baseUrl, '/v1/memory/threads/kort', { method: 'DELETE', key: gw.key });
    expect(deleted.status).to.equal(200);
    expect(deleted.body).to.deep.equal({ deleted: true });
    expect((await read('kort')).status).to.equal(404);
    const audit = await api(gw.app.baseUrl, '/v1/audit-log?limit=5', { key: gw.key });
    expect(audit.body.data.find((e: any) => e.action === 'thread.deleted')).to.include({ target: 'kort' });
    await gw.app.startWorker();
    await chat('ander', 'Nog een vraag');
    expect((await read('kort')).status).to.equal(404);
    const { rows } = await gw.app.db.pool.query(
      `select (select count(*) from usage) as usage, (select count(*) from traces) as traces,
              (select count(*) from thread_messages where thread_id = 'kort') as messages`,
    );
    expect(rows[0]).to.deep.equal({ usage: '2', traces: '2', messages: '0' });
  });

  it("answers 404 for another workspace's thread, and leaves it alone", async () => {
    await chat('eigen', 'Van mij');
    const elsewhere = await gw.app.key({ org: 'other-org', workspace: 'main' });
    expect((await read('eigen', elsewhere.key)).status).to.equal(404);
    const refused = await api(gw.app.baseUrl, '/v1/memory/threads/eigen', { method: 'DELETE', key: elsewhere.key });
    expect(refused.status).to.equal(404);
    expect(contents((await read('eigen')).body)).to.deep.equal([
      ['user', 'Van mij'],
      ['assistant', 'Echo: Van mij'],
    ]);
  });
});
