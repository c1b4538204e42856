import { expect } from 'chai';
import { api } from '../helpers/app.js';
import { waitFor } from '../helpers/db.js';
import { postChat, startGatewayFixture, type GatewayFixture } from '../helpers/gateway.js';

// A chat's trace, usage row and audit entry are written by the settlements drain, ~100 ms after
// the answer. A trace read or scored before that is written at once. Each test starts without a
// worker, so nothing is drained until the test starts one.
describe('traces: a trace asked for or scored right after its answer', () => {
  let gw: GatewayFixture;
  beforeEach(async () => {
    gw = await startGatewayFixture();
  });
  afterEach(async () => {
    await gw.close();
  });

  const chat = async () => {
    const response = await postChat(gw, { model: 'local/echo', name: 'intake', messages: [{ role: 'user', content: 'Wat kost dat?' }] });
    expect(response.status).to.equal(200);
    return response.headers.get('x-request-id')!;
  };
  const count = async (table: string, where = 'true') =>
    Number((await gw.app.db.pool.query(`select count(*) from ${table} where ${where}`)).rows[0].count);
  const drainAll = async () => {
    await gw.app.startWorker();
    await waitFor(async () => (await count('pending_settlements', 'failed_at is null')) === 0, { what: 'the drain' });
  };

  it('answers GET /traces/{id} at once, and everything the request left is written once', async () => {
    const id = await chat();
    expect(await count('traces')).to.equal(0);
    const trace = await api(gw.app.baseUrl, `/v1/traces/${id}`, { key: gw.key });
    expect(trace.status).to.equal(200);
    expect(trace.body).to.include({ id, name: 'intake', model: 'local/echo', status: 200 });
    expect(await count('usage', `request_id = '${id}'`)).to.equal(1);
    expect(await count('audit_log', `target = '${id}'`)).to.equal(1);
    expect(await count('pending_settlements')).to.equal(0);

    await drainAll();
    expect(await count('traces')).to.equal(1);
    expect(await count('usage')).to.equal(1);
    expect(await count('audit_log', "action = 'chat.completion'")).to.equal(1);
  });

  it('scores an answer at once', async () => {
    const id = await chat();
    const score = await api(gw.app.baseUrl, '/v1/scores', { method: 'POST', key: gw.key, body: { trace_id: id, name: 'helpful', value: 1 } });
    expect(score.status).to.equal(201);
    expect(score.body.data).to.include({ trace_id: id, name: 'helpful', value: 1 });
    const listed = await api(gw.app.baseUrl, `/v1/scores?trace_id=${id}`, { key: gw.key });
    expect(listed.body.data.map((s: any) => s.name)).to.deep.equal(['helpful']);
  });

  it("answers 404 for another workspace's trace on its way, and leaves it on its way", async () => {
    const id = await chat();
    const elsewhere = await gw.app.key({ org: 'other-org', workspace: 'main' });
    expect((await api(gw.app.baseUrl, `/v1/traces/${id}`, { key: elsewhere.key })).status).to.equal(404);
    const score = await api(gw.app.baseUrl, '/v1/scores', { method: 'POST', key: elsewhere.key, body: { trace_id: id, name: 'x', value: true } });
    expect(score.status).to.equal(404);
    expect(await count('pending_settlements')).to.equal(1);
    expect(await count('traces')).to.equal(0);
  });

  it('leaves a settlement the tables refuse to the drain, which sets it aside', async () => {
    const id = await chat();
    await gw.app.db.pool.query(`update pending_settlements set trace = (trace::jsonb || '{"attempts": {"first": "eu-a"}}')::json`);
    expect((await api(gw.app.baseUrl, `/v1/traces/${id}`, { key: gw.key })).status).to.equal(404);
    expect(await count('pending_settlements', 'failed_at is null')).to.equal(1);
    expect(await count('usage')).to.equal(0);

    await drainAll();
    const { rows } = await gw.app.db.pool.query('select error from pending_settlements where failed_at is not null');
    expect(rows.map((r) => r.error)).to.have.length(1);
    expect(rows[0].error).to.match(/attempts/);
  });
});
