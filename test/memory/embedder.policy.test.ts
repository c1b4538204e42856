import { expect } from 'chai';
import { withTransaction } from '../../src/db/transaction.js';
import { createDocument } from '../../src/memory/documents.js';
import { submitFact as submitFactRow } from '../../src/memory/facts.js';
import type { Principal } from '../../src/tenancy/store.js';
import { api, startTestApp, type TestApp } from '../helpers/app.js';
import { startStubProvider, type StubProvider } from '../helpers/stubProvider.js';
import { createCollection, ingest, settled } from './documentsFixture.js';
import { factContents, submitFact, waitForFacts, waitForSubmission } from './factsFixture.js';
import { SERVICES, embeddingModel1024, loadTestCatalog } from '../helpers/catalog.js';

// The memory embedding model served by two EU providers, of which the workspace allows one
// (allowed_providers): the ingest of a document, the embedding of facts, a search of facts and
// the retrieval into a chat all go through the allowed one only, as every other call made for the
// workspace does. A policy that allows neither answers a chat, a search, a document or a fact
// with a 422 that says which setting to change, never a 500, and fails work accepted before it
// with that reason.
describe('memory embedding and the workspace’s allowed providers', function () {
  this.timeout(30_000);
  let app: TestApp;
  let allowed: StubProvider;
  let disallowed: StubProvider;
  let key: string;
  let workspaceId: string;
  let organizationId: string;
  let slug: string;
  before(async () => {
    [disallowed, allowed] = await Promise.all([startStubProvider({ dimensions: 1024 }), startStubProvider({ dimensions: 1024 })]);
    // eu-a comes first: without the policy it is the one every embedding goes to.
    const yaml = `
providers:
  - {id: eu-a, region: eu, kind: openai, base_url: "${disallowed.url}", api_key: "\${STUB_KEY}", timeout_ms: 10000}
  - {id: eu-b, region: eu, kind: openai, base_url: "${allowed.url}", api_key: "\${STUB_KEY}", timeout_ms: 10000}
  - {id: local, region: eu, kind: local}
models:
${embeddingModel1024('stub/embed-1024', [
  ['eu-a', 'embed-a'],
  ['eu-b', 'embed-b'],
])}
  - id: local/echo
    type: chat
    context_length: 8192
    pricing: {prompt: 0.01, completion: 0.02}
    endpoints:
      - {provider: local, upstream_model: echo}
aliases: {}
${SERVICES}
`;
    app = await startTestApp({ catalog: loadTestCatalog(yaml).catalog });
    await app.startWorker();
    const created = await app.key({ org: 'acme', workspace: 'main' });
    key = created.key;
    workspaceId = created.workspace_id;
    organizationId = created.organization_id;
    slug = await createCollection(app, key, 'Polissen');
  });
  after(async () => {
    await app.close();
    await Promise.all([allowed.close(), disallowed.close()]);
  });
  beforeEach(() => {
    allowed.reset();
    disallowed.reset();
  });

  const allowProviders = async (providers: string[] | null) => {
    const response = await api(app.baseUrl, '/v1/settings/router', { method: 'PUT', key, body: { allowed_providers: providers } });
    expect(response.status, response.text).to.equal(200);
  };
  const embeddingCalls = (stub: StubProvider) => stub.requests.filter((r) => r.path.endsWith('/embeddings')).length;
  const chat = (content: string) =>
    api(app.baseUrl, '/v1/chat/completions', {
      method: 'POST',
      key,
      body: { model: 'local/echo', user: 'klant-1', messages: [{ role: 'user', content }] },
    });

  describe('with one of the two providers allowed', () => {
    before(() => allowProviders(['eu-b', 'local']));

    it('ingests a document through the allowed provider only', async () => {
      const id = await ingest(app, key, {
        title: 'Inboedel',
        text: 'Het eigen risico van de inboedelverzekering is 250 euro per schade.',
        collection: slug,
      });
      expect((await settled(app, key, id)).status).to.equal('ready');
      expect(embeddingCalls(allowed)).to.be.greaterThan(0);
      expect(disallowed.requests).to.have.length(0);
    });

    it('embeds facts, searches them and retrieves into a chat through the allowed provider only', async () => {
      await submitFact(app, key, { content: 'Ik heb een inboedelverzekering sinds 2019.', user_ref: 'klant-1' });
      await waitForFacts(app, key, { user_ref: 'klant-1' }, (facts) => facts.length === 1);
      const found = await api(app.baseUrl, '/v1/recall/facts?user_ref=klant-1&q=inboedelverzekering', { key });
      expect(found.status, found.text).to.equal(200);
      expect(found.body.data.map((f: { content: string }) => f.content)).to.deep.equal(['Ik heb een inboedelverzekering sinds 2019.']);

      const answered = await chat('Wat is het eigen risico van mijn inboedelverzekering?');
      expect(answered.status, answered.text).to.equal(200);
      expect(answered.body.sources.map((s: { type: string }) => s.type)).to.include.members(['fact', 'chunk']);

      // The fact's embedding, the search's and the chat's query: three calls, all to eu-b.
      expect(embeddingCalls(allowed)).to.be.at.least(3);
      expect(disallowed.requests).to.have.length(0);
    });

    it('does not fall back to the disallowed provider when the allowed one is down: the chat is answered with the memory its words find, noted on the trace', async () => {
      allowed.script({ type: 'status', status: 503 });
      const response = await chat('Sinds wanneer heb ik mijn inboedelverzekering?');
      expect(response.status, response.text).to.equal(200);
      expect(response.body.sources.map((s: { text: string }) => s.text)).to.include('Ik heb een inboedelverzekering sinds 2019.');
      expect(disallowed.requests).to.have.length(0);
      const trace = await api(app.baseUrl, `/v1/traces/${response.body.id}`, { key });
      expect(JSON.stringify(trace.body.notes)).to.match(/memory was searched by its words only: embedding for memory failed: /);
    });

    it('still fails a chat whose question the memory model refused as invalid (400): its words would be refused again', async () => {
      allowed.script({ type: 'status', status: 400, message: 'bad input' });
      const response = await chat('Wat is het eigen risico van mijn inboedelverzekering, nogmaals?');
      expect(response.status, response.text).to.equal(400);
      expect(response.body.message).to.match(/^embedding for memory failed: /);
      expect(disallowed.requests).to.have.length(0);
    });
  });

  describe('with neither provider allowed', () => {
    before(() => allowProviders(['local']));
    after(() => allowProviders(null));

    it('refuses an ingest and a fact submission up front with a 422 naming allowed_providers: nothing is stored to fail unseen', async () => {
      // QA: both were accepted (201, 202), then failed in their jobs; a fact submission's failure
      // cannot even be seen through the API.
      const counts = async () =>
        (await app.db.pool.query('select (select count(*) from documents)::int as documents, (select count(*) from fact_submissions)::int as submissions')).rows[0];
      const before = await counts();
      for (const response of [
        await api(app.baseUrl, '/v1/memory/documents', { method: 'POST', key, body: { title: 'Verzuim', text: 'Ziek melden voor negen uur.', collection: slug } }),
        await api(app.baseUrl, '/v1/recall/facts', { method: 'POST', key, body: { content: 'Ik woon in Delft.', user_ref: 'klant-2' } }),
      ]) {
        expect(response.status, response.text).to.equal(422);
        expect(response.body.errors).to.have.all.keys('allowed_providers');
        expect(response.body.message).to.match(/^memory is embedded by stub\/embed-1024, .* add one of them to allowed_providers$/);
      }
      expect(await counts()).to.deep.equal(before);
      expect(allowed.requests.length + disallowed.requests.length).to.equal(0);
    });

    it('fails an ingest accepted before the policy changed at once, in its job, saying which setting to change', async () => {
      const document = await withTransaction(app.db.pool, (db) =>
        createDocument(db, { organizationId, workspaceId }, { title: 'Verzuim', text: 'Medewerkers melden ziekte voor negen uur.', collection: slug }),
      );
      const settledDocument = await settled(app, key, document.id);
      expect(settledDocument.status).to.equal('failed');
      expect(settledDocument.error).to.equal(
        "memory is embedded by stub/embed-1024, which the workspace's allowed_providers leaves no provider for (it is served by eu-a, eu-b); add one of them to allowed_providers",
      );
      const { rows } = await app.db.pool.query<{ attempts: number }>(
        "select attempts from graphile_worker.jobs where task_identifier = 'memory__ingest_document'",
      );
      expect(rows).to.deep.equal([]);
      expect(allowed.requests.length + disallowed.requests.length).to.equal(0);
    });

    it('answers a chat with memory, and a search of facts, with a 422 naming allowed_providers, not a 500', async () => {
      for (const response of [
        await chat('Wat is het eigen risico van mijn inboedelverzekering?'),
        await api(app.baseUrl, '/v1/recall/facts?user_ref=klant-1&q=inboedel', { key }),
      ]) {
        expect(response.status, response.text).to.equal(422);
        expect(response.body).to.include({ code: 'validation_failed' });
        expect(response.body.errors).to.have.all.keys('allowed_providers');
        expect(response.body.message).to.match(/^memory is embedded by stub\/embed-1024, .* add one of them to allowed_providers$/);
        expect(response.body.error).to.deep.include({ type: 'invalid_request_error', param: 'allowed_providers' });
      }
      expect(allowed.requests.length + disallowed.requests.length).to.equal(0);
    });

    it('fails a fact submission accepted before the policy changed with the reason, without retrying', async () => {
      await withTransaction(app.db.pool, (db) => submitFactRow(db, { organizationId, workspaceId } as Principal, { content: 'Ik woon in Delft.', user_ref: 'klant-2' }));
      const submission = await waitForSubmission(app, workspaceId, 'klant-2');
      expect(submission.status).to.equal('failed');
      expect(submission.error).to.match(/allowed_providers/);
      expect(await factContents(app, key, { user_ref: 'klant-2' })).to.deep.equal([]);
      expect(allowed.requests.length + disallowed.requests.length).to.equal(0);
    });
  });
});
