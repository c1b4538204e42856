import { expect } from 'chai';
import { api } from '../helpers/app.js';
import { waitFor } from '../helpers/db.js';
import { startFactsFixture, submitFact, type FactsFixture } from './factsFixture.js';

// One fact by its id, as mem0's get(memory_id) (QA, 2026-11-27: only a listing or a search showed one).
describe('GET /recall/facts/{id}', () => {
  let fx: FactsFixture;
  before(async () => {
    fx = await startFactsFixture();
    await fx.app.startWorker();
  });
  after(async () => {
    await fx.close();
  });

  const getFact = (id: string, key = fx.key) => api(fx.app.baseUrl, `/v1/recall/facts/${id}`, { key });
  const storedFacts = async (userRef: string) => {
    const accepted = await submitFact(fx.app, fx.key, { content: 'Ik woon in Deventer en ik heb een hond.', user_ref: userRef });
    expect(accepted.status).to.equal(202);
    return waitFor(
      async () => {
        const listed = await api(fx.app.baseUrl, `/v1/recall/facts?user_ref=${userRef}`, { key: fx.key });
        return listed.body.data.length > 0 ? (listed.body.data as { id: string; content: string }[]) : undefined;
      },
      { what: `the facts of ${userRef}` },
    );
  };

  it('answers a fact as the listing shows it, and 404 once it is forgotten or its end-user erased', async () => {
    const [first, second] = await storedFacts('klant-get-1');
    const got = await getFact(first!.id);
    expect(got.status).to.equal(200);
    const listed = await api(fx.app.baseUrl, '/v1/recall/facts?user_ref=klant-get-1', { key: fx.key });
    expect(got.body).to.deep.equal(listed.body.data.find((fact: { id: string }) => fact.id === first!.id));
    expect(got.body).to.include({ user_ref: 'klant-get-1' });
    expect(got.body.content).to.match(/Deventer|hond/);

    expect((await api(fx.app.baseUrl, `/v1/memory/facts/${first!.id}`, { method: 'DELETE', key: fx.key })).status).to.equal(200);
    expect((await getFact(first!.id)).status).to.equal(404);
    if (second) {
      expect((await api(fx.app.baseUrl, '/v1/memory?user_ref=klant-get-1', { method: 'DELETE', key: fx.key })).status).to.equal(200);
      expect((await getFact(second.id)).status).to.equal(404);
    }
  });

  it('answers 404 for another workspace’s fact and for an id that is none, 403 without memory.read', async () => {
    const [fact] = await storedFacts('klant-get-2');
    const other = await fx.app.key({ org: 'other-get', workspace: 'w' });
    const refused = await getFact(fact!.id, other.key);
    expect(refused.status).to.equal(404);
    expect(JSON.stringify(refused.body)).not.to.match(/Deventer|hond/);
    expect((await getFact('not-a-fact')).status).to.equal(404);
    const chatOnly = await fx.app.key({ kind: 'restricted', scopes: ['chat.create'] });
    expect((await getFact(fact!.id, chatOnly.key)).status).to.equal(403);
  });
});
