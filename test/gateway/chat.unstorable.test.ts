import { expect } from 'chai';
import { waitFor } from '../helpers/db.js';
import { chatBody, postChat, startGatewayFixture, type GatewayFixture } from '../helpers/gateway.js';

// A provider may answer with what Postgres cannot store (a NUL, a lone surrogate). The caller gets
// the answer as it came; what is kept (trace, thread, the answer kept for a retry) holds U+FFFD
// instead, and neither this request nor the others committed with it fail.
describe('chat: an answer Postgres cannot store as it is', () => {
  let gw: GatewayFixture;
  before(async () => {
    gw = await startGatewayFixture();
    await gw.app.startWorker();
  });
  after(async () => {
    await gw.close();
  });

  it('answers, bills and traces it, with U+FFFD in what is kept; the requests settled with it succeed', async () => {
    // test/chat-b is served by eu-b alone; the others go to eu-a.
    gw.euB.script({ type: 'answer', content: 'Hallo \u0000 en \ud800' });
    const oddBody = chatBody({ model: 'test/chat-b', thread: 'odd-thread' });
    const [odd, ...others] = await Promise.all([
      postChat(gw, oddBody, { 'x-request-id': 'odd-answer' }),
      ...Array.from({ length: 6 }, (_, i) => postChat(gw, chatBody(), { 'x-request-id': `beside-odd-${i}` })),
    ]);
    expect(odd!.status).to.equal(200);
    const answer = (await odd!.json()) as { choices: { message: { content: string } }[] };
    expect(answer.choices[0]!.message.content).to.equal('Hallo \u0000 en \ud800');
    expect(others.map((r) => r.status)).to.deep.equal([200, 200, 200, 200, 200, 200]);

    const trace = await waitFor(
      async () => (await gw.app.db.pool.query("select output from traces where id = 'odd-answer'")).rows[0],
      { what: 'the trace' },
    );
    expect(trace.output[0].message.content).to.equal('Hallo \ufffd en \ufffd');
    const billed = await waitFor(
      async () => {
        const { rows } = await gw.app.db.pool.query("select count(*)::int as n from usage where request_id = 'odd-answer' or request_id like 'beside-odd-%'");
        return rows[0].n === 7 ? rows[0].n : undefined;
      },
      { what: 'seven usage rows' },
    );
    expect(billed).to.equal(7);
    const thread = await gw.app.db.pool.query("select content from thread_messages where thread_id = 'odd-thread' and role = 'assistant'");
    expect(thread.rows.map((r) => r.content)).to.deep.equal(['Hallo \ufffd en \ufffd']);

    const retry = await postChat(gw, oddBody, { 'x-request-id': 'odd-answer' });
    expect(retry.headers.get('x-replay')).to.equal('true');
    const replayed = (await retry.json()) as { choices: { message: { content: string } }[] };
    expect(replayed.choices[0]!.message.content).to.equal('Hallo \ufffd en \ufffd');
  });
});
