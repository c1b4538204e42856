import { expect } from 'chai';
import { countTokens } from '../../src/gateway/tokens.js';
import { ingestDocument } from '../../src/memory/ingest.js';
import { api, startTestApp, type TestApp } from '../helpers/app.js';
import { createCollection, ingest, prose, settled } from './documentsFixture.js';

const SIZE = 100_000;
const repeated = (piece: string, length = SIZE) => piece.repeat(Math.ceil(length / piece.length)).slice(0, length);

// Documents shaped to make an ingest job slow, uploaded through the API and ingested by a real
// worker: each must end (ready, or failed with a reason) within 10 s of its upload. A job that
// held its worker for minutes delayed every tenant's jobs, and past the liveness window ran twice.
describe('memory documents of hostile shapes', function () {
  this.timeout(60_000);
  let app: TestApp;
  let key: string;
  let slug: string;
  before(async () => {
    app = await startTestApp();
    await app.startWorker();
    key = (await app.key({ org: 'acme', workspace: 'main' })).key;
    slug = await createCollection(app, key, 'Vijandig');
  });
  after(async () => {
    await app.close();
  });

  const shapes: Record<string, string> = {
    'a run of full stops': repeated('.'),
    'a run of mixed punctuation': repeated('!?…'),
    'one giant word': repeated('a'),
    'a sentence and a run of trailing whitespace': `End.${repeated('\t ', SIZE - 4)}`,
    'a word and a run of line ends and spaces': `word${repeated('\n ', SIZE - 5)}y`,
    'only line ends': repeated('\n'),
    'mixed punctuation, line ends and quotes': repeated('a.\n \n!? ”'),
  };
  for (const [shape, text] of Object.entries(shapes)) {
    it(`ends an ingest of ${shape} within 10 s`, async () => {
      expect(text).to.have.length(SIZE);
      if (text.trim() === '') {
        // Nothing to index: refused up front.
        const refused = await api(app.baseUrl, '/v1/memory/documents', { method: 'POST', key, body: { title: shape, text, collection: slug } });
        expect(refused.status).to.equal(422);
        expect(refused.body.errors).to.deep.equal({ text: ['must not be blank'] });
        return;
      }
      const uploaded = Date.now();
      const id = await ingest(app, key, { title: shape, text, collection: slug });
      const document = await settled(app, key, id, 10_000);
      expect(Date.now() - uploaded).to.be.below(10_000);
      expect(document.status, document.error).to.equal('ready');
      const { rows } = await app.db.pool.query<{ text: string; token_count: number }>(
        'select text, token_count from chunks where document_id = $1',
        [id],
      );
      expect(rows).to.have.length(document.chunk_count).and.length.greaterThan(0);
      for (const row of rows) expect(row.token_count).to.be.at.most(512).and.equal(countTokens(row.text));
    });
  }
});

// The bounds themselves, with limits small enough to reach: a document that passes one fails at
// once (no retry would do better), with a reason the caller can act on, and nothing is stored.
describe('memory ingest limits', () => {
  let app: TestApp;
  let key: string;
  let workspaceId: string;
  let slug: string;
  before(async () => {
    // No worker: the test runs the job's function itself, with its own limits.
    app = await startTestApp();
    const created = await app.key({ org: 'acme', workspace: 'main' });
    key = created.key;
    workspaceId = created.workspace_id;
    slug = await createCollection(app, key, 'Begrensd');
  });
  after(async () => {
    await app.close();
  });

  const run = (documentId: string, limits: { chunkingMs: number; maxChunks: number }) =>
    ingestDocument(
      { db: app.db.pool, catalog: app.catalog, adapters: app.adapters, log: app.log },
      { documentId, workspaceId, attempt: 1, maxAttempts: 5 },
      limits,
    );

  it('fails a document that makes more chunks than allowed, on its first attempt, storing and billing nothing', async () => {
    const id = await ingest(app, key, { title: 'Te lang', text: prose(20_000, 'nl'), collection: slug });
    await run(id, { chunkingMs: 5_000, maxChunks: 3 });
    const document = (await api(app.baseUrl, `/v1/memory/documents/${id}`, { key })).body.data;
    expect(document).to.include({
      status: 'failed',
      error: 'the document makes more than 3 chunks, the limit per document; split it into smaller documents',
      chunk_count: null,
    });
    const counts = await app.db.pool.query<{ chunks: number; usage: number }>(
      `select (select count(*)::int from chunks where document_id = $1) as chunks,
              (select count(*)::int from usage where workspace_id = $2) as usage`,
      [id, workspaceId],
    );
    expect(counts.rows[0]).to.deep.equal({ chunks: 0, usage: 0 });
  });

  it('fails a document whose chunking outlasts its time budget', async () => {
    const id = await ingest(app, key, { title: 'Te traag', text: prose(100_000, 'en'), collection: slug });
    await run(id, { chunkingMs: 0, maxChunks: 1_000 });
    const document = (await api(app.baseUrl, `/v1/memory/documents/${id}`, { key })).body.data;
    expect(document).to.include({
      status: 'failed',
      error: 'the document took more than 0 s to cut into chunks; split it into smaller documents',
    });
  });

  it('makes the same document ready within the default limits', async () => {
    const id = await ingest(app, key, { title: 'Gewoon', text: prose(20_000, 'nl'), collection: slug });
    await ingestDocument(
      { db: app.db.pool, catalog: app.catalog, adapters: app.adapters, log: app.log },
      { documentId: id, workspaceId, attempt: 1, maxAttempts: 5 },
    );
    expect((await settled(app, key, id)).status).to.equal('ready');
  });
});
