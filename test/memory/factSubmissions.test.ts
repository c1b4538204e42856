import { expect } from 'chai';
import { api } from '../helpers/app.js';
import { waitFor } from '../helpers/db.js';
import { setExtractionModel, startFactsFixture, submitFact, type FactsFixture } from './factsFixture.js';

// How a submission's extraction went: what a caller polls, as mem0's event status, since the
// facts.extracted webhook tells only of success (QA: a failed extraction left no trace a caller could see).
describe('GET /recall/submissions/{id}', () => {
  let fx: FactsFixture;
  before(async () => {
    fx = await startFactsFixture();
    await fx.app.startWorker();
  });
  after(async () => {
    await fx.close();
  });

  const submission = (id: string, key = fx.key) => api(fx.app.baseUrl, `/v1/recall/submissions/${id}`, { key });
  const ended = (id: string) =>
    waitFor(
      async () => {
        const response = await submission(id);
        return ['done', 'empty', 'failed'].includes(response.body.status) ? response : undefined;
      },
      { what: `submission ${id} to end` },
    );

  it('says what an extraction stored, never the submitted text', async () => {
    const accepted = await submitFact(fx.app, fx.key, { content: 'Ik woon in Zwolle en ik heb twee zonen.', user_ref: 'klant-5' });
    expect(accepted.status).to.equal(202);
    const response = await ended(accepted.body.submission_id);
    expect(response.status).to.equal(200);
    expect(response.body).to.include({ id: accepted.body.submission_id, status: 'done', user_ref: 'klant-5', extractor: 'rules', error: null });
    expect(response.body.facts.found).to.be.at.least(1);
    expect(response.body.facts.added).to.be.at.least(1);
    expect(response.body.completed_at).to.be.a('string');
    expect(JSON.stringify(response.body)).not.to.contain('Zwolle');
  });

  it('says why an extraction failed', async () => {
    await setExtractionModel(fx, 'test/extractor');
    try {
      fx.eu.script({ type: 'status', status: 400, body: { error: { message: 'model refuses this', type: 'invalid_request_error' } } });
      const accepted = await submitFact(fx.app, fx.key, { content: 'Ik heb een kat.', user_ref: 'klant-6' });
      const response = await ended(accepted.body.submission_id);
      expect(response.body).to.include({ status: 'failed', extractor: 'test/extractor' });
      expect(response.body.error).to.contain('rejected the request');
      expect(response.body.facts).to.deep.equal({ found: 0, added: 0, updated: 0, deleted: 0 });
    } finally {
      await setExtractionModel(fx, null);
    }
  });

  it('answers 404 for another workspace’s submission and for an id that is none, 403 without memory.read', async () => {
    const accepted = await submitFact(fx.app, fx.key, { content: 'Onze helpdesk is open tot vijf uur.' });
    const other = await fx.app.key({ org: 'other', workspace: 'w' });
    expect((await submission(accepted.body.submission_id, other.key)).status).to.equal(404);
    expect((await submission('not-a-submission')).status).to.equal(404);
    const chatOnly = await fx.app.key({ kind: 'restricted', scopes: ['chat.create'] });
    expect((await submission(accepted.body.submission_id, chatOnly.key)).status).to.equal(403);
  });
});
