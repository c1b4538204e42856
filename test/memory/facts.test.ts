import { expect } from 'chai';
import { api } from '../helpers/app.js';
import {
  factContents,
  getFacts,
  latestSubmission,
  startFactsFixture,
  submitFact,
  waitForFacts,
  waitForSubmission,
  type FactsFixture,
} from './factsFixture.js';

// Facts with the rule-based extractor (no extraction model set): the service default.
describe('facts (rule-based extraction)', () => {
  let fx: FactsFixture;
  let workerStarted = false;
  before(async () => {
    fx = await startFactsFixture();
  });
  after(async () => {
    await fx.close();
  });
  const startWorker = async () => {
    if (!workerStarted) await fx.app.startWorker();
    workerStarted = true;
  };

  it('answers 202 before the fact is queryable, which it becomes once the worker ran', async () => {
    const response = await submitFact(fx.app, fx.key, { content: 'I live in Utrecht.', user_ref: 'anna' });
    expect(response.status).to.equal(202);
    expect(response.body).to.have.keys('status', 'submission_id');
    expect(response.body.status).to.equal('accepted');
    // The id the facts.extracted webhook names.
    const submission = await fx.app.db.pool.query('select user_ref from fact_submissions where id = $1', [response.body.submission_id]);
    expect(submission.rows).to.deep.equal([{ user_ref: 'anna' }]);
    // No worker yet: accepted, recorded and queued, but not a fact.
    expect(await factContents(fx.app, fx.key, { user_ref: 'anna' })).to.deep.equal([]);
    const queued = await latestSubmission(fx.app, fx.workspaceId, 'anna');
    expect(queued?.status).to.equal('queued');
    // The job names the submission; the text stays out of the queue. (The public jobs view hides
    // payloads, so this reads graphile-worker's own table.)
    const { rows } = await fx.app.db.pool.query(
      `select j.payload from graphile_worker._private_jobs j
         join graphile_worker._private_tasks t on t.id = j.task_id
        where t.identifier = 'memory__extract_facts'`,
    );
    expect(rows).to.have.length(1);
    expect(Object.keys(rows[0].payload)).to.deep.equal(['submission_id']);

    await startWorker();
    const facts = await waitForFacts(fx.app, fx.key, { user_ref: 'anna' }, (c) => c.length === 1);
    expect(facts).to.deep.equal(['I live in Utrecht.']);
    const response2 = await getFacts(fx.app, fx.key, { user_ref: 'anna' });
    const fact = response2.body.data[0];
    expect(fact).to.have.all.keys('id', 'user_ref', 'content', 'created_at', 'updated_at');
    expect(fact.user_ref).to.equal('anna');
    const done = await latestSubmission(fx.app, fx.workspaceId, 'anna');
    expect(done).to.include({ status: 'done', extractor: 'rules', facts_found: 1, facts_added: 1, content: null });
  });

  const languages: { language: string; user: string; content: string; kept: string[] }[] = [
    {
      language: 'English',
      user: 'en-user',
      content:
        "Hi there! I work as a nurse in Leiden. What's the weather like tomorrow? Thanks, my daughter plays hockey. Ok. Can you book a table for two? The weather is nice today.",
      kept: ['I work as a nurse in Leiden.', 'My daughter plays hockey.'],
    },
    {
      language: 'Dutch',
      user: 'nl-user',
      content: 'Hoi! Ik woon sinds 2019 in Amersfoort. Heb je een idee voor het weekend? Mijn vrouw heet Fatima. Dank je wel! Het regent vandaag.',
      kept: ['Ik woon sinds 2019 in Amersfoort.', 'Mijn vrouw heet Fatima.'],
    },
    {
      language: 'French',
      user: 'fr-user',
      content: "Bonjour, je m'appelle Claire. Quel temps fait-il à Paris ? J'habite à Lyon depuis dix ans. Merci beaucoup ! Il fait beau.",
      kept: ["Je m'appelle Claire.", "J'habite à Lyon depuis dix ans."],
    },
    {
      language: 'German',
      user: 'de-user',
      content: 'Hallo! Ich arbeite als Lehrerin in Köln. Wie spät ist es? Meine Katze heißt Minka. Danke schön! Das Wetter ist schön.',
      kept: ['Ich arbeite als Lehrerin in Köln.', 'Meine Katze heißt Minka.'],
    },
  ];
  for (const { language, user, content, kept } of languages) {
    it(`keeps the statements about the user in ${language}, and drops questions, greetings and the rest`, async () => {
      await startWorker();
      expect((await submitFact(fx.app, fx.key, { content, user_ref: user })).status).to.equal(202);
      const submission = await waitForSubmission(fx.app, fx.workspaceId, user);
      expect(submission.status).to.equal('done');
      expect(await factContents(fx.app, fx.key, { user_ref: user })).to.have.members(kept);
    });
  }

  it('merges a near-duplicate into the existing fact instead of adding it twice', async () => {
    await startWorker();
    await submitFact(fx.app, fx.key, { content: 'I use an iPhone.', user_ref: 'dup' });
    await waitForFacts(fx.app, fx.key, { user_ref: 'dup' }, (c) => c.length === 1);
    const [before] = (await getFacts(fx.app, fx.key, { user_ref: 'dup' })).body.data;

    // The same statement, written worse (QA: "i live in leiden" replaced "I live in Leiden."):
    // equal once normalised, it leaves the fact as it was written first.
    await submitFact(fx.app, fx.key, { content: 'i use an iphone', user_ref: 'dup' });
    expect(await waitForSubmission(fx.app, fx.workspaceId, 'dup')).to.include({ facts_added: 0, facts_updated: 0 });
    expect(await factContents(fx.app, fx.key, { user_ref: 'dup' })).to.deep.equal(['I use an iPhone.']);
    // A restatement with a detail more: close enough by embedding (0.98 ≥ the threshold).
    await submitFact(fx.app, fx.key, { content: 'I use an iPhone 15.', user_ref: 'dup' });
    expect(await waitForSubmission(fx.app, fx.workspaceId, 'dup')).to.include({ facts_added: 0, facts_updated: 1 });
    const after = (await getFacts(fx.app, fx.key, { user_ref: 'dup' })).body.data;
    expect(after).to.have.length(1);
    expect(after[0].id).to.equal(before.id);
    // The newest wording wins; the fact keeps its id and creation time.
    expect(after[0].content).to.equal('I use an iPhone 15.');
    expect(after[0].created_at).to.equal(before.created_at);
    expect(Date.parse(after[0].updated_at)).to.be.greaterThan(Date.parse(before.updated_at));

    // A different fact that shares most words is not a duplicate.
    await submitFact(fx.app, fx.key, { content: 'My mother lives in Ghent. My father lives in Ghent.', user_ref: 'dup' });
    await waitForFacts(fx.app, fx.key, { user_ref: 'dup' }, (c) => c.length === 3);

    // A restatement cut short (a submission ending mid-sentence) says nothing new: it leaves the fact whole.
    await submitFact(fx.app, fx.key, { content: 'I like sailing and I live in Delft.', user_ref: 'dup-3' });
    await waitForFacts(fx.app, fx.key, { user_ref: 'dup-3' }, (c) => c.length === 1);
    await submitFact(fx.app, fx.key, { content: 'My cat is named Pim. I like sailing and I live', user_ref: 'dup-3' });
    expect(await waitForSubmission(fx.app, fx.workspaceId, 'dup-3')).to.include({ facts_added: 1, facts_updated: 0 });
    expect(await factContents(fx.app, fx.key, { user_ref: 'dup-3' })).to.have.members(['I like sailing and I live in Delft.', 'My cat is named Pim.']);

    // Two restatements within one submission become one fact.
    await submitFact(fx.app, fx.key, { content: 'I am allergic to peanuts. I’m allergic to peanuts!', user_ref: 'dup-2' });
    expect(await waitForSubmission(fx.app, fx.workspaceId, 'dup-2')).to.include({ facts_found: 2, facts_added: 1, facts_updated: 1 });
    expect(await factContents(fx.app, fx.key, { user_ref: 'dup-2' })).to.have.length(1);

    // Said together, two facts that differ in a number are two facts; said later, another number corrects one.
    await submitFact(fx.app, fx.key, { content: 'I have a dentist appointment on 3 May. I have a dentist appointment on 23 May.', user_ref: 'dup-4' });
    expect(await waitForSubmission(fx.app, fx.workspaceId, 'dup-4')).to.include({ facts_found: 2, facts_added: 2, facts_updated: 0 });
    await submitFact(fx.app, fx.key, { content: 'My son is 7 years old.', user_ref: 'dup-5' });
    await waitForFacts(fx.app, fx.key, { user_ref: 'dup-5' }, (c) => c.length === 1);
    await submitFact(fx.app, fx.key, { content: 'My son is 8 years old.', user_ref: 'dup-5' });
    expect(await waitForSubmission(fx.app, fx.workspaceId, 'dup-5')).to.include({ facts_added: 0, facts_updated: 1 });
    expect(await factContents(fx.app, fx.key, { user_ref: 'dup-5' })).to.deep.equal(['My son is 8 years old.']);
  });

  it('deletes what a statement withdraws ("I no longer live in Leiden"), keeps one that withdraws nothing held (QA, 2026-11-27)', async () => {
    await startWorker();
    await submitFact(fx.app, fx.key, { content: 'I live in Leiden, in the Netherlands. I work at Philips. I have a dog.', user_ref: 'moved' });
    await waitForFacts(fx.app, fx.key, { user_ref: 'moved' }, (c) => c.length === 3);
    await submitFact(fx.app, fx.key, { content: 'I no longer live in Leiden. I live in Amsterdam now.', user_ref: 'moved' });
    expect(await waitForSubmission(fx.app, fx.workspaceId, 'moved')).to.include({ facts_found: 2, facts_added: 1, facts_deleted: 1 });
    expect(await factContents(fx.app, fx.key, { user_ref: 'moved' })).to.have.members(['I work at Philips.', 'I have a dog.', 'I live in Amsterdam now.']);
    // Another language, another form; another end-user's fact stays.
    await submitFact(fx.app, fx.key, { content: 'Ik werk bij Philips.', user_ref: 'moved-nl' });
    await waitForFacts(fx.app, fx.key, { user_ref: 'moved-nl' }, (c) => c.length === 1);
    await submitFact(fx.app, fx.key, { content: "I don't work at Philips anymore.", user_ref: 'moved' });
    expect(await waitForSubmission(fx.app, fx.workspaceId, 'moved')).to.include({ facts_deleted: 1, facts_added: 0 });
    expect(await factContents(fx.app, fx.key, { user_ref: 'moved' })).to.have.members(['I have a dog.', 'I live in Amsterdam now.']);
    expect(await factContents(fx.app, fx.key, { user_ref: 'moved-nl' })).to.deep.equal(['Ik werk bij Philips.']);
    // Only what says what is withdrawn: not a fact that shares its noun, nor another person's.
    await submitFact(fx.app, fx.key, { content: 'I have a dog. I am allergic to dogs. My parents have a dog.', user_ref: 'dogless' });
    await waitForFacts(fx.app, fx.key, { user_ref: 'dogless' }, (c) => c.length === 3);
    await submitFact(fx.app, fx.key, { content: 'I no longer have a dog.', user_ref: 'dogless' });
    expect(await waitForSubmission(fx.app, fx.workspaceId, 'dogless')).to.include({ facts_deleted: 1, facts_added: 0 });
    expect(await factContents(fx.app, fx.key, { user_ref: 'dogless' })).to.have.members(['I am allergic to dogs.', 'My parents have a dog.']);
    // Nothing held that it withdraws: the statement is a fact of its own.
    await submitFact(fx.app, fx.key, { content: 'Ik rook niet meer.', user_ref: 'moved-nl' });
    expect(await waitForSubmission(fx.app, fx.workspaceId, 'moved-nl')).to.include({ facts_added: 1, facts_deleted: 0 });
    expect(await factContents(fx.app, fx.key, { user_ref: 'moved-nl' })).to.have.members(['Ik werk bij Philips.', 'Ik rook niet meer.']);
  });

  it('records a submission in which nothing worth keeping was found as empty', async () => {
    await startWorker();
    const response = await submitFact(fx.app, fx.key, { content: 'Hello! How are you today? Thanks, ok.', user_ref: 'quiet' });
    expect(response.status).to.equal(202);
    const submission = await waitForSubmission(fx.app, fx.workspaceId, 'quiet');
    expect(submission).to.include({ status: 'empty', extractor: 'rules', facts_found: 0, facts_added: 0, content: null });
    expect(await factContents(fx.app, fx.key, { user_ref: 'quiet' })).to.deep.equal([]);
  });

  it('keeps shared knowledge apart from personal memory', async () => {
    await startWorker();
    await submitFact(fx.app, fx.key, { content: 'Our office is closed on Sundays. Do you know when we open? Hello everyone!' });
    await submitFact(fx.app, fx.key, { content: 'I prefer to be called in the morning.', user_ref: 'shared-test' });
    const shared = await waitForFacts(fx.app, fx.key, {}, (c) => c.includes('Our office is closed on Sundays.'));
    expect(shared).to.not.include('I prefer to be called in the morning.');
    const personal = await waitForFacts(fx.app, fx.key, { user_ref: 'shared-test' }, (c) => c.length === 1);
    expect(personal).to.deep.equal(['I prefer to be called in the morning.']);
    const sharedFacts = (await getFacts(fx.app, fx.key)).body.data;
    expect(sharedFacts.every((f: { user_ref: unknown }) => f.user_ref === null)).to.equal(true);
    // Without a user, statements that are not about anyone are the point.
    expect(shared).to.not.include('Do you know when we open?');
  });

  it('lists newest first', async () => {
    await startWorker();
    for (const content of ['I like jazz.', 'I play the cello.', 'I sing in a choir.']) {
      await submitFact(fx.app, fx.key, { content, user_ref: 'order' });
      await waitForSubmission(fx.app, fx.workspaceId, 'order');
    }
    expect(await factContents(fx.app, fx.key, { user_ref: 'order' })).to.deep.equal(['I sing in a choir.', 'I play the cello.', 'I like jazz.']);
  });

  it('searches with q: the relevant facts first, with a score, and only the asked scope', async () => {
    await startWorker();
    await submitFact(fx.app, fx.key, {
      content: 'I am allergic to shellfish. My favourite football club is Feyenoord. I have two cats called Tom and Jerry. I work at the harbour.',
      user_ref: 'searcher',
    });
    await waitForFacts(fx.app, fx.key, { user_ref: 'searcher' }, (c) => c.length === 4);
    await submitFact(fx.app, fx.key, { content: 'I have a dog and two cats.', user_ref: 'someone-else' });
    await waitForFacts(fx.app, fx.key, { user_ref: 'someone-else' }, (c) => c.length === 1);

    const response = await getFacts(fx.app, fx.key, { user_ref: 'searcher', q: 'cats' });
    expect(response.status).to.equal(200);
    const hits = response.body.data;
    expect(hits[0].content).to.equal('I have two cats called Tom and Jerry.');
    expect(hits[0].score).to.be.a('number');
    expect(hits.map((h: { user_ref: string }) => h.user_ref)).to.satisfy((refs: string[]) => refs.every((r) => r === 'searcher'));
    // Unrelated facts are not padding the answer.
    expect(hits.map((h: { content: string }) => h.content)).to.not.include('My favourite football club is Feyenoord.');

    // An inflected form finds the fact too.
    const stemmed = await getFacts(fx.app, fx.key, { user_ref: 'searcher', q: 'which allergies does he have' });
    expect(stemmed.body.data[0].content).to.equal('I am allergic to shellfish.');

    const none = await getFacts(fx.app, fx.key, { user_ref: 'nobody-here', q: 'cats' });
    expect(none.body).to.deep.equal({ data: [], next_cursor: null });

    // A question without a letter or a digit asks about nothing (QA: "???" ranked every fact).
    for (const q of ['???', '🙂🙂', '!!']) {
      const nothing = await getFacts(fx.app, fx.key, { user_ref: 'searcher', q });
      expect(nothing.status, q).to.equal(200);
      expect(nothing.body, q).to.deep.equal({ data: [], next_cursor: null });
    }
  });

  it('pages a listing past 1,000 facts with next_cursor, and a search answers its best `limit` at once', async () => {
    // QA: 1,307 facts, the listing silently stopped at 1,000 while the erasure counted 1,307.
    // 1,050 facts written by one statement share one instant: only the id orders them.
    await fx.app.db.pool.query(
      `insert into facts (organization_id, workspace_id, user_ref, content, content_hash, model, embedding, ts_config)
       select $1, $2, 'bulk', 'I own pet number ' || n || '.', sha256(('pet ' || n)::bytea), 'local/embed-1024',
              array_fill(0.01::real, array[1024])::vector, 'simple'
         from generate_series(1, 1050) as n`,
      [fx.organizationId, fx.workspaceId],
    );
    const first = await getFacts(fx.app, fx.key, { user_ref: 'bulk' });
    expect(first.status).to.equal(200);
    // A caller that sends no limit gets the 1,000 it got before, and now learns that more exist.
    expect(first.body.data).to.have.length(1000);
    expect(first.body.next_cursor).to.be.a('string');
    const rest = await getFacts(fx.app, fx.key, { user_ref: 'bulk', cursor: first.body.next_cursor });
    expect(rest.body.data).to.have.length(50);
    expect(rest.body.next_cursor).to.equal(null);
    const all = [...first.body.data, ...rest.body.data].map((f: { id: string }) => f.id);
    expect(new Set(all).size).to.equal(1050);

    // Smaller pages walk the same order.
    const walked: string[] = [];
    const sizes: number[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await getFacts(fx.app, fx.key, { user_ref: 'bulk', limit: '400', ...(cursor ? { cursor } : {}) });
      expect(page.status, page.text).to.equal(200);
      sizes.push(page.body.data.length);
      walked.push(...page.body.data.map((f: { id: string }) => f.id));
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(sizes).to.deep.equal([400, 400, 250]);
    expect(walked).to.deep.equal(all);

    const search = await getFacts(fx.app, fx.key, { user_ref: 'bulk', q: 'pet 7', limit: '3' });
    expect(search.status).to.equal(200);
    expect(search.body.data.length).to.be.within(1, 3);
    expect(search.body.next_cursor).to.equal(null);
    const pagedSearch = await getFacts(fx.app, fx.key, { user_ref: 'bulk', q: 'pet', cursor: first.body.next_cursor });
    expect(pagedSearch.status).to.equal(422);
    expect(pagedSearch.body.errors).to.have.property('cursor');
    const bigSearch = await getFacts(fx.app, fx.key, { user_ref: 'bulk', q: 'pet', limit: '101' });
    expect(bigSearch.status).to.equal(422);
    expect(bigSearch.body.errors.limit).to.deep.equal(['must be <= 100 with q']);

    // What the listing showed is what the erasure removes.
    const erased = await api(fx.app.baseUrl, '/v1/memory?user_ref=bulk', { method: 'DELETE', key: fx.key });
    expect(erased.body.deleted.facts).to.equal(all.length);
  });

  it('forgets one fact; an unknown id or another workspace’s is a 404', async () => {
    await startWorker();
    await submitFact(fx.app, fx.key, { content: 'I collect stamps. I grow tomatoes.', user_ref: 'forgetful' });
    await waitForFacts(fx.app, fx.key, { user_ref: 'forgetful' }, (c) => c.length === 2);
    const facts = (await getFacts(fx.app, fx.key, { user_ref: 'forgetful' })).body.data;
    const target = facts.find((f: { content: string }) => f.content === 'I collect stamps.');

    const other = await fx.app.key({ org: 'acme', workspace: 'other' });
    const elsewhere = await api(fx.app.baseUrl, `/v1/memory/facts/${target.id}`, { method: 'DELETE', key: other.key });
    expect(elsewhere.status).to.equal(404);
    expect(elsewhere.body.message).to.be.a('string');

    const deleted = await api(fx.app.baseUrl, `/v1/memory/facts/${target.id}`, { method: 'DELETE', key: fx.key });
    expect(deleted.status).to.equal(200);
    expect(deleted.body).to.deep.equal({ deleted: 1 });
    expect(await factContents(fx.app, fx.key, { user_ref: 'forgetful' })).to.deep.equal(['I grow tomatoes.']);

    const again = await api(fx.app.baseUrl, `/v1/memory/facts/${target.id}`, { method: 'DELETE', key: fx.key });
    expect(again.status).to.equal(404);
    const notAnId = await api(fx.app.baseUrl, '/v1/memory/facts/not-a-uuid', { method: 'DELETE', key: fx.key });
    expect(notAnId.status).to.equal(404);
  });

  describe('validation', () => {
    const invalidSubmissions: [string, unknown, string][] = [
      ['content missing', { user_ref: 'x' }, 'content'],
      ['content empty', { content: '' }, 'content'],
      ['content over 10,000 characters', { content: 'a'.repeat(10_001) }, 'content'],
      ['content not a string', { content: 42 }, 'content'],
      ['user_ref empty', { content: 'I am here.', user_ref: '' }, 'user_ref'],
      ['user_ref over 255 characters', { content: 'I am here.', user_ref: 'u'.repeat(256) }, 'user_ref'],
      ['an unknown field', { content: 'I am here.', user: 'x' }, 'user'],
    ];
    for (const [what, body, field] of invalidSubmissions) {
      it(`POST /recall/facts: 422 for ${what}`, async () => {
        const response = await submitFact(fx.app, fx.key, body);
        expect(response.status).to.equal(422);
        expect(response.body.errors).to.have.property(field);
      });
    }

    it('POST /recall/facts: 422 "must not be blank" for a blank content, before anything is stored', async () => {
      // QA: "   " answered 202 and nothing was ever stored, with no sign why.
      const before = (await fx.app.db.pool.query('select count(*)::int as n from fact_submissions')).rows[0].n;
      for (const content of ['   ', ' \n\t ']) {
        const response = await submitFact(fx.app, fx.key, { content, user_ref: 'blank' });
        expect(response.status).to.equal(422);
        expect(response.body.errors).to.deep.equal({ content: ['must not be blank'] });
      }
      expect((await fx.app.db.pool.query('select count(*)::int as n from fact_submissions')).rows[0].n).to.equal(before);
    });

    it('POST /recall/facts takes a null user_ref as none: the fact is shared knowledge', async () => {
      await startWorker();
      const response = await submitFact(fx.app, fx.key, { content: 'The depot opens at seven on weekdays.', user_ref: null });
      expect(response.status, response.text).to.equal(202);
      const shared = await waitForFacts(fx.app, fx.key, {}, (c) => c.includes('The depot opens at seven on weekdays.'));
      expect(shared).to.include('The depot opens at seven on weekdays.');
    });

    it('POST /recall/facts accepts content of exactly 10,000 characters', async () => {
      const response = await submitFact(fx.app, fx.key, { content: `I ${'a'.repeat(9_998)}`, user_ref: 'long' });
      expect(response.status).to.equal(202);
    });

    const invalidQueries: [string, Record<string, string>, string][] = [
      ['user_ref empty', { user_ref: '' }, 'user_ref'],
      ['q empty', { q: '' }, 'q'],
      ['an unknown parameter', { user: 'x' }, 'user'],
      ['limit 0', { limit: '0' }, 'limit'],
      ['limit over 1,000', { limit: '1001' }, 'limit'],
      ['a cursor this service did not issue', { cursor: 'bm9wZQ' }, 'cursor'],
    ];
    for (const [what, query, field] of invalidQueries) {
      it(`GET /recall/facts: 422 for ${what}`, async () => {
        const response = await getFacts(fx.app, fx.key, query);
        expect(response.status).to.equal(422);
        expect(response.body.errors).to.have.property(field);
      });
    }

    it('needs memory.write to submit and memory.read to list', async () => {
      const reader = await fx.app.key({ kind: 'restricted', scopes: ['memory.read'] });
      expect((await submitFact(fx.app, reader.key, { content: 'I am here.' })).status).to.equal(403);
      expect((await getFacts(fx.app, reader.key)).status).to.equal(200);
      const writer = await fx.app.key({ kind: 'restricted', scopes: ['memory.write'] });
      expect((await getFacts(fx.app, writer.key)).status).to.equal(403);
      expect((await submitFact(fx.app, writer.key, { content: 'I am here.' })).status).to.equal(202);
      expect((await submitFact(fx.app, 'pld_nope', { content: 'I am here.' })).status).to.equal(401);
    });
  });

  it('bills the embeddings of the facts it found, and nothing for a submission without facts', async () => {
    await startWorker();
    await submitFact(fx.app, fx.key, { content: 'I work as a nurse in Zwolle.', user_ref: 'billed-rules' });
    const found = await waitForSubmission(fx.app, fx.workspaceId, 'billed-rules');
    expect(found.status).to.equal('done');
    const usageOf = async (submissionId: string) =>
      (
        await fx.app.db.pool.query(
          `select kind, model, provider, prompt_tokens, completion_tokens, credits_total::float8 as total
             from usage where workspace_id = $1 and request_id = $2`,
          [fx.workspaceId, `facts:${submissionId}`],
        )
      ).rows;
    const [row, ...more] = await usageOf(found.id);
    expect(more).to.deep.equal([]);
    expect(row).to.include({ kind: 'facts', model: 'local/embed-1024', provider: null, completion_tokens: 0 });
    expect(row.prompt_tokens).to.be.greaterThan(0);
    expect(row.total).to.be.closeTo((row.prompt_tokens * 0.01) / 1000, 1e-8);

    await submitFact(fx.app, fx.key, { content: 'Hello! How are you today?', user_ref: 'billed-nothing' });
    const empty = await waitForSubmission(fx.app, fx.workspaceId, 'billed-nothing');
    expect(empty.status).to.equal('empty');
    expect(await usageOf(empty.id)).to.deep.equal([]);
  });
});
