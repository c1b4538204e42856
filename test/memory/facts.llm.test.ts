import { expect } from 'chai';
import { addJob } from '../../src/jobs/registry.js';
import { submitFact as submitFactInDb } from '../../src/memory/facts.js';
import type { Principal } from '../../src/tenancy/store.js';
import { api } from '../helpers/app.js';
import { waitFor } from '../helpers/db.js';
import { changeNonEuAcceptance } from '../../src/tenancy/keys.js';
import {
  factContents,
  getFacts,
  jsonAnswer,
  setExtractionModel,
  startFactsFixture,
  submitFact,
  waitForFacts,
  waitForNoExtractionJobs,
  waitForSubmission,
  type FactsFixture,
} from './factsFixture.js';

// Facts extracted by the workspace's extraction model (a stub provider scripted with answers):
// the facts as JSON, then the reconciliation with the facts already held (add/update/delete/none).
describe('facts (extraction model)', () => {
  let fx: FactsFixture;
  before(async () => {
    fx = await startFactsFixture();
    await setExtractionModel(fx, 'test/extractor');
    await fx.app.startWorker();
  });
  after(async () => {
    await fx.close();
  });
  beforeEach(() => {
    fx.eu.reset();
    fx.ext.reset();
  });

  it('asks the model for the facts as JSON and adds them; nothing held yet, so no second question', async () => {
    fx.eu.script(jsonAnswer({ facts: ['I live in Delft', 'I have a daughter called Mia', 'I live in Delft'] }));
    const content = 'Hi! I live in Delft with my daughter Mia. What should we do this weekend?';
    expect((await submitFact(fx.app, fx.key, { content, user_ref: 'llm-add' })).status).to.equal(202);
    const submission = await waitForSubmission(fx.app, fx.workspaceId, 'llm-add');
    expect(submission).to.include({ status: 'done', extractor: 'test/extractor', facts_found: 2, facts_added: 2 });
    expect(await factContents(fx.app, fx.key, { user_ref: 'llm-add' })).to.have.members(['I live in Delft', 'I have a daughter called Mia']);

    expect(fx.eu.requests).to.have.length(1);
    const request = fx.eu.requests[0]!.body;
    expect(request.model).to.equal('extractor-upstream');
    expect(request.temperature).to.equal(0);
    // Capped at the model's answer cap (the catalogue's default, 4,096): a model that runs on is not billed without end.
    expect(request.max_tokens).to.equal(4096);
    expect(request.response_format.type).to.equal('json_schema');
    expect(request.response_format.json_schema.schema.required).to.deep.equal(['facts']);
    expect(request.messages[0].role).to.equal('system');
    // The submission as the firewall masks it (on by default): the model never sees the name.
    expect(request.messages[1]).to.deep.equal({ role: 'user', content: content.replace('Mia', '[PERSON_1]') });
  });

  it('keeps no fact longer than the API takes one (10,000 characters): a model that runs on states no atomic fact', async () => {
    fx.eu.script(jsonAnswer({ facts: ['I play the cello', `I like ${'very '.repeat(2_500)}long sentences`] }));
    await submitFact(fx.app, fx.key, { content: 'I play the cello, and I like long sentences.', user_ref: 'llm-long' });
    const submission = await waitForSubmission(fx.app, fx.workspaceId, 'llm-long');
    expect(submission).to.include({ status: 'done', facts_found: 1, facts_added: 1 });
    expect(await factContents(fx.app, fx.key, { user_ref: 'llm-long' })).to.deep.equal(['I play the cello']);
  });

  it('keeps no fact made only of spaces or invisible characters, as the API refuses such a content', async () => {
    // QA: a zero-width space was stored as a fact, then retrieved into chats as a source.
    fx.eu.script(jsonAnswer({ facts: ['', '   ', '\u200b', '\ufeff\u00ad', 'I play the oboe'] }));
    await submitFact(fx.app, fx.key, { content: 'I play the oboe.', user_ref: 'llm-blank' });
    const submission = await waitForSubmission(fx.app, fx.workspaceId, 'llm-blank');
    expect(submission).to.include({ status: 'done', facts_added: 1 });
    expect(await factContents(fx.app, fx.key, { user_ref: 'llm-blank' })).to.deep.equal(['I play the oboe']);
  });

  it('bills the extraction: the tokens of the model at its price and of the embeddings, one usage row per model', async () => {
    fx.eu.script(jsonAnswer({ facts: ['I cycle to work', 'I have a cat called Pip'] }));
    await submitFact(fx.app, fx.key, { content: 'I cycle to work every day and my cat Pip waits at home.', user_ref: 'llm-billed' });
    const submission = await waitForSubmission(fx.app, fx.workspaceId, 'llm-billed');
    expect(submission.status).to.equal('done');
    const { rows } = await fx.app.db.pool.query(
      `select request_id, kind, model, provider, prompt_tokens, completion_tokens, credits_base::float8 as base, credits_total::float8 as total
         from usage where workspace_id = $1 and request_id = $2 order by model`,
      [fx.workspaceId, `facts:${submission.id}`],
    );
    // One request (the trace's id) with a line per model.
    expect(rows.map((r) => [r.request_id, r.kind, r.model, r.provider])).to.deep.equal([
      [`facts:${submission.id}`, 'facts', 'local/embed-1024', null],
      [`facts:${submission.id}`, 'facts', 'test/extractor', 'eu-x'],
    ]);
    const [embeddings, extractor] = rows;
    // The stub's own usage for its one answer (no facts held yet: no reconciliation question).
    const answered = fx.eu.requests[0]!;
    const words = (text: string) => text.split(/\s+/).filter(Boolean).length;
    expect(extractor.completion_tokens).to.equal(words(JSON.stringify({ facts: ['I cycle to work', 'I have a cat called Pip'] })));
    expect(extractor.prompt_tokens).to.be.greaterThan(0);
    expect(answered.body.model).to.equal('extractor-upstream');
    // test/extractor costs 1 credit per 1,000 prompt tokens and 2 per 1,000 completion tokens.
    expect(extractor.base).to.be.closeTo((extractor.prompt_tokens * 1 + extractor.completion_tokens * 2) / 1000, 1e-8);
    expect(extractor.total).to.equal(extractor.base);
    expect(embeddings.prompt_tokens).to.be.greaterThan(0);
    expect(embeddings.base).to.be.closeTo((embeddings.prompt_tokens * 0.01) / 1000, 1e-8);

    const byKind = await api(fx.app.baseUrl, '/v1/usage?group_by=kind', { key: fx.key });
    expect(byKind.status).to.equal(200);
    expect(byKind.body.data.map((row: { key: string }) => row.key)).to.include('facts');
  });

  it('reconciles new facts with the similar ones held: update, delete, nothing, add', async () => {
    fx.eu.script(jsonAnswer({ facts: ['I live in Leiden', 'I like green tea', 'I work at the university'] }));
    await submitFact(fx.app, fx.key, { content: 'I live in Leiden, like green tea and work at the university.', user_ref: 'llm-rec' });
    await waitForFacts(fx.app, fx.key, { user_ref: 'llm-rec' }, (c) => c.length === 3);
    const held = (await getFacts(fx.app, fx.key, { user_ref: 'llm-rec' })).body.data as { id: string; content: string }[];
    // The model is shown the held facts as "0", "1", … in id order.
    const shown = [...held].sort((a, b) => (a.id < b.id ? -1 : 1));
    const number = (content: string) => String(shown.findIndex((f) => f.content === content));
    const leiden = held.find((f) => f.content === 'I live in Leiden')!;
    fx.eu.reset();
    fx.eu.script(
      jsonAnswer({ facts: ['I moved to Rotterdam', 'I left the university', 'I like green tea', 'I cycle to work'] }),
      jsonAnswer({
        actions: [
          { event: 'UPDATE', id: number('I live in Leiden'), text: 'I live in Rotterdam' },
          { event: 'DELETE', id: number('I work at the university'), text: 'I work at the university' },
          { event: 'NONE', id: number('I like green tea'), text: 'I like green tea' },
          { event: 'ADD', id: null, text: 'I cycle to work' },
          // An id the model was not shown points nowhere: ignored.
          { event: 'DELETE', id: '17', text: 'whatever' },
        ],
      }),
    );
    await submitFact(fx.app, fx.key, {
      content: 'I moved to Rotterdam and left the university. Still love green tea. I cycle to work now.',
      user_ref: 'llm-rec',
    });
    const submission = await waitForSubmission(fx.app, fx.workspaceId, 'llm-rec');
    expect(submission).to.include({ status: 'done', facts_found: 4, facts_added: 1, facts_updated: 1, facts_deleted: 1 });

    const after = (await getFacts(fx.app, fx.key, { user_ref: 'llm-rec' })).body.data as { id: string; content: string }[];
    expect(after.map((f) => f.content)).to.have.members(['I live in Rotterdam', 'I like green tea', 'I cycle to work']);
    // An update keeps the fact (its id), with the new text.
    expect(after.find((f) => f.content === 'I live in Rotterdam')!.id).to.equal(leiden.id);

    expect(fx.eu.requests).to.have.length(2);
    const reconciliation = fx.eu.requests[1]!.body;
    expect(reconciliation.response_format.json_schema.name).to.equal('memory_actions');
    const asked = JSON.parse(reconciliation.messages[1].content);
    expect(asked.new_facts).to.deep.equal(['I moved to Rotterdam', 'I left the university', 'I like green tea', 'I cycle to work']);
    expect(asked.memories).to.deep.equal(shown.map((f, i) => ({ id: String(i), text: f.content })));
  });

  it('queues an end-user\'s extractions in one queue, run one after another, whose name does not hold the end-user', async () => {
    // A plan is made from the facts held (the model says which to update): two made at once from
    // the same facts would each add what the other should have updated (QA: two favourite foods).
    const principal = { organizationId: fx.organizationId, workspaceId: fx.workspaceId } as Principal;
    const client = await fx.app.db.pool.connect();
    try {
      await client.query('begin');
      const ids = [
        await submitFactInDb(client, principal, { content: 'My favourite food is curry.', user_ref: 'kim@example.nl' }),
        await submitFactInDb(client, principal, { content: 'My favourite food is pizza.', user_ref: 'kim@example.nl' }),
      ];
      const { rows } = await client.query<{ queue_name: string | null }>(
        `select q.queue_name from graphile_worker._private_jobs j left join graphile_worker._private_job_queues q on q.id = j.job_queue_id where j.payload->>'submission_id' = any($1)`,
        [ids],
      );
      expect(rows).to.have.length(2);
      expect(rows[0]!.queue_name).to.be.a('string').and.equal(rows[1]!.queue_name);
      expect(rows[0]!.queue_name).to.not.contain('kim');
    } finally {
      await client.query('rollback');
      client.release();
    }
  });

  it('records a submission where the model found nothing as empty, and asks for shared knowledge differently', async () => {
    fx.eu.script(jsonAnswer({ facts: [] }));
    await submitFact(fx.app, fx.key, { content: 'Hello, anyone there?' });
    const submission = await waitForSubmission(fx.app, fx.workspaceId, null);
    expect(submission).to.include({ status: 'empty', extractor: 'test/extractor', facts_found: 0 });
    expect(fx.eu.requests[0]!.body.messages[0].content).to.contain('shared knowledge');
  });

  it('keeps personal data in the EU: an external extraction model needs the organization’s acceptance', async () => {
    await setExtractionModel(fx, 'test/ext-extractor');
    try {
      await submitFact(fx.app, fx.key, { content: 'I live in Haarlem.', user_ref: 'llm-eu' });
      const refused = await waitForSubmission(fx.app, fx.workspaceId, 'llm-eu');
      expect(refused.status).to.equal('failed');
      expect(refused.error).to.match(/outside the EU/);
      expect(fx.ext.requests).to.have.length(0);
      expect(await factContents(fx.app, fx.key, { user_ref: 'llm-eu' })).to.deep.equal([]);

      await changeNonEuAcceptance(fx.app.db.pool, 'acme', 'sofie');
      fx.ext.script(jsonAnswer({ facts: ['I live in Haarlem'] }));
      await submitFact(fx.app, fx.key, { content: 'I live in Haarlem.', user_ref: 'llm-eu' });
      await waitForFacts(fx.app, fx.key, { user_ref: 'llm-eu' }, (c) => c.length === 1);
      expect(fx.ext.requests).to.have.length(1);
    } finally {
      await changeNonEuAcceptance(fx.app.db.pool, 'acme', null);
      await setExtractionModel(fx, 'test/extractor');
    }
  });

  it('retries while the model is unavailable', async function () {
    this.timeout(20_000);
    fx.eu.script({ type: 'status', status: 503 }, jsonAnswer({ facts: ['I speak Frisian'] }));
    await submitFact(fx.app, fx.key, { content: 'I speak Frisian.', user_ref: 'llm-retry' });
    // graphile-worker's backoff puts the second attempt about e¹ ≈ 2.7 s after the first.
    const contents = await waitForFacts(fx.app, fx.key, { user_ref: 'llm-retry' }, (c) => c.length === 1);
    expect(contents).to.deep.equal(['I speak Frisian']);
    expect(fx.eu.requests).to.have.length(2);
  });

  it('extracts an earlier submission waiting for its retry before a later one of the same end-user, and shows why it waits (QA)', async function () {
    this.timeout(20_000);
    // QA: "I live in Haarlem" failed its first attempt, "I no longer live in Haarlem" ran meanwhile,
    // and the retry then stored Haarlem again.
    fx.eu.script({ type: 'status', status: 503 }, jsonAnswer({ facts: ['I live in Haarlem'] }), jsonAnswer({ facts: [] }));
    const first = (await submitFact(fx.app, fx.key, { content: 'I live in Haarlem.', user_ref: 'llm-order' })).body.submission_id as string;
    // As a document waiting for its retry shows it (it showed "processing" with no error).
    const waiting = await waitFor(
      async () => {
        const shown = await api(fx.app.baseUrl, `/v1/recall/submissions/${first}`, { key: fx.key });
        return shown.body.error ? shown.body : undefined;
      },
      { what: 'the failed attempt shown' },
    );
    expect(waiting.status).to.equal('queued');
    expect(waiting.error).to.match(/^attempt 1 of \d+ failed, retrying: /);
    await submitFact(fx.app, fx.key, { content: 'Something unrelated about the weather.', user_ref: 'llm-order' });
    await waitFor(
      async () => {
        const { rows } = await fx.app.db.pool.query(`select status from fact_submissions where user_ref = 'llm-order' and status in ('queued', 'processing')`);
        return rows.length === 0 ? true : undefined;
      },
      { what: 'both submissions extracted' },
    );
    const asked = fx.eu.requests.map((request) => JSON.stringify(request.body));
    expect(asked).to.have.length(3);
    expect(asked[1]).to.contain('I live in Haarlem.');
    expect(asked[2]).to.contain('unrelated about the weather');
    // The first submission's own retry finds it done: no fourth question, no second Haarlem.
    await waitForNoExtractionJobs(fx.app);
    expect(fx.eu.requests).to.have.length(3);
    expect(await factContents(fx.app, fx.key, { user_ref: 'llm-order' })).to.deep.equal(['I live in Haarlem']);
    const { rows } = await fx.app.db.pool.query(`select status, error from fact_submissions where user_ref = 'llm-order' order by created_at`);
    expect(rows).to.deep.equal([
      { status: 'done', error: null },
      { status: 'empty', error: null },
    ]);
  });

  it('reads an answer with a long run of whitespace in linear time', async () => {
    // Cutting a closing code fence with /\s*```\s*$/ rescanned such a run from each of its
    // positions: 100,000 spaces held the worker for about 30 s.
    fx.eu.script({ type: 'answer', content: `{"facts": ["I like tea"]${' '.repeat(100_000)}}` });
    const started = Date.now();
    await submitFact(fx.app, fx.key, { content: 'I like tea.', user_ref: 'llm-spaces' });
    const submission = await waitForSubmission(fx.app, fx.workspaceId, 'llm-spaces');
    expect(Date.now() - started).to.be.below(10_000);
    expect(submission).to.include({ status: 'done', facts_added: 1 });
    expect(await factContents(fx.app, fx.key, { user_ref: 'llm-spaces' })).to.deep.equal(['I like tea']);
  });

  it('records the failure on the last attempt when the model never answers usable JSON', async () => {
    const { rows } = await fx.app.db.pool.query<{ id: string }>(
      `insert into fact_submissions (organization_id, workspace_id, user_ref, content) values ($1, $2, 'llm-bad', 'I like chess.')
       returning id`,
      [fx.organizationId, fx.workspaceId],
    );
    fx.eu.script({ type: 'answer', content: 'Sure! Here are the facts: the user likes chess.' });
    await addJob(fx.app.db.pool, 'memory__extract_facts', { submission_id: rows[0]!.id }, { maxAttempts: 1 });
    const submission = await waitForSubmission(fx.app, fx.workspaceId, 'llm-bad');
    expect(submission.status).to.equal('failed');
    expect(submission.error).to.contain('did not answer with JSON');
    expect(submission.content).to.equal(null);
    // Recorded on the submission, so the job itself ends rather than lingering as failed.
    await waitForNoExtractionJobs(fx.app);
  });
});
