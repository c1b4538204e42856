import { expect } from 'chai';
import { loadCatalog } from '../../src/gateway/catalog.js';
import { startJobRunner, type JobRunner } from '../../src/jobs/runner.js';
import { queueReembedding } from '../../src/memory/reembed.js';
import { searchChunks } from '../../src/memory/search.js';
import { api, startTestApp, type TestApp } from '../helpers/app.js';
import { SERVICES, embeddingModel1024, loadTestCatalog, writeTestCatalog, LOCAL_EMBED_MODEL } from '../helpers/catalog.js';
import { waitFor } from '../helpers/db.js';
import { startStubProvider, stubEmbedding, type StubProvider } from '../helpers/stubProvider.js';
import { createCollection, ingest, settled } from './documentsFixture.js';
import { factContents, submitFact, waitForFacts } from './factsFixture.js';

// A team starts offline (the built-in local/embed-1024 embeds its memory), then sets a hosted EU
// model's key: the worker started with it embeds everything stored before again, so that it is
// found by meaning, not by its words alone. Workspaces whose policy leaves no provider of the new
// model keep theirs as it is. The switch is the operator's: nothing is billed for it.
describe('memory embedded again after the memory model changed', function () {
  this.timeout(60_000);
  let app: TestApp;
  let hosted: StubProvider;
  let offlineWorker: JobRunner | undefined;
  let key: string;
  let workspaceId: string;
  let fenced: { key: string; workspaceId: string };
  const TEXT = 'De inboedelverzekering dekt stormschade aan meubels tot 5000 euro per gebeurtenis.';
  const FACT = 'Mijn hond heet Bram.';

  before(async () => {
    hosted = await startStubProvider({ dimensions: 1024 });
    // The web and the new worker: a hosted EU model of 1024 dimensions is the memory model.
    const withHosted = loadTestCatalog(`
providers:
  - {id: eu-hosted, region: eu, kind: openai, base_url: "${hosted.url}", api_key: "\${STUB_KEY}", timeout_ms: 10000}
  - {id: local, region: eu, kind: local}
models:
${embeddingModel1024('stub/embed-1024', [['eu-hosted', 'embed-hosted']])}
${LOCAL_EMBED_MODEL}
aliases: {}
${SERVICES}
`).catalog;
    // The worker that ran before the key was set: the built-in model alone.
    const offline = loadCatalog({ file: writeTestCatalog(`providers: []\nmodels:\n${LOCAL_EMBED_MODEL}\naliases: {}\n${SERVICES}\n`), env: {} });
    app = await startTestApp({ catalog: withHosted });
    offlineWorker = await startJobRunner({
      services: { db: app.db.pool, catalog: offline, adapters: app.adapters, replayRetentionHours: 24 },
      log: app.log,
      concurrency: 2,
      pollInterval: 50,
    });
    const created = await app.key({ org: 'acme', workspace: 'main' });
    key = created.key;
    workspaceId = created.workspace_id;
    const other = await app.key({ org: 'fenced', workspace: 'main' });
    fenced = { key: other.key, workspaceId: other.workspace_id };
    for (const { key: k } of [created, other]) {
      const collection = await createCollection(app, k, 'Polissen');
      expect((await settled(app, k, await ingest(app, k, { title: 'Inboedel', collection, text: TEXT }))).status).to.equal('ready');
      await submitFact(app, k, { content: FACT, user_ref: 'klant-1' });
      await waitForFacts(app, k, { user_ref: 'klant-1' }, (contents) => contents.length === 1);
    }
    await offlineWorker.stop();
    offlineWorker = undefined;
    // The fenced workspace allows the built-in provider only: the hosted model may not embed its memory.
    const policy = await api(app.baseUrl, '/v1/settings/router', { method: 'PUT', key: fenced.key, body: { allowed_providers: ['local'] } });
    expect(policy.status, policy.text).to.equal(200);
  });
  after(async () => {
    await offlineWorker?.stop();
    await app.close();
    await hosted.close();
  });

  const modelsOf = async (table: 'chunks' | 'facts', workspace: string) =>
    (await app.db.pool.query<{ model: string }>(`select distinct model from ${table} where workspace_id = $1`, [workspace])).rows.map((r) => r.model);
  const nearest = (workspace: string) =>
    searchChunks(app.db.pool, {
      workspaceId: workspace,
      model: 'stub/embed-1024',
      embedding: stubEmbedding(TEXT, 1024),
      query: 'xyzzy',
      limit: 5,
      collectionIds: null,
    });

  it('embeds the chunks and facts of before with the memory model of now, unbilled, and leaves a fenced workspace as it was', async () => {
    expect(await modelsOf('chunks', workspaceId)).to.deep.equal(['local/embed-1024']);
    expect(await modelsOf('facts', workspaceId)).to.deep.equal(['local/embed-1024']);
    // Before: the hosted model's vector of the very text finds nothing.
    expect((await nearest(workspaceId)).byVector).to.have.length(0);
    const usageBefore = (await app.db.pool.query('select count(*)::int as n from usage')).rows[0].n;

    await app.startWorker();
    await queueReembedding(app.db.pool);
    await waitFor(async () => (await modelsOf('chunks', workspaceId)).join() === 'stub/embed-1024' && (await modelsOf('facts', workspaceId)).join() === 'stub/embed-1024', {
      what: 'the memory embedded again',
      timeoutMs: 20_000,
    });

    const hits = (await nearest(workspaceId)).byVector;
    expect(hits.map((hit) => hit.text)).to.deep.equal([TEXT]);
    expect(hits[0]!.score).to.be.closeTo(1, 1e-3);
    const sent = hosted.requests.filter((r) => r.path.endsWith('/embeddings')).flatMap((r) => r.body.input as string[]);
    // Each as it may leave: masked by the workspace's firewall (the dog's name reads as a person's).
    expect(sent).to.include.members([TEXT, FACT.replace('Bram', '[PERSON_1]')]);
    // The fact is still the end-user's, and still found.
    expect(await factContents(app, key, { user_ref: 'klant-1' })).to.deep.equal([FACT]);
    // The fenced workspace: not sent, kept as it was (found by its words).
    expect(await modelsOf('chunks', fenced.workspaceId)).to.deep.equal(['local/embed-1024']);
    expect(await modelsOf('facts', fenced.workspaceId)).to.deep.equal(['local/embed-1024']);
    expect(sent.filter((text) => text === TEXT)).to.have.length(1);
    const usageAfter = (await app.db.pool.query('select count(*)::int as n from usage')).rows[0].n;
    expect(usageAfter).to.equal(usageBefore);
  });

  it('finds nothing to do when run again', async () => {
    const calls = hosted.requests.length;
    await queueReembedding(app.db.pool);
    await waitFor(async () => (await app.db.pool.query("select count(*)::int as n from graphile_worker.jobs where task_identifier = 'memory__reembed'")).rows[0].n === 0, {
      what: 'the job done',
    });
    expect(hosted.requests.length).to.equal(calls);
  });
});
