import { expect } from 'chai';
import { api } from '../helpers/app.js';
import { waitFor } from '../helpers/db.js';
import { chatBody, postChat, startGatewayFixture, type GatewayFixture } from '../helpers/gateway.js';

// PATCH /memory/facts/{id}: a caller corrects one fact, as mem0's update(memory_id, data) (QA,
// 2026-11-27: a wrong fact could only be deleted and submitted again, through extraction, which
// may merge, drop or split it).
describe('PATCH /memory/facts/{id}', () => {
  let gw: GatewayFixture;
  before(async () => {
    gw = await startGatewayFixture();
    await gw.app.startWorker();
  });
  after(async () => {
    await gw.close();
  });

  const remember = async (userRef: string, content: string): Promise<{ id: string; updated_at: string }> => {
    const submitted = await api(gw.app.baseUrl, '/v1/recall/facts', { method: 'POST', key: gw.key, body: { content, user_ref: userRef } });
    expect(submitted.status).to.equal(202);
    return waitFor(async () => (await api(gw.app.baseUrl, `/v1/recall/facts?user_ref=${userRef}`, { key: gw.key })).body.data[0], {
      what: `the fact of ${userRef}`,
      timeoutMs: 15_000,
    });
  };
  const correct = (id: string, body: unknown, key = gw.key) => api(gw.app.baseUrl, `/v1/memory/facts/${id}`, { method: 'PATCH', key, body });
  const correctionsBilled = async () =>
    (await gw.app.db.pool.query("select count(*)::int as n from usage u join traces t on t.id = u.request_id where u.kind = 'facts' and t.input::jsonb ? 'fact_id'")).rows[0].n as number;

  it('rewrites the text, searched and retrieved as it now reads, billed once with a trace and an audit entry by the key', async () => {
    const fact = await remember('klant-c1', 'Ik woon in Leiden.');
    const billedBefore = await correctionsBilled();
    const corrected = await correct(fact.id, { content: 'Ik woon in Amsterdam, aan de Prinsengracht.' });
    expect(corrected.status).to.equal(200);
    expect(corrected.body).to.include({ id: fact.id, user_ref: 'klant-c1', content: 'Ik woon in Amsterdam, aan de Prinsengracht.' });
    expect(Date.parse(corrected.body.updated_at)).to.be.above(Date.parse(fact.updated_at));
    expect((await api(gw.app.baseUrl, `/v1/recall/facts/${fact.id}`, { key: gw.key })).body.content).to.equal('Ik woon in Amsterdam, aan de Prinsengracht.');
    const found = await api(gw.app.baseUrl, '/v1/recall/facts?user_ref=klant-c1&q=Prinsengracht', { key: gw.key });
    expect(found.body.data.map((f: { id: string }) => f.id)).to.deep.equal([fact.id]);
    const old = await api(gw.app.baseUrl, '/v1/recall/facts?user_ref=klant-c1&q=Leiden', { key: gw.key });
    expect(JSON.stringify(old.body.data)).not.to.contain('Leiden');

    expect(await correctionsBilled()).to.equal(billedBefore + 1);
    const audit = await gw.app.db.pool.query("select actor_key_id, actor_kind, details from audit_log where action = 'fact.corrected' and target = $1", [fact.id]);
    expect(audit.rows).to.have.length(1);
    expect(audit.rows[0].actor_kind).to.equal('organization');
    expect(audit.rows[0].actor_key_id).to.be.a('string');
    expect(audit.rows[0].details).to.deep.include({ user_ref: 'klant-c1', updated: 1 });
    expect(JSON.stringify(audit.rows[0])).not.to.match(/Amsterdam|Leiden/);
    const trace = await gw.app.db.pool.query("select key_id, status from traces where kind = 'facts' and input ->> 'fact_id' = $1", [fact.id]);
    expect(trace.rows).to.deep.equal([{ key_id: audit.rows[0].actor_key_id, status: 200 }]);

    // The same text again (a retry of a correction that succeeded) changes and bills nothing.
    const again = await correct(fact.id, { content: 'Ik woon in Amsterdam, aan de Prinsengracht.' });
    expect(again.status).to.equal(200);
    expect(again.body.updated_at).to.equal(corrected.body.updated_at);
    expect(await correctionsBilled()).to.equal(billedBefore + 1);
  });

  it('takes the old text out of the answers it was retrieved into: a replay of one is refused, not handed back', async () => {
    const fact = await remember('klant-c2', 'Ik heb een inboedelverzekering sinds 2013 bij Achmea.');
    const question = 'Bij welke verzekeraar loopt mijn inboedelverzekering?';
    const first = await postChat(gw, chatBody({ user: 'klant-c2', messages: [{ role: 'user', content: question }] }), { 'x-request-id': 'correct-c2' });
    expect(JSON.stringify(((await first.json()) as any).sources)).to.contain('Achmea');
    expect((await correct(fact.id, { content: 'Ik heb een inboedelverzekering sinds 2013 bij Univé.' })).status).to.equal(200);
    const replay = await postChat(gw, chatBody({ user: 'klant-c2', messages: [{ role: 'user', content: question }] }), { 'x-request-id': 'correct-c2' });
    expect(replay.status).to.equal(422);
    expect(await replay.text()).not.to.contain('Achmea');
    const anew = await postChat(gw, chatBody({ user: 'klant-c2', messages: [{ role: 'user', content: question }] }), { 'x-request-id': 'correct-c2-after' });
    const sources = JSON.stringify(((await anew.json()) as any).sources);
    expect(sources).to.contain('Univé');
    expect(sources).not.to.contain('Achmea');
  });

  it('answers 404 for another workspace’s fact, an erased one and an id that is none; 422 for a body that holds no text; 403 without memory.write', async () => {
    const fact = await remember('klant-c3', 'Mijn hond heet Max.');
    const other = await gw.app.key({ org: 'other-correct', workspace: 'w' });
    expect((await correct(fact.id, { content: 'Mijn hond heet Rex.' }, other.key)).status).to.equal(404);
    expect((await api(gw.app.baseUrl, `/v1/recall/facts/${fact.id}`, { key: gw.key })).body.content).to.equal('Mijn hond heet Max.');
    for (const body of [{}, { content: '' }, { content: '   ' }, { content: 'x'.repeat(10_001) }, { content: 'Rex', user_ref: 'klant-c4' }]) {
      const refused = await correct(fact.id, body);
      expect(refused.status, JSON.stringify(body).slice(0, 40)).to.equal(422);
    }
    const readOnly = await gw.app.key({ kind: 'restricted', scopes: ['memory.read'] });
    expect((await correct(fact.id, { content: 'Mijn hond heet Rex.' }, readOnly.key)).status).to.equal(403);
    expect((await correct('not-a-fact', { content: 'Mijn hond heet Rex.' })).status).to.equal(404);
    expect((await api(gw.app.baseUrl, '/v1/memory?user_ref=klant-c3', { method: 'DELETE', key: gw.key })).status).to.equal(200);
    expect((await correct(fact.id, { content: 'Mijn hond heet Rex.' })).status).to.equal(404);
    expect((await gw.app.db.pool.query("select count(*)::int as n from facts where content like '%Rex%'")).rows[0].n).to.equal(0);
  });

  it('a correction that loses a race with the fact\'s deletion answers 404, and is neither billed nor audited (QA)', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) ids.push((await remember(`klant-race-${i}`, `Mijn kat heet Pluis ${i}.`)).id);
    const outcomes = await Promise.all(
      ids.map(async (id, i) => {
        const deletion = api(gw.app.baseUrl, `/v1/memory/facts/${id}`, { method: 'DELETE', key: gw.key });
        const corrected = await correct(id, { content: `Mijn kat heet Snuf ${i}.` });
        await deletion;
        return { id, status: corrected.status };
      }),
    );
    for (const { id, status } of outcomes) {
      expect(status, id).to.be.oneOf([200, 404]);
      const audited = await gw.app.db.pool.query("select count(*)::int as n from audit_log where action = 'fact.corrected' and target = $1", [id]);
      const traced = await gw.app.db.pool.query("select count(*)::int as n from traces where kind = 'facts' and input ->> 'fact_id' = $1", [id]);
      expect({ audited: audited.rows[0].n, traced: traced.rows[0].n }, id).to.deep.equal(status === 200 ? { audited: 1, traced: 1 } : { audited: 0, traced: 0 });
    }
  });

  it('a fact withdrawn by a later submission ("I no longer …") is taken out of the answers it was retrieved into (QA)', async () => {
    await remember('klant-c5', 'Ik heb een inboedelverzekering bij Achmea.');
    const question = 'Bij welke verzekeraar loopt mijn inboedelverzekering?';
    const first = await postChat(gw, chatBody({ user: 'klant-c5', messages: [{ role: 'user', content: question }] }), { 'x-request-id': 'withdraw-c5' });
    expect(JSON.stringify(((await first.json()) as any).sources)).to.contain('Achmea');
    const withdrawal = await api(gw.app.baseUrl, '/v1/recall/facts', { method: 'POST', key: gw.key, body: { content: 'Ik heb geen inboedelverzekering meer.', user_ref: 'klant-c5' } });
    await waitFor(async () => ((await api(gw.app.baseUrl, `/v1/recall/submissions/${withdrawal.body.submission_id}`, { key: gw.key })).body.status === 'done' ? true : undefined), {
      what: 'the withdrawal',
    });
    const facts = await api(gw.app.baseUrl, '/v1/recall/facts?user_ref=klant-c5', { key: gw.key });
    expect(JSON.stringify(facts.body)).not.to.contain('Achmea');
    const replay = await postChat(gw, chatBody({ user: 'klant-c5', messages: [{ role: 'user', content: question }] }), { 'x-request-id': 'withdraw-c5' });
    expect(replay.status).to.equal(422);
    expect(await replay.text()).not.to.contain('Achmea');
  });

  it('holds corrections sent together against a credit budget before any is embedded: they do not go past it (QA)', async () => {
    const { key } = await gw.app.key({ org: 'budget-correct', workspace: 'w' });
    const submitted = await api(gw.app.baseUrl, '/v1/recall/facts', { method: 'POST', key, body: { content: 'Ik woon in Zwolle.', user_ref: 'klant-b' } });
    expect(submitted.status).to.equal(202);
    const fact = await waitFor(async () => (await api(gw.app.baseUrl, '/v1/recall/facts?user_ref=klant-b', { key })).body.data[0], { what: 'the fact', timeoutMs: 15_000 });
    const used = async () => (await api(gw.app.baseUrl, '/v1/settings/limits', { key })).body.workspace.used.credits_today as number;
    const before = await used();
    // Room for a few corrections of some 800 characters, not for 20.
    const one = 'Ik woon in Zwolle, aan de Thorbeckegracht, op nummer 12, sinds het voorjaar. '.repeat(10);
    const budget = before + 0.0001;
    expect((await api(gw.app.baseUrl, '/v1/settings/limits', { method: 'PUT', key, body: { workspace: { credits_per_day: budget } } })).status).to.equal(200);
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => correct(fact.id, { content: `${one} (${i})` }, key)));
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.every((status) => status === 200 || status === 402), String(statuses)).to.equal(true);
    expect(statuses).to.include(402);
    expect(await used()).to.be.at.most(budget + 1e-9);
  });
});
