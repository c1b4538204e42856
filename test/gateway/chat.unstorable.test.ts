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

// A provider may report usage no bill can hold (a negative or an impossibly large count). That
// request is answered with a clear error and not billed; those committed beside it are answered.
describe('chat: an answer whose usage cannot be billed', () => {
  let gw: GatewayFixture;
  before(async () => {
    gw = await startGatewayFixture();
  });
  after(async () => {
    await gw.close();
  });

  it('answers that request 502 unrecordable_answer, traced and not billed, and the others 200', async () => {
    const completion = {
      id: 'odd',
      object: 'chat.completion',
      created: 1,
      model: 'chat-b-upstream',
      choices: [{ index: 0, message: { role: 'assistant', content: 'Hallo' }, finish_reason: 'stop' }],
      // A count past what the usage table holds, yet within what the model could write: a catalogue
      // may declare a context that large (negative, fractional and impossible counts are not taken
      // from a provider at all, chat.routing.test.ts).
      usage: { prompt_tokens: 4, completion_tokens: 3_000_000_000, total_tokens: 1 },
    };
    gw.euB.script({ type: 'raw', body: JSON.stringify(completion) });
    const oddBody = chatBody({ model: 'test/vast' });
    const [odd, ...others] = await Promise.all([
      postChat(gw, oddBody, { 'x-request-id': 'odd-usage' }),
      ...Array.from({ length: 6 }, (_, i) => postChat(gw, chatBody(), { 'x-request-id': `beside-odd-usage-${i}` })),
    ]);
    expect(odd!.status).to.equal(502);
    const body = (await odd!.json()) as { code: string; message: string };
    expect(body.code).to.equal('unrecordable_answer');
    expect(body.message).to.contain('usage.0.completion_tokens');
    expect(others.map((r) => r.status)).to.deep.equal([200, 200, 200, 200, 200, 200]);

    const { rows } = await gw.app.db.pool.query(
      "select request_id from usage where request_id = 'odd-usage' or request_id like 'beside-odd-usage-%' order by request_id",
    );
    expect(rows.map((r) => r.request_id)).to.deep.equal(Array.from({ length: 6 }, (_, i) => `beside-odd-usage-${i}`));
    const trace = await gw.app.db.pool.query("select status from traces where id = 'odd-usage'");
    expect(trace.rows).to.deep.equal([{ status: 502 }]);
    // Not billed, so not kept: a retry runs anew, and is billed once.
    const retry = await postChat(gw, oddBody, { 'x-request-id': 'odd-usage' });
    expect(retry.status).to.equal(200);
    expect(retry.headers.get('x-replay')).to.equal(null);
    const billed = await gw.app.db.pool.query("select count(*)::int as n from usage where request_id = 'odd-usage'");
    expect(billed.rows[0].n).to.equal(1);
    // The trace is the attempt that succeeded and was billed.
    const traced = await gw.app.db.pool.query("select status, provider from traces where id = 'odd-usage'");
    expect(traced.rows).to.deep.equal([{ status: 200, provider: 'eu-b' }]);
  });
});
