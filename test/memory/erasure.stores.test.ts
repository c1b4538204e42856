import { expect } from 'chai';
import { api } from '../helpers/app.js';
import { waitFor } from '../helpers/db.js';
import { chatBody, postChat, startGatewayFixture, type GatewayFixture } from '../helpers/gateway.js';
import { createCollection, ingest, settled } from './documentsFixture.js';

// "Nothing may reappear after the erasure" holds for every store that keeps what a chat naming the
// end-user said or was told: replayable answers, the response cache and threads, besides facts
// and traces.
describe('erasure reaches replays, the response cache, threads and stored responses', () => {
  let gw: GatewayFixture;
  before(async () => {
    gw = await startGatewayFixture();
    await gw.app.startWorker();
  });
  after(async () => {
    await gw.close();
  });

  const remember = async (userRef: string, content: string): Promise<string> => {
    const submitted = await api(gw.app.baseUrl, '/v1/recall/facts', { method: 'POST', key: gw.key, body: { content, user_ref: userRef } });
    expect(submitted.status).to.equal(202);
    const fact = await waitFor(
      async () => (await api(gw.app.baseUrl, `/v1/recall/facts?user_ref=${userRef}`, { key: gw.key })).body.data[0],
      { what: `the fact of ${userRef}`, timeoutMs: 15_000 },
    );
    return fact.id as string;
  };
  const ask = async (userRef: string, requestId: string, extra: Record<string, unknown> = {}, question = 'Sinds wanneer heb ik mijn inboedelverzekering?') => {
    const response = await postChat(
      gw,
      chatBody({ user: userRef, messages: [{ role: 'user', content: question }], ...extra }),
      { 'x-request-id': requestId },
    );
    return { status: response.status, cache: response.headers.get('x-cache'), replay: response.headers.get('x-replay'), body: (await response.json()) as any };
  };

  it('erases the answers kept for replay, the cache entries and the threads of the end-user, and counts each', async () => {
    await remember('klant-9', 'Ik heb een inboedelverzekering sinds 2017 bij Centraal Beheer.');
    await remember('klant-10', 'Ik heb een inboedelverzekering sinds 2021 bij Univé.');
    const theirs = await ask('klant-9', 'keep-9', { thread: 'gesprek-9' });
    expect(theirs.status).to.equal(200);
    expect(JSON.stringify(theirs.body.sources)).to.contain('2017');
    const staying = await ask('klant-10', 'keep-10', { thread: 'gesprek-10' });
    expect(staying.status).to.equal(200);
    // The same question again is a cache hit: the entry holds their answer.
    expect((await ask('klant-9', 'keep-9-again', { thread: 'gesprek-9' })).cache).to.equal('HIT');

    const erased = await api(gw.app.baseUrl, '/v1/memory?user_ref=klant-9', { method: 'DELETE', key: gw.key });
    expect(erased.status).to.equal(200);
    expect(erased.body.deleted).to.deep.equal({ facts: 1, submissions: 1, threads: 1, traces: 2, replays: 2, cache_entries: 1, responses: 0 });

    // A retry under the first id finds no answer to hand back, and is not run or billed again.
    const replay = await ask('klant-9', 'keep-9', { thread: 'gesprek-9' });
    expect(replay.status).to.equal(422);
    expect(replay.body.errors['X-Request-Id'][0]).to.match(/not kept for replay/);
    expect(JSON.stringify(replay.body)).not.to.contain('2017');
    expect((await api(gw.app.baseUrl, '/v1/recall/threads/gesprek-9', { key: gw.key })).status).to.equal(404);
    // Asked anew, the question is a cache miss and finds nothing about them.
    const fresh = await ask('klant-9', 'keep-9-after');
    expect(fresh.cache).to.equal('MISS');
    expect(JSON.stringify(fresh.body)).not.to.contain('2017');
    const stored = await gw.app.db.pool.query(
      `select (select count(*) from requests where response::text like '%2017%')::int as replays,
              (select count(*) from response_cache where response::text like '%2017%')::int as cache,
              (select count(*) from thread_messages where content::text like '%2017%')::int as messages`,
    );
    expect(stored.rows[0]).to.deep.equal({ replays: 0, cache: 0, messages: 0 });

    // The other end-user keeps everything.
    const theirReplay = await ask('klant-10', 'keep-10', { thread: 'gesprek-10' });
    expect(theirReplay.replay).to.equal('true');
    expect(JSON.stringify(theirReplay.body.sources)).to.contain('2021');
    expect((await api(gw.app.baseUrl, '/v1/recall/threads/gesprek-10', { key: gw.key })).status).to.equal(200);
    const audit = await gw.app.db.pool.query("select details from audit_log where action = 'memory.erased' and target = 'klant-9'");
    expect(audit.rows[0].details).to.include({ threads: 1, replays: 2, cache_entries: 1, responses: 0 });
    // The audit log keeps what each key did, but of what came before the erasure, only the erasure's
    // own entry names the end-user (the chats after it are a new end-user's).
    const trail = (await api(gw.app.baseUrl, '/v1/audit-log?limit=100', { key: gw.key })).body.data as any[];
    const erasedAt = trail.findIndex((e) => e.action === 'memory.erased');
    const naming = trail.slice(erasedAt).filter((e) => JSON.stringify(e).includes('klant-9'));
    expect(naming.map((e) => e.action)).to.deep.equal(['memory.erased']);
    const theirChats = trail.filter((e) => e.action === 'chat.completion' && ['keep-9', 'keep-9-again'].includes(e.target));
    expect(theirChats.map((e) => e.details.user_erased)).to.deep.equal([true, true]);
    const theirExtraction = trail.filter((e) => e.action === 'facts.extracted' && e.details.user_erased);
    expect(theirExtraction).to.have.length(1);
    expect(trail.filter((e) => e.details.user === 'klant-10').map((e) => e.target)).to.deep.equal(['keep-10']);
    expect(trail.filter((e) => e.details.user_ref === 'klant-10')).to.have.length(1);
  });

  it('erases the kept answer of a fact submission about the end-user: a retry after the erasure is refused, neither replayed nor run anew', async () => {
    const submit = () =>
      api(gw.app.baseUrl, '/v1/recall/facts', {
        method: 'POST',
        key: gw.key,
        headers: { 'x-request-id': 'fact-then-erased' },
        body: { content: 'Ik heb een hond die Bruno heet.', user_ref: 'klant-77' },
      });
    const first = await submit();
    expect(first.status).to.equal(202);
    await waitFor(async () => (await api(gw.app.baseUrl, '/v1/recall/facts?user_ref=klant-77', { key: gw.key })).body.data.length === 1, {
      what: 'the fact of klant-77',
      timeoutMs: 15_000,
    });
    const erased = await api(gw.app.baseUrl, '/v1/memory?user_ref=klant-77', { method: 'DELETE', key: gw.key });
    expect(erased.body.deleted).to.include({ facts: 1, replays: 1 });
    // Scenario 7: nothing about the customer may come back by a retried request id. Run anew, the
    // retry stored the erased fact again (as it did until 2026-11-27).
    const retried = await submit();
    expect(retried.status).to.equal(422);
    expect(retried.headers.get('x-replay')).to.equal(null);
    expect((await api(gw.app.baseUrl, '/v1/recall/facts?user_ref=klant-77', { key: gw.key })).body.data).to.deep.equal([]);
  });

  it('a chat still running when its end-user is erased writes nothing about them when it finishes, and is still billed', async () => {
    await remember('klant-30', 'Ik heb een inboedelverzekering sinds 2009 bij De Goudse.');
    const before = gw.euA.requests.length;
    gw.euA.script({ type: 'answer', content: 'U bent verzekerd sinds 2009.', delayMs: 1500 });
    const running = ask('klant-30', 'inflight-30', { thread: 'gesprek-30' });
    await waitFor(async () => gw.euA.requests.length > before, { what: 'the chat at the provider' });
    const erased = await api(gw.app.baseUrl, '/v1/memory?user_ref=klant-30', { method: 'DELETE', key: gw.key });
    expect(erased.status).to.equal(200);
    const answered = await running;
    expect(answered.status).to.equal(200);

    const left = await gw.app.db.pool.query(
      `select (select count(*) from traces where id = 'inflight-30')::int as traces,
              (select count(*) from thread_messages where thread_id = 'gesprek-30')::int as messages,
              (select count(*) from requests where request_id = 'inflight-30')::int as replays,
              (select count(*) from response_cache where end_user = 'klant-30')::int as cache,
              (select count(*) from usage where request_id = 'inflight-30')::int as usage,
              (select count(*) from audit_log where action = 'chat.completion' and target = 'inflight-30')::int as audit`,
    );
    expect(left.rows[0]).to.deep.equal({ traces: 0, messages: 0, replays: 0, cache: 0, usage: 1, audit: 1 });
    const entry = await gw.app.db.pool.query("select details from audit_log where action = 'chat.completion' and target = 'inflight-30'");
    expect(entry.rows[0].details).to.include({ status: 200, user_erased: true }).and.not.to.have.property('user');
    expect((await api(gw.app.baseUrl, '/v1/recall/threads/gesprek-30', { key: gw.key })).status).to.equal(404);
    const retry = await ask('klant-30', 'inflight-30', { thread: 'gesprek-30' });
    expect(retry.status).to.equal(422);
    expect(JSON.stringify(retry.body)).not.to.contain('2009');

    // The end-user named again after the erasure is a new end-user, recorded as usual.
    const after = await ask('klant-30', 'after-30', { thread: 'gesprek-31' });
    expect(after.status).to.equal(200);
    expect((await api(gw.app.baseUrl, '/v1/traces/after-30', { key: gw.key })).status).to.equal(200);
    expect((await api(gw.app.baseUrl, '/v1/recall/threads/gesprek-31', { key: gw.key })).status).to.equal(200);
  });

  it('a records statement already executing when the erasure commits has its rows erased too', async () => {
    const pool = gw.app.db.pool;
    const { rows } = await pool.query(`select id as workspace_id, organization_id from workspaces where name = 'main'`);
    // An uncommitted usage line under the chat's request id holds its records statement inside
    // its run (its snapshot taken, before the erasure's mark), as a slow statement would be.
    const holder = await pool.connect();
    try {
      await holder.query('begin');
      await holder.query(
        `insert into usage (organization_id, workspace_id, request_id, kind, model, provider, prompt_tokens, completion_tokens,
                            cached_tokens, credits_base, credits_services, credits_total, created_at)
         values ($1, $2, 'executing-41', 'chat', 'm', 'p', 0, 0, 0, 0, 0, 0, now())`,
        [rows[0].organization_id, rows[0].workspace_id],
      );
      const running = ask('klant-41', 'executing-41', { thread: 'gesprek-41' });
      await waitFor(
        async () =>
          (await pool.query(`select 1 from pg_stat_activity where wait_event_type = 'Lock' and query like '%insert into usage%'`)).rowCount! > 0,
        { what: 'the records statement waiting inside its run' },
      );
      const erasing = api(gw.app.baseUrl, '/v1/memory?user_ref=klant-41', { method: 'DELETE', key: gw.key });
      await waitFor(async () => (await pool.query(`select 1 from end_user_erasures where user_ref = 'klant-41'`)).rowCount! > 0, {
        what: "the erasure's mark",
      });
      await holder.query('rollback');
      expect((await running).status).to.equal(200);
      const erased = await erasing;
      expect(erased.status).to.equal(200);
      expect(erased.body.deleted).to.include({ threads: 1, traces: 1 });
    } finally {
      holder.release();
    }
    const left = await pool.query(
      `select (select count(*) from traces where id = 'executing-41')::int as traces,
              (select count(*) from thread_messages where thread_id = 'gesprek-41')::int as messages,
              (select count(*) from requests where request_id = 'executing-41' and (response is not null or end_user is not null))::int as replays,
              (select count(*) from usage where request_id = 'executing-41')::int as usage`,
    );
    expect(left.rows[0]).to.deep.equal({ traces: 0, messages: 0, replays: 0, usage: 1 });
  });

  it('forgetting one fact takes it out of every kept answer and cache entry it was retrieved into', async () => {
    const factId = await remember('klant-11', 'Ik heb een inboedelverzekering sinds 2013 bij Achmea.');
    const question = 'Bij welke verzekeraar loopt mijn inboedelverzekering?';
    const first = await ask('klant-11', 'keep-11', {}, question);
    expect(JSON.stringify(first.body.sources)).to.contain('2013');
    const unrelatedBody = chatBody({ user: 'klant-12' });
    const unrelated = await postChat(gw, unrelatedBody, { 'x-request-id': 'keep-11-unrelated' });
    expect(unrelated.status).to.equal(200);
    expect(((await unrelated.json()) as any).sources).to.deep.equal([]);

    const response = await api(gw.app.baseUrl, '/v1/responses', { method: 'POST', key: gw.key, body: { model: first.body.model, user: 'klant-11', input: question } });
    expect(JSON.stringify(response.body.sources)).to.contain('2013');

    const forgotten = await api(gw.app.baseUrl, `/v1/memory/facts/${factId}`, { method: 'DELETE', key: gw.key });
    expect(forgotten.body).to.deep.equal({ deleted: 1 });
    expect((await api(gw.app.baseUrl, `/v1/responses/${response.body.id}`, { key: gw.key })).status).to.equal(404);
    const audit = await gw.app.db.pool.query("select target from audit_log where action = 'fact.forgotten'");
    expect(audit.rows).to.have.length(1);
    expect(audit.rows[0].target).to.equal(factId);

    const replay = await ask('klant-11', 'keep-11', {}, question);
    expect(replay.status).to.equal(422);
    expect(JSON.stringify(replay.body)).not.to.contain('2013');
    const after = await ask('klant-11', 'keep-11-after', {}, question);
    expect(after.cache).to.equal('MISS');
    expect(JSON.stringify(after.body)).not.to.contain('2013');
    const stored = await gw.app.db.pool.query(
      `select (select count(*) from requests where response::text like '%2013%')::int as replays,
              (select count(*) from response_cache where response::text like '%2013%')::int as cache`,
    );
    expect(stored.rows[0]).to.deep.equal({ replays: 0, cache: 0 });
    // An answer that did not use the fact is still replayed.
    const kept = await postChat(gw, unrelatedBody, { 'x-request-id': 'keep-11-unrelated' });
    expect(kept.headers.get('x-replay')).to.equal('true');
  });

  it('deleting a document or a collection takes its text out of the answers kept for replay, the stored responses and the cached answers', async () => {
    const slug = await createCollection(gw.app, gw.key, 'Geheime projecten');
    const other = await createCollection(gw.app, gw.key, 'Reisbeleid');
    const albatross = await ingest(gw.app, gw.key, { title: 'Albatros', collection: slug, text: 'Project Albatros gaat op 9 mei live met een budget van 7,7 miljoen.' });
    await ingest(gw.app, gw.key, { title: 'Kraanvogel', collection: other, text: 'Project Kraanvogel reist in juni naar Lissabon met twaalf mensen.' });
    await settled(gw.app, gw.key, albatross);
    const question = 'Wanneer gaat project Albatros live en met welk budget?';
    const kept = await ask('klant-20', 'keep-albatros', { collection: slug }, question);
    expect(JSON.stringify(kept.body.sources)).to.contain('7,7 miljoen');
    const stored = await api(gw.app.baseUrl, '/v1/responses', { method: 'POST', key: gw.key, body: { model: kept.body.model, input: question, collection: slug } });
    expect(JSON.stringify(stored.body.sources)).to.contain('7,7 miljoen');
    const elsewhere = await ask('klant-20', 'keep-kraanvogel', { collection: other }, 'Waar reist project Kraanvogel heen?');
    expect(JSON.stringify(elsewhere.body.sources)).to.contain('Lissabon');
    // The cached answers name the documents retrieved into them (an answer quotes what it was given).
    const cachedOf = async (documents: string[]) =>
      (await gw.app.db.pool.query<{ n: number }>('select count(*)::int as n from response_cache where document_ids && $1::uuid[]', [documents])).rows[0]!.n;
    const kraanvogel = elsewhere.body.sources.find((s: any) => s.type === 'chunk').document_id as string;
    expect(await cachedOf([albatross])).to.be.at.least(1);
    expect(await cachedOf([kraanvogel])).to.equal(1);

    expect((await api(gw.app.baseUrl, `/v1/memory/documents/${albatross}`, { method: 'DELETE', key: gw.key })).status).to.equal(200);
    const replay = await ask('klant-20', 'keep-albatros', { collection: slug }, question);
    expect(replay.status).to.equal(422);
    expect(JSON.stringify(replay.body)).not.to.contain('7,7 miljoen');
    expect((await api(gw.app.baseUrl, `/v1/responses/${stored.body.id}`, { key: gw.key })).status).to.equal(404);
    expect((await ask('klant-20', 'keep-kraanvogel', { collection: other }, 'Waar reist project Kraanvogel heen?')).replay).to.equal('true');
    expect(await cachedOf([albatross])).to.equal(0);
    expect(await cachedOf([kraanvogel])).to.equal(1);

    // A collection takes the answers of all its documents with it.
    expect((await api(gw.app.baseUrl, `/v1/recall/collections/${other}`, { method: 'DELETE', key: gw.key })).status).to.equal(200);
    expect((await ask('klant-20', 'keep-kraanvogel', { collection: other }, 'Waar reist project Kraanvogel heen?')).status).to.equal(422);
    expect(await cachedOf([kraanvogel])).to.equal(0);
    const left = await gw.app.db.pool.query(
      `select (select count(*) from requests where response::text ~ '7,7 miljoen|Lissabon')::int as replays,
              (select count(*) from stored_responses where response::text ~ '7,7 miljoen|Lissabon')::int as responses`,
    );
    expect(left.rows[0]).to.deep.equal({ replays: 0, responses: 0 });
    const audit = await api(gw.app.baseUrl, '/v1/audit-log?limit=10', { key: gw.key });
    const deletions = audit.body.data.filter((e: any) => e.action.endsWith('.deleted')).map((e: any) => [e.action, e.target]);
    expect(deletions).to.deep.include.members([
      ['document.deleted', albatross],
      ['collection.deleted', other],
    ]);
  });

  it("erases the end-user's turns from a thread others wrote to, keeps the others', and deletes a thread only once it is empty", async () => {
    // QA: erasing eve deleted the whole shared thread, frank's messages with it.
    // (Last in this file: its chat without `user` would have the workspace's memory presence cached
    // as absent for a moment, and a test right after it retrieve nothing.)
    const say = async (user: string | undefined, thread: string, requestId: string, content: string) => {
      const response = await postChat(
        gw,
        chatBody({ ...(user ? { user } : {}), thread, messages: [{ role: 'user', content }] }),
        { 'x-request-id': requestId },
      );
      expect(response.status).to.equal(200);
    };
    await say('eve', 'family-chat', 'fam-eve-1', 'Eve hier: ik verhuis naar Rotterdam.');
    await say('frank', 'family-chat', 'fam-frank-1', 'Frank hier: ik blijf in Delft.');
    await say('eve', 'family-chat', 'fam-eve-2', 'Eve: mijn nummer is 0612345678.');
    await say(undefined, 'family-chat', 'fam-anon-1', 'Iemand zonder naam.');
    await say('eve', 'eve-alone', 'alone-eve-1', 'Eve alleen: ik heet Eve.');
    const thread = async (id: string) => api(gw.app.baseUrl, `/v1/recall/threads/${id}`, { key: gw.key });
    const before = (await thread('family-chat')).body.messages as any[];
    // Each chat appended its turn and the assistant's reply.
    expect(before.map((m) => m.request_id)).to.deep.equal(['fam-eve-1', 'fam-eve-1', 'fam-frank-1', 'fam-frank-1', 'fam-eve-2', 'fam-eve-2', 'fam-anon-1', 'fam-anon-1']);

    const erased = await api(gw.app.baseUrl, '/v1/memory?user_ref=eve', { method: 'DELETE', key: gw.key });
    expect(erased.status).to.equal(200);
    // Two threads held eve: one emptied and deleted, one left with the others' messages.
    expect(erased.body.deleted.threads).to.equal(2);
    expect((await thread('eve-alone')).status).to.equal(404);
    const shared = await thread('family-chat');
    expect(shared.status).to.equal(200);
    // Frank's turn and its reply, and the anonymous one, stay, in order; nothing of eve's is left,
    // not her turns and not the assistant's replies to them.
    expect(shared.body.messages.map((m: any) => [m.request_id, m.role])).to.deep.equal([
      ['fam-frank-1', 'user'],
      ['fam-frank-1', 'assistant'],
      ['fam-anon-1', 'user'],
      ['fam-anon-1', 'assistant'],
    ]);
    expect(shared.body.messages).to.deep.equal(before.filter((m) => m.request_id === 'fam-frank-1' || m.request_id === 'fam-anon-1'));
    expect(JSON.stringify(shared.body)).not.to.match(/Eve|Rotterdam|0612345678/);
    const left = await gw.app.db.pool.query("select count(*)::int as n from thread_messages where end_user = 'eve' or content::text ~ 'Rotterdam|0612345678'");
    expect(left.rows[0].n).to.equal(0);

    // Erasing frank leaves the anonymous turn; the thread stays until nothing is left in it.
    const frank = await api(gw.app.baseUrl, '/v1/memory?user_ref=frank', { method: 'DELETE', key: gw.key });
    expect(frank.body.deleted.threads).to.equal(1);
    expect((await thread('family-chat')).body.messages.map((m: any) => m.request_id)).to.deep.equal(['fam-anon-1', 'fam-anon-1']);
    await say('gina', 'gina-chat', 'gina-1', 'Gina hier.');
    const gina = await api(gw.app.baseUrl, '/v1/memory?user_ref=gina', { method: 'DELETE', key: gw.key });
    expect(gina.body.deleted.threads).to.equal(1);
    expect((await thread('gina-chat')).status).to.equal(404);
  });
});
