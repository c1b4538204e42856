import http from 'node:http';
import { expect } from 'chai';
import { api } from '../helpers/app.js';
import { postChat, startGatewayFixture, type GatewayFixture } from '../helpers/gateway.js';

// A chat's trace, usage row and audit entry are written by the group commit that answers it: a
// trace read or scored right after the answer is there. No worker runs here.
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
  // The table's name and condition are this file's own literals; values go as parameters.
  const count = async (table: string, where = 'true', values: unknown[] = []) =>
    Number((await gw.app.db.pool.query(`select count(*) from ${table} where ${where}`, values)).rows[0].count);

  it('answers GET /traces/{id} at once, and everything the request left is written once', async () => {
    const id = await chat();
    const trace = await api(gw.app.baseUrl, `/v1/traces/${id}`, { key: gw.key });
    expect(trace.status).to.equal(200);
    expect(trace.body).to.include({ id, kind: 'chat', name: 'intake', model: 'local/echo', status: 200 });
    expect(await count('usage', 'request_id = $1', [id])).to.equal(1);
    expect(await count('audit_log', 'target = $1', [id])).to.equal(1);

    await gw.app.startWorker();
    await chat();
    expect(await count('traces')).to.equal(2);
    expect(await count('usage')).to.equal(2);
    expect(await count('audit_log', "action = 'chat.completion'")).to.equal(2);
  });

  it('keeps a request id sent in UTF-8 as the caller wrote it, and echoes it percent-encoded', async () => {
    // node:http writes a header one byte per character: this is "Zoë-€1" in UTF-8, as curl sends it.
    const header = Buffer.from('Zoë-€1', 'utf8').toString('latin1');
    const echoed = await new Promise<string | undefined>((resolve, reject) => {
      const request = http.request(
        `${gw.app.baseUrl}/v1/chat/completions`,
        { method: 'POST', headers: { authorization: `Bearer ${gw.key}`, 'content-type': 'application/json', 'x-request-id': header } },
        (response) => {
          response.resume();
          response.on('end', () => resolve(response.headers['x-request-id'] as string | undefined));
        },
      );
      request.on('error', reject);
      // A Buffer body, so that node:http writes the header one byte per character (with a string body it would write it in UTF-8).
      request.end(Buffer.from(JSON.stringify({ model: 'local/echo', messages: [{ role: 'user', content: 'Hallo' }] })));
    });
    expect(echoed).to.equal(encodeURIComponent('Zoë-€1'));
    const trace = await api(gw.app.baseUrl, `/v1/traces/${encodeURIComponent('Zoë-€1')}`, { key: gw.key });
    expect(trace.status).to.equal(200);
    expect(trace.body.id).to.equal('Zoë-€1');
  });

  it('scores an answer at once', async () => {
    const id = await chat();
    const score = await api(gw.app.baseUrl, '/v1/scores', { method: 'POST', key: gw.key, body: { trace_id: id, name: 'helpful', value: 1 } });
    expect(score.status).to.equal(201);
    expect(score.body.data).to.include({ trace_id: id, name: 'helpful', value: 1 });
    const listed = await api(gw.app.baseUrl, `/v1/scores?trace_id=${id}`, { key: gw.key });
    expect(listed.body.data.map((s: any) => s.name)).to.deep.equal(['helpful']);
  });

  it("answers 404 for another workspace's trace, and leaves it alone", async () => {
    const id = await chat();
    const elsewhere = await gw.app.key({ org: 'other-org', workspace: 'main' });
    expect((await api(gw.app.baseUrl, `/v1/traces/${id}`, { key: elsewhere.key })).status).to.equal(404);
    const score = await api(gw.app.baseUrl, '/v1/scores', { method: 'POST', key: elsewhere.key, body: { trace_id: id, name: 'x', value: true } });
    expect(score.status).to.equal(404);
    expect(await count('traces')).to.equal(1);
    expect(await count('scores')).to.equal(0);
  });
});
