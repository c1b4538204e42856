import { expect } from 'chai';
import { slugify } from '../../src/memory/collections.js';
import { api, startTestApp, type TestApp } from '../helpers/app.js';
import { createCollection, ingest, prose, settled } from './documentsFixture.js';

describe('slugify', () => {
  it('lowercases, folds accents and keeps a-z0-9 joined by single hyphens', () => {
    expect(slugify('Polissen')).to.equal('polissen');
    expect(slugify('  Polissen & Voorwaarden 2024! ')).to.equal('polissen-voorwaarden-2024');
    expect(slugify('Crème Brûlée')).to.equal('creme-brulee');
    expect(slugify('Straße über Æsir Œuvre')).to.equal('strasse-uber-aesir-oeuvre');
    expect(slugify('één--twee__drie')).to.equal('een-twee-drie');
    expect(slugify('Ölpreis/Été')).to.equal('olpreis-ete');
  });

  it('gives a name without any letter or digit a usable slug, and bounds the length', () => {
    expect(slugify('!!!')).to.equal('collection');
    expect(slugify('日本語')).to.equal('collection');
    const long = slugify('a'.repeat(300));
    expect(long.length).to.be.at.most(247);
    expect(long).to.match(/^[a-z0-9-]+$/);
  });
});

describe('memory collections', () => {
  let app: TestApp;
  let key: string;
  let otherKey: string;
  before(async () => {
    app = await startTestApp();
    await app.startWorker();
    key = (await app.key({ org: 'acme', workspace: 'main' })).key;
    otherKey = (await app.key({ org: 'acme', workspace: 'other' })).key;
  });
  after(async () => {
    await app.close();
  });

  const create = (name: unknown, k = key) => api(app.baseUrl, '/v1/recall/collections', { method: 'POST', key: k, body: { name } });

  it('creates a collection with a slug from its name (201), and -2, -3 … when the slug is taken', async () => {
    const first = await create('Polissen');
    expect(first.status).to.equal(201);
    expect(first.body).to.deep.equal({ data: { slug: 'polissen', name: 'Polissen', documents_count: 0 } });
    expect((await create('polissen')).body.data.slug).to.equal('polissen-2');
    expect((await create('POLISSEN!')).body.data.slug).to.equal('polissen-3');
    expect((await create('Crème brûlée')).body.data).to.deep.equal({ slug: 'creme-brulee', name: 'Crème brûlée', documents_count: 0 });
    // Slugs are per workspace: another workspace has its own "polissen".
    expect((await create('Polissen', otherKey)).body.data.slug).to.equal('polissen');
  });

  it('hands out distinct slugs to concurrent creates of one name', async () => {
    const responses = await Promise.all(Array.from({ length: 6 }, () => create('Gelijktijdig')));
    expect(responses.map((r) => r.status)).to.deep.equal(Array(6).fill(201));
    const slugs = responses.map((r) => r.body.data.slug).sort();
    expect(slugs).to.deep.equal(['gelijktijdig', 'gelijktijdig-2', 'gelijktijdig-3', 'gelijktijdig-4', 'gelijktijdig-5', 'gelijktijdig-6']);
  });

  it('lists the workspace collections with their document counts, never another workspace', async () => {
    const slug = await createCollection(app, key, 'Geteld');
    await ingest(app, key, { title: 'A', text: 'Een.', collection: slug });
    await ingest(app, key, { title: 'B', text: 'Twee.', collection: slug });
    const response = await api(app.baseUrl, '/v1/recall/collections', { key });
    expect(response.status).to.equal(200);
    const counted = response.body.data.find((c: any) => c.slug === 'geteld');
    expect(counted).to.deep.equal({ slug: 'geteld', name: 'Geteld', documents_count: 2 });
    expect(response.body.data.map((c: any) => c.slug)).to.include.members(['polissen', 'polissen-2', 'polissen-3']);
    const other = await api(app.baseUrl, '/v1/recall/collections', { key: otherKey });
    expect(other.body.data.map((c: any) => c.slug)).to.deep.equal(['polissen']);
  });

  it('deletes a collection with its documents and their chunks', async () => {
    const slug = await createCollection(app, key, 'Tijdelijk');
    const keep = await createCollection(app, key, 'Blijft');
    const ids = [
      await ingest(app, key, { title: 'Een', text: prose(4_000), collection: slug }),
      await ingest(app, key, { title: 'Twee', text: prose(4_000, 'en'), collection: slug }),
    ];
    const kept = await ingest(app, key, { title: 'Drie', text: prose(4_000), collection: keep });
    for (const id of [...ids, kept]) expect((await settled(app, key, id)).status).to.equal('ready');
    const chunksOf = async (docs: string[]) =>
      (await app.db.pool.query('select count(*)::int as n from chunks where document_id = any($1::uuid[])', [docs])).rows[0].n;
    expect(await chunksOf(ids)).to.be.greaterThan(0);

    // Another workspace cannot delete it, and does not learn that it exists.
    const foreign = await api(app.baseUrl, `/v1/recall/collections/${slug}`, { method: 'DELETE', key: otherKey });
    expect(foreign.status).to.equal(404);

    const deleted = await api(app.baseUrl, `/v1/recall/collections/${slug}`, { method: 'DELETE', key });
    expect(deleted.status).to.equal(200);
    expect(deleted.body).to.deep.equal({ deleted: true });
    for (const id of ids) expect((await api(app.baseUrl, `/v1/memory/documents/${id}`, { key })).status).to.equal(404);
    expect(await chunksOf(ids)).to.equal(0);
    // The other collection is untouched.
    expect((await api(app.baseUrl, `/v1/memory/documents/${kept}`, { key })).body.data.status).to.equal('ready');
    expect(await chunksOf([kept])).to.be.greaterThan(0);
    const listed = await api(app.baseUrl, '/v1/recall/collections', { key });
    expect(listed.body.data.map((c: any) => c.slug)).not.to.include(slug);
    const again = await api(app.baseUrl, `/v1/recall/collections/${slug}`, { method: 'DELETE', key });
    expect(again.status).to.equal(404);
    expect(again.body.message).to.be.a('string');
  });

  it('answers uploads racing a delete of their collection with 201 (then deleted with it) or 422, never 500', async () => {
    // QA: parallel uploads while the collection is deleted answered 500 (documents_collection_id_fkey).
    const statuses = new Map<number, number>();
    for (let round = 0; round < 8; round += 1) {
      const slug = await createCollection(app, key, `Racer ${round}`);
      const uploads = Array.from({ length: 20 }, () =>
        api(app.baseUrl, '/v1/memory/documents', { method: 'POST', key, body: { title: 'r', text: 'race text here', collection: slug } }),
      );
      const deletion = api(app.baseUrl, `/v1/recall/collections/${slug}`, { method: 'DELETE', key });
      const responses = await Promise.all(uploads);
      expect((await deletion).status).to.equal(200);
      for (const response of responses) {
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
        expect(response.status, response.text).to.be.oneOf([201, 422]);
        if (response.status === 422) {
          expect(response.body.errors).to.deep.equal({ collection: ['is not a collection of this workspace'] });
        } else {
          // Accepted before the delete: it went with its collection.
          const fetched = await api(app.baseUrl, `/v1/memory/documents/${response.body.data.id}`, { key });
          expect(fetched.status).to.equal(404);
        }
      }
      expect((await api(app.baseUrl, `/v1/memory/documents?collection=${slug}`, { key })).status).to.equal(422);
    }
    // Both outcomes happen, or the race was not run.
    expect(statuses.get(201), JSON.stringify([...statuses])).to.be.greaterThan(0);
    expect(statuses.get(422), JSON.stringify([...statuses])).to.be.greaterThan(0);
  });

  it('rejects a missing, empty, blank, too long or non-string name, or an unknown field, with 422', async () => {
    const cases: [unknown, string][] = [
      [{}, 'name'],
      [{ name: '' }, 'name'],
      [{ name: ' \t ' }, 'name'],
      [{ name: 'x'.repeat(256) }, 'name'],
      [{ name: 7 }, 'name'],
      [{ name: 'ok', colour: 'red' }, 'colour'],
    ];
    for (const [body, field] of cases) {
      const response = await api(app.baseUrl, '/v1/recall/collections', { method: 'POST', key, body });
      expect(response.status, JSON.stringify(body)).to.equal(422);
      expect(response.body.errors).to.have.property(field);
    }
    const blank = await api(app.baseUrl, '/v1/recall/collections', { method: 'POST', key, body: { name: '   ' } });
    expect(blank.body.errors.name).to.deep.equal(['must not be blank']);
  });

  it('needs memory.write to create or delete and memory.read to list', async () => {
    const reader = (await app.key({ org: 'acme', workspace: 'main', kind: 'restricted', scopes: ['memory.read'] })).key;
    expect((await create('Nee', reader)).status).to.equal(403);
    expect((await api(app.baseUrl, '/v1/recall/collections/polissen', { method: 'DELETE', key: reader })).status).to.equal(403);
    expect((await api(app.baseUrl, '/v1/recall/collections', { key: reader })).status).to.equal(200);
  });
});
