import { expect } from 'chai';
import { withTransaction } from '../../src/db/transaction.js';
import { eraseEndUserIn } from '../../src/memory/erasure.js';
import { lockEndUser } from '../../src/memory/facts.js';
import { api, type TestApp } from '../helpers/app.js';
import { waitFor } from '../helpers/db.js';
import {
  factContents,
  jsonAnswer,
  latestSubmission,
  setExtractionModel,
  startFactsFixture,
  submitFact,
  waitForFacts,
  waitForNoExtractionJobs,
  waitForSubmission,
  type FactsFixture,
} from './factsFixture.js';

const erase = (app: TestApp, key: string, { query, body }: { query?: string; body?: unknown } = {}) =>
  api(app.baseUrl, `/v1/memory${query !== undefined ? `?user_ref=${encodeURIComponent(query)}` : ''}`, {
    method: 'DELETE',
    key,
    ...(body !== undefined ? { body } : {}),
  });

async function submissionsOf(app: TestApp, workspaceId: string, userRef: string): Promise<number> {
  const { rows } = await app.db.pool.query<{ n: number }>(
    'select count(*)::int as n from fact_submissions where workspace_id = $1 and user_ref = $2',
    [workspaceId, userRef],
  );
  return rows[0]!.n;
}

describe('DELETE /memory (erasure of an end-user)', () => {
  let fx: FactsFixture;
  before(async () => {
    fx = await startFactsFixture();
    await fx.app.startWorker();
  });
  after(async () => {
    await fx.close();
  });

  it('erases every fact and submission of the end-user, answers the count, and writes the audit log', async () => {
    const other = await fx.app.key({ org: 'acme', workspace: 'elsewhere' });
    await submitFact(fx.app, fx.key, { content: 'I live in Zwolle. I have two sons.', user_ref: 'customer-7' });
    await submitFact(fx.app, fx.key, { content: 'I drive an electric car.', user_ref: 'customer-7' });
    await submitFact(fx.app, fx.key, { content: 'I live in Breda.', user_ref: 'customer-8' });
    await submitFact(fx.app, fx.key, { content: 'Our helpdesk answers within a day.' });
    await submitFact(fx.app, other.key, { content: 'I live in Zwolle too.', user_ref: 'customer-7' });
    await waitForFacts(fx.app, fx.key, { user_ref: 'customer-7' }, (c) => c.length === 3);
    await waitForFacts(fx.app, fx.key, { user_ref: 'customer-8' }, (c) => c.length === 1);
    await waitForFacts(fx.app, fx.key, {}, (c) => c.length === 1);
    await waitForFacts(fx.app, other.key, { user_ref: 'customer-7' }, (c) => c.length === 1);

    const response = await erase(fx.app, fx.key, { query: 'customer-7' });
    expect(response.status).to.equal(200);
    expect(response.body).to.have.all.keys('user_ref', 'erased_at', 'deleted');
    expect(response.body.user_ref).to.equal('customer-7');
    expect(response.body.deleted).to.deep.equal({ facts: 3, submissions: 2, threads: 0, traces: 0, replays: 0, cache_entries: 0, responses: 0 });
    expect(Date.now() - Date.parse(response.body.erased_at)).to.be.within(0, 60_000);

    expect(await factContents(fx.app, fx.key, { user_ref: 'customer-7' })).to.deep.equal([]);
    expect(await factContents(fx.app, fx.key, { user_ref: 'customer-7', q: 'Zwolle' })).to.deep.equal([]);
    expect(await submissionsOf(fx.app, fx.workspaceId, 'customer-7')).to.equal(0);
    // Nobody else's memory is touched: another end-user, the shared facts, another workspace.
    expect(await factContents(fx.app, fx.key, { user_ref: 'customer-8' })).to.deep.equal(['I live in Breda.']);
    expect(await factContents(fx.app, fx.key)).to.deep.equal(['Our helpdesk answers within a day.']);
    expect(await factContents(fx.app, other.key, { user_ref: 'customer-7' })).to.deep.equal(['I live in Zwolle too.']);
    const { rows } = await fx.app.db.pool.query('select count(*)::int as n from facts where user_ref = $1', ['customer-7']);
    expect(rows[0].n).to.equal(1);

    // The privacy officer sees it in the audit log: who erased whom, and how much.
    const entry = await waitFor(
      async () => {
        const log = await api(fx.app.baseUrl, '/v1/audit-log?action=memory.erased', { key: fx.key });
        return log.body.data.find((e: { target: string }) => e.target === 'customer-7');
      },
      { what: 'the audit entry of the erasure' },
    );
    expect(entry.actor).to.deep.equal({ key_id: fx.keyId, kind: 'organization' });
    // Their two extractions' entries stay, without their name.
    expect(entry.details).to.deep.equal({ facts: 3, submissions: 2, traces: 0, threads: 0, replays: 0, cache_entries: 0, responses: 0, audit_entries_anonymised: 2 });
    expect(entry.at).to.equal(response.body.erased_at);
  });

  it('refuses a retry of a fact submission after the erasure (422, not kept for replay), so the erased fact cannot come back', async () => {
    // QA: the retry ran anew (the submission bills under its own id, so nothing held the caller's)
    // and stored the erased fact again.
    const body = { content: 'Ik heb een hond die Bello heet en woon in Leiden.', user_ref: 'klant-erase' };
    const submit = () => api(fx.app.baseUrl, '/v1/recall/facts', { method: 'POST', key: fx.key, body, headers: { 'x-request-id': 'fact-erase-1' } });
    expect((await submit()).status).to.equal(202);
    await waitForFacts(fx.app, fx.key, { user_ref: 'klant-erase' }, (c) => c.length > 0);
    const erased = await erase(fx.app, fx.key, { query: 'klant-erase' });
    expect(erased.status).to.equal(200);
    expect(erased.body.deleted.replays).to.equal(1);

    const retry = await submit();
    expect(retry.status, retry.text).to.equal(422);
    expect(retry.body.errors['X-Request-Id'][0]).to.contain('not kept for replay');
    expect(await submissionsOf(fx.app, fx.workspaceId, 'klant-erase')).to.equal(0);
    expect(await factContents(fx.app, fx.key, { user_ref: 'klant-erase' })).to.deep.equal([]);
    // The kept id holds nothing of the request: no answer, no hash of its body, no end-user.
    const { rows } = await fx.app.db.pool.query("select response, length(body_hash) as hashed, end_user from requests where request_id = 'fact-erase-1'");
    expect(rows).to.deep.equal([{ response: null, hashed: 0, end_user: null }]);
    // A new id is a new submission, kept.
    const fresh = await api(fx.app.baseUrl, '/v1/recall/facts', { method: 'POST', key: fx.key, body, headers: { 'x-request-id': 'fact-erase-2' } });
    expect(fresh.status).to.equal(202);
  });

  it('deletes the facts before it marks the end-user erased: a request that begins after the mark, recorded as a new end-user’s, can retrieve nothing of theirs', async () => {
    await submitFact(fx.app, fx.key, { content: 'I live in Deventer.', user_ref: 'watched' });
    await submitFact(fx.app, fx.key, { content: 'I sail on weekends.', user_ref: 'watched' });
    await waitForFacts(fx.app, fx.key, { user_ref: 'watched' }, (c) => c.length === 2);
    // Watch every state the erasure passes through, one snapshot at a time.
    const watcher = await fx.app.db.pool.connect();
    const seen: { marked: boolean; facts: boolean }[] = [];
    let done = false;
    const watching = (async () => {
      while (!done) {
        const { rows } = await watcher.query<{ marked: boolean; facts: boolean }>(
          `select exists (select 1 from end_user_erasures where workspace_id = $1 and user_ref = 'watched') as marked,
                  exists (select 1 from facts where workspace_id = $1 and user_ref = 'watched') as facts`,
          [fx.workspaceId],
        );
        seen.push(rows[0]!);
      }
    })();
    try {
      const response = await erase(fx.app, fx.key, { query: 'watched' });
      expect(response.status).to.equal(200);
      expect(response.body.deleted.facts).to.equal(2);
    } finally {
      done = true;
      await watching;
      watcher.release();
    }
    expect(seen.some((state) => state.facts && !state.marked)).to.equal(true);
    expect(seen.filter((state) => state.marked && state.facts)).to.deep.equal([]);
    expect(seen.at(-1)).to.deep.equal({ marked: true, facts: false });
  });

  it('reports what a failed attempt removed when the erasure is asked again, in its answer and its audit entry', async () => {
    await submitFact(fx.app, fx.key, { content: 'I live in Assen.', user_ref: 'retried' });
    await submitFact(fx.app, fx.key, { content: 'I play chess.', user_ref: 'retried' });
    await waitForFacts(fx.app, fx.key, { user_ref: 'retried' }, (c) => c.length === 2);
    // The last step fails after the first removed the facts (as when the database goes away between them).
    await fx.app.db.pool.query(`
      create function fail_erasure_audit() returns trigger language plpgsql as $$
      begin raise exception 'the database went away'; end $$;
      create trigger fail_erasure_audit before insert on audit_log
        for each row when (new.action = 'memory.erased') execute function fail_erasure_audit()`);
    try {
      expect((await erase(fx.app, fx.key, { query: 'retried' })).status).to.be.at.least(500);
    } finally {
      await fx.app.db.pool.query('drop trigger fail_erasure_audit on audit_log; drop function fail_erasure_audit()');
    }
    expect(await factContents(fx.app, fx.key, { user_ref: 'retried' })).to.deep.equal([]);
    const retried = await erase(fx.app, fx.key, { query: 'retried' });
    expect(retried.status).to.equal(200);
    expect(retried.body.deleted).to.include({ facts: 2 });
    const audit = await api(fx.app.baseUrl, '/v1/audit-log?action=memory.erased', { key: fx.key });
    expect(audit.body.data.find((e: any) => e.target === 'retried').details).to.include({ facts: 2, submissions: 2 });
    // Reported once: the next erasure starts from nothing.
    expect((await erase(fx.app, fx.key, { query: 'retried' })).body.deleted).to.include({ facts: 0 });
  });

  it('takes the end-user from a JSON body too; two different ones in query and body are a 422 that erases nobody', async () => {
    await submitFact(fx.app, fx.key, { content: 'I play the piano.', user_ref: 'by-body' });
    await submitFact(fx.app, fx.key, { content: 'I play the drums.', user_ref: 'by-query' });
    await waitForFacts(fx.app, fx.key, { user_ref: 'by-body' }, (c) => c.length === 1);
    await waitForFacts(fx.app, fx.key, { user_ref: 'by-query' }, (c) => c.length === 1);

    const byBody = await erase(fx.app, fx.key, { body: { user_ref: 'by-body' } });
    expect(byBody.status).to.equal(200);
    expect(byBody.body).to.include({ user_ref: 'by-body' });
    expect(byBody.body.deleted).to.deep.equal({ facts: 1, submissions: 1, threads: 0, traces: 0, replays: 0, cache_entries: 0, responses: 0 });

    await submitFact(fx.app, fx.key, { content: 'I play the flute.', user_ref: 'by-body' });
    await waitForFacts(fx.app, fx.key, { user_ref: 'by-body' }, (c) => c.length === 1);
    const both = await erase(fx.app, fx.key, { query: 'by-query', body: { user_ref: 'by-body' } });
    expect(both.status).to.equal(422);
    expect(both.body.errors.user_ref[0]).to.match(/names two end-users/);
    expect(await factContents(fx.app, fx.key, { user_ref: 'by-query' })).to.deep.equal(['I play the drums.']);
    expect(await factContents(fx.app, fx.key, { user_ref: 'by-body' })).to.deep.equal(['I play the flute.']);
    // The same one in both is one end-user.
    const same = await erase(fx.app, fx.key, { query: 'by-query', body: { user_ref: 'by-query' } });
    expect(same.body.user_ref).to.equal('by-query');
    expect(await factContents(fx.app, fx.key, { user_ref: 'by-query' })).to.deep.equal([]);
  });

  it('refuses an end-user named only by spaces or invisible characters, in the erasure and in a fact', async () => {
    const erased = await erase(fx.app, fx.key, { query: '  ' });
    expect(erased.status).to.equal(422);
    expect(erased.body.errors.user_ref).to.deep.equal(['must not be blank']);
    const fact = await api(fx.app.baseUrl, '/v1/recall/facts', { method: 'POST', key: fx.key, body: { content: 'Ik fiets graag.', user_ref: '\u200b' } });
    expect(fact.status).to.equal(422);
    expect(fact.body.errors.user_ref).to.deep.equal(['must not be blank']);
    const listed = await api(fx.app.baseUrl, `/v1/recall/facts?user_ref=${encodeURIComponent('\u200b')}`, { key: fx.key });
    expect(listed.status).to.equal(422);
    expect(listed.body.errors.user_ref).to.deep.equal(['must not be blank']);
  });

  it('refuses a chat or a response for such an end-user: what it would store about them could never be erased', async () => {
    // QA: `user: " "` with a thread stored messages and a trace under " ", which no erasure could name.
    const threadsBefore = (await fx.app.db.pool.query('select count(*)::int as n from thread_messages')).rows[0].n;
    for (const user of [' ', '\u200b']) {
      const chat = await api(fx.app.baseUrl, '/v1/chat/completions', {
        method: 'POST',
        key: fx.key,
        body: { model: 'local/echo', user, thread: 'blank-user', messages: [{ role: 'user', content: 'my secret is KUMQUAT-991' }] },
      });
      expect(chat.status, JSON.stringify(user)).to.equal(422);
      expect(chat.body.errors.user).to.deep.equal(['must not be blank']);
      const response = await api(fx.app.baseUrl, '/v1/responses', { method: 'POST', key: fx.key, body: { model: 'local/echo', user, input: 'hallo' } });
      expect(response.status, JSON.stringify(user)).to.equal(422);
      expect(response.body.errors.user).to.deep.equal(['must not be blank']);
    }
    expect((await fx.app.db.pool.query('select count(*)::int as n from thread_messages')).rows[0].n).to.equal(threadsBefore);
  });

  it('answers 0 for an end-user with nothing stored, and still audits the request', async () => {
    const response = await erase(fx.app, fx.key, { query: 'never-seen' });
    expect(response.status).to.equal(200);
    expect(response.body.deleted).to.deep.equal({ facts: 0, submissions: 0, threads: 0, traces: 0, replays: 0, cache_entries: 0, responses: 0 });
    await waitFor(
      async () => {
        const log = await api(fx.app.baseUrl, '/v1/audit-log?action=memory.erased', { key: fx.key });
        return log.body.data.some((e: { target: string }) => e.target === 'never-seen');
      },
      { what: 'the audit entry' },
    );
  });

  const invalid: [string, { query?: string; body?: unknown }, string][] = [
    ['neither query nor body', {}, 'user_ref'],
    ['an empty body object', { body: {} }, 'user_ref'],
    ['an empty user_ref in the body', { body: { user_ref: '' } }, 'user_ref'],
    ['an empty user_ref in the query', { query: '' }, 'user_ref'],
    ['a user_ref over 255 characters', { query: 'u'.repeat(256) }, 'user_ref'],
    ['an unknown body field', { body: { user_ref: 'x', user: 'y' } }, 'user'],
  ];
  for (const [what, input, field] of invalid) {
    it(`422 for ${what}`, async () => {
      const response = await erase(fx.app, fx.key, input);
      expect(response.status).to.equal(422);
      expect(response.body.errors).to.have.property(field);
    });
  }

  it('answers 200 to every one of several erasures of one end-user at once (they deadlocked: 500), and leaves nothing of theirs', async () => {
    for (let round = 0; round < 3; round++) {
      const userRef = `racer-${round}`;
      await submitFact(fx.app, fx.key, { content: 'Houdt van zeilen.', user_ref: userRef });
      const answers = await Promise.all(Array.from({ length: 6 }, () => erase(fx.app, fx.key, { query: userRef })));
      expect(answers.map((a) => a.status)).to.deep.equal([200, 200, 200, 200, 200, 200]);
      expect(await submissionsOf(fx.app, fx.workspaceId, userRef)).to.equal(0);
    }
  });

  it('needs memory.write', async () => {
    const reader = await fx.app.key({ kind: 'restricted', scopes: ['memory.read'] });
    expect((await erase(fx.app, reader.key, { query: 'x' })).status).to.equal(403);
  });
});

describe('erasure against extractions in flight', () => {
  describe('with the worker running', () => {
    let fx: FactsFixture;
    before(async () => {
      fx = await startFactsFixture();
      await fx.app.startWorker();
    });
    after(async () => {
      await fx.close();
    });
    afterEach(async () => {
      await setExtractionModel(fx, null);
    });

    it('a job that is mid-extraction when the erasure happens stores nothing', async () => {
      await setExtractionModel(fx, 'test/extractor');
      // Control: the same slow extraction stores its fact when nobody erases.
      fx.eu.script(jsonAnswer({ facts: ['I live in Assen'] }, 300));
      await submitFact(fx.app, fx.key, { content: 'I live in Assen.', user_ref: 'control' });
      await waitForFacts(fx.app, fx.key, { user_ref: 'control' }, (c) => c.length === 1);

      fx.eu.reset();
      fx.eu.script(jsonAnswer({ facts: ['I live in Emmen', 'My doctor is Dr. Bakker'] }, 1500));
      await submitFact(fx.app, fx.key, { content: 'I live in Emmen and my doctor is Dr. Bakker.', user_ref: 'racer' });
      // The model has the text and is thinking: the job is mid-extraction.
      await fx.eu.waitFor(() => fx.eu.requests.length === 1, 5_000);
      expect((await latestSubmission(fx.app, fx.workspaceId, 'racer'))?.status).to.equal('processing');

      const response = await erase(fx.app, fx.key, { query: 'racer' });
      expect(response.status).to.equal(200);
      expect(response.body.deleted).to.deep.equal({ facts: 0, submissions: 1, threads: 0, traces: 0, replays: 0, cache_entries: 0, responses: 0 });

      // The job then gets its answer, finds its submission gone under the lock, and ends cleanly.
      await waitForNoExtractionJobs(fx.app);
      expect(fx.eu.requests[0]!.closedEarly).to.equal(false);
      expect(await factContents(fx.app, fx.key, { user_ref: 'racer' })).to.deep.equal([]);
      expect(await submissionsOf(fx.app, fx.workspaceId, 'racer')).to.equal(0);
      const { rows } = await fx.app.db.pool.query("select count(*)::int as n from facts where user_ref = 'racer'");
      expect(rows[0].n).to.equal(0);
      expect(await factContents(fx.app, fx.key, { user_ref: 'control' })).to.deep.equal(['I live in Assen']);
    });

    it('a job waiting for the end-user lock while the erasure commits stores nothing', async () => {
      const client = await fx.app.db.pool.connect();
      try {
        await client.query('begin');
        // This transaction plays an erasure that holds the lock while the job reaches its write step.
        await lockEndUser(client, { workspaceId: fx.workspaceId, userRef: 'blocked' });
        await submitFact(fx.app, fx.key, { content: 'I live in Venlo.', user_ref: 'blocked' });
        await waitFor(
          async () => {
            const { rows } = await fx.app.db.pool.query(
              `select 1 from pg_locks
                where locktype = 'advisory' and not granted
                  and database = (select oid from pg_database where datname = current_database())`,
            );
            return rows.length > 0;
          },
          { what: 'the job to wait for the end-user lock' },
        );
        const erasure = await eraseEndUserIn(
          client,
          { organizationId: fx.organizationId, workspaceId: fx.workspaceId, keyId: fx.keyId, kind: 'organization' },
          'blocked',
        );
        expect(erasure.submissions).to.equal(1);
        await client.query('commit');
      } catch (err) {
        await client.query('rollback');
        throw err;
      } finally {
        client.release();
      }
      await waitForNoExtractionJobs(fx.app);
      expect(await factContents(fx.app, fx.key, { user_ref: 'blocked' })).to.deep.equal([]);
      expect(await submissionsOf(fx.app, fx.workspaceId, 'blocked')).to.equal(0);
    });

    it('a job that wrote before the erasure has its facts erased, and new submissions after it are kept', async () => {
      await submitFact(fx.app, fx.key, { content: 'I live in Gouda.', user_ref: 'returning' });
      await waitForFacts(fx.app, fx.key, { user_ref: 'returning' }, (c) => c.length === 1);
      await withTransaction(fx.app.db.pool, async (db) => {
        const erasure = await eraseEndUserIn(
          db,
          { organizationId: fx.organizationId, workspaceId: fx.workspaceId, keyId: fx.keyId, kind: 'organization' },
          'returning',
        );
        expect(erasure.facts).to.equal(1);
      });
      expect(await factContents(fx.app, fx.key, { user_ref: 'returning' })).to.deep.equal([]);
      // The end-user comes back later: what they submit now is new, and kept.
      await submitFact(fx.app, fx.key, { content: 'I live in Delft now.', user_ref: 'returning' });
      expect(await waitForFacts(fx.app, fx.key, { user_ref: 'returning' }, (c) => c.length === 1)).to.deep.equal(['I live in Delft now.']);
    });
  });

  describe('with the worker not yet running', () => {
    let fx: FactsFixture;
    before(async () => {
      fx = await startFactsFixture();
    });
    after(async () => {
      await fx.close();
    });

    it('a queued job finds nothing to do after the erasure', async () => {
      await submitFact(fx.app, fx.key, { content: 'I live in Hoorn.', user_ref: 'queued' });
      await submitFact(fx.app, fx.key, { content: 'I sail on the IJsselmeer.', user_ref: 'queued' });
      await submitFact(fx.app, fx.key, { content: 'I live in Enkhuizen.', user_ref: 'bystander' });
      const { rows } = await fx.app.db.pool.query<{ n: number }>(
        "select count(*)::int as n from graphile_worker.jobs where task_identifier = 'memory__extract_facts'",
      );
      expect(rows[0]!.n).to.equal(3);

      const response = await erase(fx.app, fx.key, { query: 'queued' });
      expect(response.status).to.equal(200);
      expect(response.body.deleted).to.deep.equal({ facts: 0, submissions: 2, threads: 0, traces: 0, replays: 0, cache_entries: 0, responses: 0 });
      expect(await submissionsOf(fx.app, fx.workspaceId, 'queued')).to.equal(0);

      await fx.app.startWorker();
      // Every job ran and succeeded (a failed one would stay in the queue with its error) …
      await waitForNoExtractionJobs(fx.app);
      expect((await waitForSubmission(fx.app, fx.workspaceId, 'bystander')).status).to.equal('done');
      // … and only the bystander's fact exists.
      expect(await factContents(fx.app, fx.key, { user_ref: 'queued' })).to.deep.equal([]);
      expect(await factContents(fx.app, fx.key, { user_ref: 'bystander' })).to.deep.equal(['I live in Enkhuizen.']);
    });
  });
});

describe('DELETE /memory: the erased end-user’s waiting extractions', () => {
  let fx: FactsFixture;
  before(async () => {
    // No worker yet: the submissions wait in their queue as a bulk import's do.
    fx = await startFactsFixture();
  });
  after(async () => {
    await fx.close();
  });

  const waitingJobs = async () =>
    (await fx.app.db.pool.query<{ n: number }>("select count(*)::int as n from graphile_worker.jobs where task_identifier = 'memory__extract_facts'")).rows[0]!.n;

  it('takes them out of the queue, which other end-users share, and leaves the others’ there', async () => {
    for (let i = 0; i < 30; i++) expect((await submitFact(fx.app, fx.key, { content: `Ik heb fiets nummer ${i}.`, user_ref: 'bulk-import' })).status).to.equal(202);
    expect((await submitFact(fx.app, fx.key, { content: 'Ik woon in Hoorn.', user_ref: 'bystander' })).status).to.equal(202);
    expect(await waitingJobs()).to.equal(31);
    expect((await erase(fx.app, fx.key, { query: 'bulk-import' })).status).to.equal(200);
    // Thirty jobs that would each find nothing, ahead of other end-users of their queue, are gone.
    expect(await waitingJobs()).to.equal(1);
    await fx.app.startWorker();
    await waitForFacts(fx.app, fx.key, { user_ref: 'bystander' }, (c) => c.length === 1);
    await waitForNoExtractionJobs(fx.app);
  });
});
