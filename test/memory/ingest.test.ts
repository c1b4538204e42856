import { expect } from 'chai';
import { loadCatalog, type Catalog } from '../../src/gateway/catalog.js';
import { addJob } from '../../src/jobs/registry.js';
import { ingestJobKey } from '../../src/memory/documents.js';
import { api, startTestApp, type TestApp } from '../helpers/app.js';
import { waitFor } from '../helpers/db.js';
import type { StubProvider } from '../helpers/stubProvider.js';
import { createCollection, ingest, prose, settled, startSlowEmbeddingCatalog } from './documentsFixture.js';

describe('tasks/memory__ingest_document', () => {
  let app: TestApp;
  let key: string;
  let workspaceId: string;
  let slug: string;
  before(async () => {
    app = await startTestApp();
    await app.startWorker();
    const created = await app.key({ org: 'acme', workspace: 'main' });
    key = created.key;
    workspaceId = created.workspace_id;
    slug = await createCollection(app, key, 'Handboek');
  });
  after(async () => {
    await app.close();
  });

  const chunkRows = async (id: string) =>
    (await app.db.pool.query('select position, token_count, model, ts_config::text from chunks where document_id = $1 order by position', [id]))
      .rows;

  it('bills one ingest usage row: embedded tokens at the model price plus a fee per chunk', async () => {
    const id = await ingest(app, key, { title: 'Billed', text: prose(8_000, 'de'), collection: slug });
    const document = await settled(app, key, id);
    expect(document.status).to.equal('ready');
    const chunks = await chunkRows(id);
    expect(chunks).to.have.length(document.chunk_count);
    expect(chunks.every((c) => c.model === 'local/embed-1024' && c.ts_config === 'german')).to.equal(true);
    const embedded = chunks.reduce((sum, c) => sum + c.token_count, 0);

    const { rows } = await app.db.pool.query('select * from usage where workspace_id = $1 and request_id = $2', [
      workspaceId,
      `ingest:${id}`,
    ]);
    expect(rows).to.have.length(1);
    const usage = rows[0];
    const model = app.catalog.models.get('local/embed-1024')!;
    const base = Math.round(((embedded * model.pricing.prompt) / 1000) * 1e8) / 1e8;
    const services = Math.round(document.chunk_count * app.catalog.services.ingestPerChunk * 1e8) / 1e8;
    expect(usage).to.include({ kind: 'ingest', model: 'local/embed-1024', prompt_tokens: embedded, completion_tokens: 0 });
    expect(Number(usage.credits_base)).to.be.closeTo(base, 1e-8);
    expect(Number(usage.credits_services)).to.be.closeTo(services, 1e-8);
    expect(Number(usage.credits_total)).to.be.closeTo(base + services, 1e-8);
    expect(services).to.be.greaterThan(0);
  });

  it('a retried job replaces the chunks instead of adding to them, and bills once', async () => {
    const id = await ingest(app, key, { title: 'Retried', text: prose(7_000, 'fr'), collection: slug });
    const first = await settled(app, key, id);
    expect(first.status).to.equal('ready');
    const before = await chunkRows(id);
    // As if the worker died after its commit but before graphile-worker recorded the job done,
    // and the job ran again from the start: the document is processing again.
    await app.db.pool.query(`update documents set status = 'processing' where id = $1`, [id]);
    await addJob(app.db.pool, 'memory__ingest_document', { document_id: id, workspace_id: workspaceId }, { jobKey: ingestJobKey(id) });
    const again = await settled(app, key, id);
    expect(again).to.deep.include({ status: 'ready', chunk_count: first.chunk_count, token_count: first.token_count });
    const after = await chunkRows(id);
    expect(after.map((c) => c.position)).to.deep.equal(before.map((c) => c.position));
    const usage = await app.db.pool.query('select count(*)::int as n from usage where request_id = $1', [`ingest:${id}`]);
    expect(usage.rows[0].n).to.equal(1);
  });

  it('a job for a document that is already ready does nothing', async () => {
    const id = await ingest(app, key, { title: 'Done', text: prose(2_000), collection: slug });
    await settled(app, key, id);
    const ids = (await app.db.pool.query('select id from chunks where document_id = $1 order by id', [id])).rows;
    await addJob(app.db.pool, 'memory__ingest_document', { document_id: id, workspace_id: workspaceId });
    await waitFor(async () => (await app.db.pool.query(`select count(*)::int as n from graphile_worker.jobs where task_identifier = 'memory__ingest_document'`)).rows[0].n === 0, {
      what: 'the job to run',
    });
    // The same chunk rows (same ids), not a new set.
    expect((await app.db.pool.query('select id from chunks where document_id = $1 order by id', [id])).rows).to.deep.equal(ids);
  });

  describe('while its embedding is under way', () => {
    // Its own app, whose memory embedding model answers when the test lets it.
    let slowApp: TestApp;
    let embedder: StubProvider;
    let slowKey: string;
    let slowSlug: string;
    before(async () => {
      const slow = await startSlowEmbeddingCatalog();
      embedder = slow.stub;
      slowApp = await startTestApp({ catalog: slow.catalog });
      await slowApp.startWorker();
      slowKey = (await slowApp.key()).key;
      slowSlug = await createCollection(slowApp, slowKey, 'Handboek');
    });
    after(async () => {
      await slowApp.close();
      await embedder.close();
    });

    it('a document deleted while it is being ingested is not brought back, nor billed', async () => {
      embedder.script({ type: 'answer', delayMs: 1500 });
      const id = await ingest(slowApp, slowKey, { title: 'Deleted midway', text: prose(5_000), collection: slowSlug });
      await waitFor(
        async () => (await api(slowApp.baseUrl, `/v1/memory/documents/${id}`, { key: slowKey })).body.data.status === 'processing',
        { what: 'the ingest to start' },
      );
      const deleted = await api(slowApp.baseUrl, `/v1/memory/documents/${id}`, { method: 'DELETE', key: slowKey });
      expect(deleted.body).to.deep.equal({ deleted: true });
      await waitFor(
        async () =>
          (await slowApp.db.pool.query(`select count(*)::int as n from graphile_worker.jobs where key = $1`, [ingestJobKey(id)])).rows[0].n === 0,
        { what: 'the ingest job to end' },
      );
      expect(embedder.requests).to.have.length.of.at.least(1);
      expect((await api(slowApp.baseUrl, `/v1/memory/documents/${id}`, { key: slowKey })).status).to.equal(404);
      const chunks = await slowApp.db.pool.query('select count(*)::int as n from chunks where document_id = $1', [id]);
      expect(chunks.rows[0].n).to.equal(0);
      const usage = await slowApp.db.pool.query('select count(*)::int as n from usage where request_id = $1', [`ingest:${id}`]);
      expect(usage.rows[0].n).to.equal(0);
    });

    it('shows what a failed attempt met while its retry waits, and no error once the retry made it ready', async () => {
      // QA: a document being retried showed `queued` and nothing else for minutes.
      embedder.reset();
      embedder.script({ type: 'status', status: 503, message: 'overloaded' });
      const id = await ingest(slowApp, slowKey, { title: 'Retried', text: prose(1_000), collection: slowSlug });
      const waiting = await waitFor(
        async () => {
          const { data } = (await api(slowApp.baseUrl, `/v1/memory/documents/${id}`, { key: slowKey })).body;
          return data.status === 'queued' && data.error ? data : undefined;
        },
        { what: 'the document queued for a retry, with its error' },
      );
      // Eight attempts over about half an hour: an outage of a few minutes fails no document (QA).
      expect(waiting.error).to.match(/^attempt 1 of 8 failed, retrying: embedding for memory failed/);
      const document = await settled(slowApp, slowKey, id);
      expect(document.status).to.equal('ready');
      expect(document).not.to.have.property('error');
    });

    it('fails a document the embedding provider rejects as invalid (400) on the first attempt: a retry would send the text again for the same answer', async () => {
      embedder.reset();
      embedder.script({ type: 'status', status: 400, message: 'bad input' });
      const id = await ingest(slowApp, slowKey, { title: 'Rejected', text: prose(1_000), collection: slowSlug });
      const document = await settled(slowApp, slowKey, id);
      expect(document.status).to.equal('failed');
      expect(document.error).to.match(/bad input/);
      expect(embedder.requests).to.have.length(1);
    });
  });

  it('refuses a document of only whitespace up front (422), rather than accepting it to fail: there is nothing to index', async () => {
    const response = await api(app.baseUrl, '/v1/memory/documents', {
      method: 'POST',
      key,
      body: { title: 'Leeg', text: ' \n\n\t ', collection: slug },
    });
    expect(response.status).to.equal(422);
    expect(response.body.errors).to.deep.equal({ text: ['must not be blank'] });
  });

  it('indexes each document in the text-search configuration of its language, simple when unsure', async () => {
    const cases: [string, string][] = [
      [prose(1_500, 'nl'), 'dutch'],
      [prose(1_500, 'en'), 'english'],
      [prose(1_500, 'fr'), 'french'],
      [prose(1_500, 'de'), 'german'],
      // Short, and taken for French by tinyld alone.
      ['Die Kündigung der Kfz-Versicherung ist jeweils zum Ablauf des Versicherungsjahres möglich.', 'german'],
      ['La póliza cubre los daños a su vivienda causados por incendio y tormenta.', 'simple'],
      ['X-42 / 7.', 'simple'],
    ];
    for (const [text, config] of cases) {
      const id = await ingest(app, key, { title: config, text, collection: slug });
      expect((await settled(app, key, id)).status).to.equal('ready');
      const chunks = await chunkRows(id);
      expect(chunks.length).to.be.greaterThan(0);
      expect(chunks.every((c) => c.ts_config === config), config).to.equal(true);
    }
  });
});

describe('tasks/memory__ingest_document when ingest cannot succeed', () => {
  let app: TestApp;
  let key: string;
  before(async () => {
    // Every provider switched off: the catalogue has no EU embedding model left for memory.
    const full = loadCatalog();
    const providers = new Map([...full.providers].map(([id, p]) => [id, { ...p, available: false }]));
    const catalog: Catalog = { ...full, providers };
    app = await startTestApp({ catalog });
    await app.startWorker();
    key = (await app.key()).key;
  });
  after(async () => {
    await app.close();
  });

  it('marks the document failed with a short reason, no stack, no chunks, no bill', async () => {
    const slug = await createCollection(app, key, 'Nergens');
    const id = await ingest(app, key, { title: 'Kan niet', text: prose(2_000), collection: slug });
    const document = await settled(app, key, id);
    expect(document).to.include({ status: 'failed', chunk_count: null, token_count: null });
    expect(document.error).to.be.a('string').and.match(/embedding model/);
    expect(document.error).not.to.match(/\n|\bat \S+ \(/);
    expect(document.error.length).to.be.at.most(300);
    const chunks = await app.db.pool.query('select count(*)::int as n from chunks where document_id = $1', [id]);
    expect(chunks.rows[0].n).to.equal(0);
    const usage = await app.db.pool.query('select count(*)::int as n from usage');
    expect(usage.rows[0].n).to.equal(0);
  });
});
