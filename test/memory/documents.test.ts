import { expect } from 'chai';
import { chunkText } from '../../src/memory/chunker.js';
import { countTokens } from '../../src/gateway/tokens.js';
import { memoryEmbeddingModel } from '../../src/memory/embedder.js';
import { api, startTestApp, type TestApp } from '../helpers/app.js';
import { createCollection, ingest, prose, settled } from './documentsFixture.js';

describe('memory documents: ingest, fetch, delete', () => {
  let app: TestApp;
  let key: string;
  let slug: string;
  before(async () => {
    app = await startTestApp();
    await app.startWorker();
    key = (await app.key({ org: 'acme', workspace: 'main' })).key;
    slug = await createCollection(app, key, 'Polissen');
  });
  after(async () => {
    await app.close();
  });

  it('answers 201 with a queued document, which the job makes ready with its chunk and token counts', async () => {
    const text = prose(6_000, 'nl');
    const response = await api(app.baseUrl, '/v1/memory/documents', {
      method: 'POST',
      key,
      body: { title: 'Polisvoorwaarden inboedel', text, source: 'https://example.nl/voorwaarden.pdf', collection: slug },
    });
    expect(response.status).to.equal(201);
    // Every field GET shows, as OpenAI's creates answer the whole object (QA: created_at, source and collection were missing).
    expect(response.body.data).to.have.all.keys('id', 'title', 'status', 'chunk_count', 'token_count', 'created_at', 'source', 'collection');
    expect(response.body.data).to.include({
      title: 'Polisvoorwaarden inboedel',
      status: 'queued',
      chunk_count: null,
      token_count: null,
      source: 'https://example.nl/voorwaarden.pdf',
      collection: slug,
    });

    const document = await settled(app, key, response.body.data.id);
    const expected = chunkText(text, { maxTokens: 512, overlapTokens: 64 });
    expect(document).to.deep.include({
      id: response.body.data.id,
      title: 'Polisvoorwaarden inboedel',
      status: 'ready',
      chunk_count: expected.length,
      token_count: countTokens(text),
      source: 'https://example.nl/voorwaarden.pdf',
      collection: slug,
    });
    expect(document).not.to.have.property('error');
    expect(Date.parse(document.created_at)).to.be.closeTo(Date.now(), 60_000);
    expect(document.created_at).to.equal(response.body.data.created_at);
    expect(expected.length).to.be.greaterThan(1);
    const { rows } = await app.db.pool.query(
      'select position, text, token_count from chunks where document_id = $1 order by position',
      [document.id],
    );
    expect(rows.map((r) => r.text)).to.deep.equal(expected.map((c) => c.text));
  });

  it('ingests a 100,000-character document into chunks that all fit the embedding model', async () => {
    const text = prose(100_000, 'en');
    expect(text).to.have.length(100_000);
    const id = await ingest(app, key, { title: 'Big handbook', text, collection: slug });
    const document = await settled(app, key, id, 30_000);
    expect(document.status).to.equal('ready');
    expect(document.token_count).to.equal(countTokens(text));
    // ~20k tokens in chunks of at most 512 that repeat up to 64 and end at paragraph ends: well filled.
    expect(document.chunk_count).to.be.within(Math.ceil(document.token_count / 512), Math.ceil(document.token_count / 300));
    const limit = memoryEmbeddingModel(app.catalog).maxInputTokens;
    const { rows } = await app.db.pool.query('select text, token_count from chunks where document_id = $1', [id]);
    expect(rows).to.have.length(document.chunk_count);
    for (const row of rows) {
      expect(row.token_count).to.be.at.most(512).and.at.most(limit);
      expect(countTokens(row.text)).to.equal(row.token_count);
    }
  });

  it('rejects each invalid field with 422 naming it', async () => {
    const valid = { title: 'T', text: 'Some text.', collection: slug };
    const cases: [string, Record<string, unknown>, string][] = [
      ['title of 256 characters', { ...valid, title: 'x'.repeat(256) }, 'title'],
      ['text of 100,001 characters', { ...valid, text: 'x'.repeat(100_001) }, 'text'],
      ['source of 256 characters', { ...valid, source: 'x'.repeat(256) }, 'source'],
      ['no collection', { title: 'T', text: 'Some text.' }, 'collection'],
      ['a collection the workspace does not have', { ...valid, collection: 'nope' }, 'collection'],
      ['an unknown field', { ...valid, tags: ['a'] }, 'tags'],
      ['no title', { text: 'Some text.', collection: slug }, 'title'],
      ['a number as text', { ...valid, text: 42 }, 'text'],
    ];
    const before = (await app.db.pool.query('select count(*)::int as n from documents')).rows[0].n;
    for (const [what, body, field] of cases) {
      const response = await api(app.baseUrl, '/v1/memory/documents', { method: 'POST', key, body });
      expect(response.status, what).to.equal(422);
      expect(response.body.errors, what).to.have.property(field);
      expect(response.body.message, what).to.be.a('string');
    }
    // Nothing was stored for any of them.
    expect((await app.db.pool.query('select count(*)::int as n from documents')).rows[0].n).to.equal(before);
  });

  it('rejects a blank title or text up front with 422 "must not be blank", as a blank collection name is', async () => {
    // QA: a blank title was stored (201), and a blank text was accepted and failed later.
    const before = (await app.db.pool.query('select count(*)::int as n from documents')).rows[0].n;
    const cases: [Record<string, unknown>, string][] = [
      [{ title: '   ', text: 'Some text.', collection: slug }, 'title'],
      [{ title: 'T', text: '   \n ', collection: slug }, 'text'],
      [{ title: '\t', text: ' \u00a0\r\n', collection: slug }, 'title'],
      // Invisible characters are no text either (zero-width space, byte-order mark, soft hyphen).
      [{ title: 'T', text: '\u200b\ufeff\u00ad ', collection: slug }, 'text'],
    ];
    for (const [body, field] of cases) {
      const response = await api(app.baseUrl, '/v1/memory/documents', { method: 'POST', key, body });
      expect(response.status, JSON.stringify(body)).to.equal(422);
      expect(response.body.errors[field], JSON.stringify(body)).to.deep.equal(['must not be blank']);
    }
    expect((await app.db.pool.query('select count(*)::int as n from documents')).rows[0].n).to.equal(before);
    // Spaces around real text are text.
    await ingest(app, key, { title: '  Met spaties  ', text: '\n  Kort.  \n', collection: slug });
  });

  it('accepts the bounds themselves: title and source of 255 characters, a null source', async () => {
    const id = await ingest(app, key, { title: 't'.repeat(255), text: 'Kort.', source: 's'.repeat(255), collection: slug });
    const other = await ingest(app, key, { title: 'Zonder bron', text: 'Kort.', source: null, collection: slug });
    expect((await settled(app, key, id)).source).to.equal('s'.repeat(255));
    expect((await settled(app, key, other)).source).to.equal(null);
  });

  it('deletes a document with its chunks; then it is a 404', async () => {
    const id = await ingest(app, key, { title: 'Weg ermee', text: prose(3_000), collection: slug });
    expect((await settled(app, key, id)).status).to.equal('ready');
    const deleted = await api(app.baseUrl, `/v1/memory/documents/${id}`, { method: 'DELETE', key });
    expect(deleted.status).to.equal(200);
    expect(deleted.body).to.deep.equal({ deleted: true });
    expect((await api(app.baseUrl, `/v1/memory/documents/${id}`, { key })).status).to.equal(404);
    expect((await api(app.baseUrl, `/v1/memory/documents/${id}`, { method: 'DELETE', key })).status).to.equal(404);
    const chunks = await app.db.pool.query('select count(*)::int as n from chunks where document_id = $1', [id]);
    expect(chunks.rows[0].n).to.equal(0);
  });

  it("answers 404 for another workspace's document and never lists it; 404 for a malformed id", async () => {
    const id = await ingest(app, key, { title: 'Alleen van main', text: prose(2_000), collection: slug });
    await settled(app, key, id);
    const sameOrg = (await app.key({ org: 'acme', workspace: 'other' })).key;
    const otherOrg = (await app.key({ org: 'elsewhere', workspace: 'main' })).key;
    for (const stranger of [sameOrg, otherOrg]) {
      const fetched = await api(app.baseUrl, `/v1/memory/documents/${id}`, { key: stranger });
      expect(fetched.status).to.equal(404);
      expect(fetched.body.message).to.be.a('string').and.not.contain('workspace');
      expect((await api(app.baseUrl, `/v1/memory/documents/${id}`, { method: 'DELETE', key: stranger })).status).to.equal(404);
      const listed = await api(app.baseUrl, '/v1/memory/documents?limit=100', { key: stranger });
      expect(listed.status).to.equal(200);
      expect(listed.body.data).to.deep.equal([]);
      // Its collection is not theirs either.
      const filtered = await api(app.baseUrl, `/v1/memory/documents?collection=${slug}`, { key: stranger });
      expect(filtered.status).to.equal(422);
    }
    // Still there for its owner.
    expect((await api(app.baseUrl, `/v1/memory/documents/${id}`, { key })).status).to.equal(200);
    for (const malformed of ['not-a-uuid', '123', `${id}x`]) {
      expect((await api(app.baseUrl, `/v1/memory/documents/${malformed}`, { key })).status, malformed).to.equal(404);
      expect((await api(app.baseUrl, `/v1/memory/documents/${malformed}`, { method: 'DELETE', key })).status).to.equal(404);
    }
  });

  it('needs memory.read to read and memory.write to ingest or delete', async () => {
    const reader = (await app.key({ org: 'acme', workspace: 'main', kind: 'restricted', scopes: ['memory.read'] })).key;
    const id = await ingest(app, key, { title: 'Scopes', text: 'Kort.', collection: slug });
    expect((await api(app.baseUrl, `/v1/memory/documents/${id}`, { key: reader })).status).to.equal(200);
    const post = await api(app.baseUrl, '/v1/memory/documents', {
      method: 'POST',
      key: reader,
      body: { title: 'T', text: 'x', collection: slug },
    });
    expect(post.status).to.equal(403);
    expect(post.body.code).to.equal('insufficient_scope');
    expect((await api(app.baseUrl, `/v1/memory/documents/${id}`, { method: 'DELETE', key: reader })).status).to.equal(403);
    const none = (await app.key({ org: 'acme', workspace: 'main', kind: 'restricted', scopes: ['chat.create'] })).key;
    expect((await api(app.baseUrl, '/v1/memory/documents', { key: none })).status).to.equal(403);
  });
});

describe('GET /v1/memory/documents (listing)', () => {
  // No worker here: the documents stay queued, which is all a listing needs.
  let app: TestApp;
  let key: string;
  let ids: string[];
  let polissen: string;
  let handboek: string;
  let workspaceId: string;
  before(async () => {
    app = await startTestApp();
    const created = await app.key({ org: 'acme', workspace: 'lists' });
    key = created.key;
    workspaceId = created.workspace_id;
    polissen = await createCollection(app, key, 'Polissen');
    handboek = await createCollection(app, key, 'Handboek');
    ids = [];
    for (let i = 0; i < 45; i += 1) {
      ids.push(await ingest(app, key, { title: `Document ${i}`, text: `Tekst ${i}.`, collection: i % 3 === 0 ? handboek : polissen }));
    }
  });
  after(async () => {
    await app.close();
  });

  async function allPages(query: string, limit: number): Promise<{ pages: any[][]; cursors: (string | null)[] }> {
    const pages: any[][] = [];
    const cursors: (string | null)[] = [];
    let cursor: string | null = null;
    do {
      const response = await api(
        app.baseUrl,
        `/v1/memory/documents?limit=${limit}${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        { key },
      );
      expect(response.status, response.text).to.equal(200);
      pages.push(response.body.data);
      cursor = response.body.next_cursor;
      cursors.push(cursor);
      expect(pages.length).to.be.below(10);
    } while (cursor !== null);
    return { pages, cursors };
  }

  it('pages through 45 documents 20 at a time: 3 pages, newest first, no duplicates, no gaps', async () => {
    const { pages, cursors } = await allPages('', 20);
    expect(pages.map((p) => p.length)).to.deep.equal([20, 20, 5]);
    expect(cursors[0]).to.be.a('string');
    expect(cursors[1]).to.be.a('string');
    expect(cursors[2]).to.equal(null);
    const listed = pages.flat().map((d) => d.id);
    expect(listed).to.deep.equal([...ids].reverse());
    const item = pages[0]![0];
    expect(item).to.include({ title: 'Document 44', status: 'queued', chunk_count: null, token_count: null });
    expect(item).to.include.keys('id', 'created_at', 'collection', 'source');
  });

  it('filters by collection, with the same paging', async () => {
    const { pages } = await allPages(`&collection=${polissen}`, 20);
    expect(pages.map((p) => p.length)).to.deep.equal([20, 10]);
    const expected = ids.filter((_, i) => i % 3 !== 0).reverse();
    expect(pages.flat().map((d) => d.id)).to.deep.equal(expected);
    expect(pages.flat().every((d) => d.collection === polissen)).to.equal(true);
    const small = await allPages(`&collection=${handboek}`, 100);
    expect(small.pages.map((p) => p.length)).to.deep.equal([15]);
  });

  it('defaults to 20 per page', async () => {
    const response = await api(app.baseUrl, '/v1/memory/documents', { key });
    expect(response.body.data).to.have.length(20);
    expect(response.body.next_cursor).to.be.a('string');
  });

  it('rejects a bad limit, a forged cursor or an unknown collection with 422', async () => {
    for (const query of ['limit=0', 'limit=101', 'limit=abc']) {
      const response = await api(app.baseUrl, `/v1/memory/documents?${query}`, { key });
      expect(response.status, query).to.equal(422);
      expect(response.body.errors).to.have.property('limit');
    }
    const forged = await api(app.baseUrl, `/v1/memory/documents?cursor=${Buffer.from('{"us":"1"}').toString('base64url')}`, { key });
    expect(forged.status).to.equal(422);
    expect(forged.body.errors).to.have.property('cursor');
    const unknown = await api(app.baseUrl, '/v1/memory/documents?collection=nope', { key });
    expect(unknown.status).to.equal(422);
    expect(unknown.body.errors).to.have.property('collection');
  });

  it('is free: listing writes no usage', async () => {
    await allPages('', 7);
    const usage = await app.db.pool.query('select count(*)::int as n from usage where workspace_id = $1', [workspaceId]);
    expect(usage.rows[0].n).to.equal(0);
  });
});
