import { expect } from 'chai';
import { ApiError } from '../../src/errors.js';
import { embedForMemory } from '../../src/memory/embedder.js';
import { resolveCollectionSlugs, searchChunks, type ChunkHit } from '../../src/memory/search.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createCollection, ingest, settled } from './documentsFixture.js';

// Two documents per language on different subjects; each query asks about one of them in other
// words (inflected, plural, another word order), so full text only finds it through stemming.
const DOCUMENTS = {
  nlCancel: {
    title: 'Inboedelverzekering opzeggen',
    text: 'U kunt uw inboedelverzekering op elk moment opzeggen met een opzegtermijn van één maand. Stuur daarvoor een brief of gebruik het opzegformulier op onze website.',
  },
  nlBike: {
    title: 'Fietsdiefstal',
    text: 'Is uw fiets gestolen? Doe binnen 24 uur aangifte bij de politie en meld de diefstal met het aangiftenummer bij ons schadeloket.',
  },
  enTravel: {
    title: 'Travel claims',
    text: "To file a travel insurance claim for lost luggage, send the airline's property irregularity report and your receipts within 28 days.",
  },
  enRoadside: {
    title: 'Roadside assistance',
    text: 'Our roadside assistance tows your car to the nearest garage when it breaks down anywhere in Europe, day and night.',
  },
  frCancel: {
    title: 'Résiliation',
    text: "Vous pouvez résilier votre contrat d'assurance habitation à tout moment après la première année, sans frais ni pénalités.",
  },
  frWater: {
    title: 'Dégâts des eaux',
    text: "En cas de dégât des eaux, coupez l'arrivée d'eau, prenez des photos des dommages et déclarez le sinistre sous cinq jours.",
  },
  deCancel: {
    title: 'Kündigung',
    text: 'Die Kündigung der Kfz-Versicherung ist jeweils zum Ablauf des Versicherungsjahres mit einer Frist von einem Monat möglich.',
  },
  deGlass: {
    title: 'Glasbruch',
    text: 'Glasbruch an Fenstern und Türen ist in der Hausratversicherung mitversichert, wenn Sie den Baustein Glas gewählt haben.',
  },
};
type DocName = keyof typeof DOCUMENTS;

const QUERIES: [string, string, DocName][] = [
  ['nl', 'Hoe kan ik mijn inboedelverzekeringen opzeggen?', 'nlCancel'],
  ['en', 'claims for luggage lost while travelling', 'enTravel'],
  ['fr', 'résiliation des contrats habitation', 'frCancel'],
  ['de', 'Kfz-Versicherung kündigen, welche Frist?', 'deCancel'],
];

describe('memory chunk search', () => {
  let app: TestApp;
  let workspaceId: string;
  let otherWorkspaceId: string;
  const ids: Partial<Record<DocName, string>> = {};
  const copyInSecond: { id?: string } = {};
  const otherIds = new Set<string>();
  let first: string;
  let second: string;

  before(async () => {
    app = await startTestApp();
    await app.startWorker();
    const created = await app.key({ org: 'acme', workspace: 'main' });
    workspaceId = created.workspace_id;
    const other = await app.key({ org: 'acme', workspace: 'other' });
    otherWorkspaceId = other.workspace_id;
    const firstSlug = await createCollection(app, created.key, 'Eerste');
    const secondSlug = await createCollection(app, created.key, 'Tweede');
    const otherSlug = await createCollection(app, other.key, 'Eerste');
    const pending: [string, string][] = [];
    for (const [name, doc] of Object.entries(DOCUMENTS) as [DocName, (typeof DOCUMENTS)[DocName]][]) {
      // Dutch and English in the first collection, French and German in the second.
      const slug = name.startsWith('nl') || name.startsWith('en') ? firstSlug : secondSlug;
      ids[name] = await ingest(app, created.key, { ...doc, collection: slug });
      pending.push([created.key, ids[name]!]);
      // The other workspace holds the very same documents.
      const copy = await ingest(app, other.key, { ...doc, collection: otherSlug });
      otherIds.add(copy);
      pending.push([other.key, copy]);
    }
    copyInSecond.id = await ingest(app, created.key, { ...DOCUMENTS.nlCancel, title: 'Kopie', collection: secondSlug });
    pending.push([created.key, copyInSecond.id]);
    for (const [key, id] of pending) expect((await settled(app, key, id)).status).to.equal('ready');
    const resolved = await resolveCollectionSlugs(app.db.pool, workspaceId, [firstSlug, secondSlug], 'collection');
    first = resolved[0]!;
    second = resolved[1]!;
  });
  after(async () => {
    await app.close();
  });

  async function search(query: string, collectionIds: string[] | null, { workspace = workspaceId, model = '' } = {}) {
    const { model: embedModel, vectors } = await embedForMemory(app.catalog, app.adapters, [query]);
    return searchChunks(app.db.pool, {
      workspaceId: workspace,
      collectionIds,
      model: model || embedModel.id,
      embedding: vectors[0]!,
      query,
      limit: 5,
    });
  }

  for (const [language, query, expected] of QUERIES) {
    it(`finds the right chunk first for a query in ${language}, by vector and by text`, async () => {
      const { byVector, byText } = await search(query, null);
      expect(byVector[0]?.documentId, `vector: ${JSON.stringify(byVector.map((h) => h.title))}`).to.be.oneOf([ids[expected], copyInSecond.id]);
      expect(byText[0]?.documentId, `text: ${JSON.stringify(byText.map((h) => h.title))}`).to.be.oneOf([ids[expected], copyInSecond.id]);
      const hit = byVector[0]!;
      expect(hit.text).to.equal(DOCUMENTS[expected].text);
      expect(hit.score).to.be.a('number').and.within(0, 1);
      expect(byText[0]!.score).to.be.greaterThan(0);
      // Scores are in ranking order.
      const scores = byVector.map((h) => h.score);
      expect(scores).to.deep.equal([...scores].sort((a, b) => b - a));
    });
  }

  it('answers hits with the document title and collection slug', async () => {
    const { byVector } = await search(QUERIES[2]![1], null);
    const hit = byVector.find((h) => h.documentId === ids.frCancel)!;
    expect(hit).to.have.all.keys('id', 'documentId', 'title', 'collection', 'text', 'score');
    expect(hit).to.include({ title: 'Résiliation', collection: 'tweede' });
    expect(hit.id).to.match(new RegExp(`^${ids.frCancel}:\\d+$`));
  });

  it('searches only the given collections', async () => {
    const query = QUERIES[0]![1];
    const inSecond = await search(query, [second]);
    const all = [...inSecond.byVector, ...inSecond.byText];
    expect(all.length).to.be.greaterThan(0);
    expect(all.every((h) => h.collection === 'tweede')).to.equal(true);
    expect(inSecond.byVector[0]!.documentId).to.equal(copyInSecond.id);
    expect(inSecond.byText[0]!.documentId).to.equal(copyInSecond.id);
    const inFirst = await search(query, [first]);
    expect([...inFirst.byVector, ...inFirst.byText].every((h: ChunkHit) => h.collection === 'eerste')).to.equal(true);
    expect(inFirst.byVector[0]!.documentId).to.equal(ids.nlCancel);
  });

  it("never returns another workspace's chunks", async () => {
    for (const [, query] of QUERIES) {
      const { byVector, byText } = await search(query, null);
      for (const hit of [...byVector, ...byText]) expect(otherIds.has(hit.documentId)).to.equal(false);
      const theirs = await search(query, null, { workspace: otherWorkspaceId });
      expect(theirs.byVector.length).to.be.greaterThan(0);
      for (const hit of [...theirs.byVector, ...theirs.byText]) expect(otherIds.has(hit.documentId)).to.equal(true);
    }
  });

  it('compares vectors of the same model only', async () => {
    const { byVector, byText } = await search(QUERIES[1]![1], null, { model: 'mistral/mistral-embed' });
    expect(byVector).to.deep.equal([]);
    expect(byText[0]!.documentId).to.equal(ids.enTravel);
  });

  it('finds by text a passage that holds some of the question’s words, after those that hold all of them', async () => {
    // "fiets" and "gestolen" are in the bike passage; "zondag" and "parkeerplaats" nowhere.
    const { byText } = await search('Mijn fiets is zondag gestolen op de parkeerplaats, wat nu?', null);
    expect(byText[0]?.documentId, JSON.stringify(byText.map((h) => h.title))).to.equal(ids.nlBike);
    // A question that shares none of the passages' words (after stop words) finds nothing by text.
    expect((await search('Wie wint zondag de verkiezingen?', null)).byText).to.deep.equal([]);
  });

  it('returns nothing by text for a query of only stop words or punctuation', async () => {
    for (const query of ['de het een', '?!']) expect((await search(query, null)).byText).to.deep.equal([]);
  });

  it('finds by the names in a question the row of a table, which has no language to stem it by', async () => {
    // QA: "Wat is het e-mailadres van Sanne Visser?" did not find her CSV row by its words (a table is
    // indexed as 'simple', left out of the any-word search), and memory's masked embedding of the
    // question no longer holds her name.
    const { key } = await app.key({ org: 'acme', workspace: 'main' });
    const table = await ingest(app, key, {
      title: 'klanten.csv',
      collection: 'eerste',
      text: 'naam,email,telefoon\nSanne Visser,sanne.visser@example.nl,0612345678\nPiet de Groot,piet@example.nl,0687654321\n',
    });
    expect((await settled(app, key, table)).status).to.equal('ready');
    const { rows } = await app.db.pool.query('select ts_config::text as config from chunks where document_id = $1', [table]);
    expect(rows.map((row) => row.config)).to.deep.equal(['simple']);
    const { byText } = await search('Wat is het e-mailadres van Sanne Visser?', null);
    expect(byText.map((hit) => hit.documentId)).to.include(table);
    // A question with no name or code in it still matches no table by its common words.
    expect((await search('Wat is het e-mailadres van de klant?', null)).byText.map((hit) => hit.documentId)).not.to.include(table);
  });

  it('finds a one-sentence document too short to tell its language by the question’s words that are no stop word in any of the four (QA)', async () => {
    // QA: "What is the kumquat policy?" found "The kumquat policy covers …" last of six, and "Wat is
    // het eigen risico per schade?" not at all: indexed as 'simple', they were matched only by every
    // word of the question ("what", "is", "the" included) or by its names and codes.
    const { key } = await app.key({ org: 'acme', workspace: 'main' });
    const kumquat = await ingest(app, key, { title: 'k', collection: 'eerste', text: 'The kumquat policy covers citrus trees in gardens and greenhouses.' });
    const risico = await ingest(app, key, { title: 'r', collection: 'eerste', text: 'Het eigen risico is 250 euro per schade.' });
    for (const id of [kumquat, risico]) expect((await settled(app, key, id)).status).to.equal('ready');
    const { rows } = await app.db.pool.query('select ts_config::text as config from chunks where document_id = any($1::uuid[])', [[kumquat, risico]]);
    expect(rows.map((row) => row.config)).to.deep.equal(['simple', 'simple']);
    expect((await search('What is the kumquat policy?', null)).byText[0]?.documentId).to.equal(kumquat);
    expect((await search('Wat is het eigen risico per schade?', null)).byText[0]?.documentId).to.equal(risico);
    // Stop words alone still find nothing.
    expect((await search('what is the', null)).byText.map((hit) => hit.documentId)).not.to.include(kumquat);
  });

  describe('resolveCollectionSlugs', () => {
    it('answers the ids in order, once each', async () => {
      const resolved = await resolveCollectionSlugs(app.db.pool, workspaceId, ['tweede', 'eerste', 'tweede'], 'collection');
      expect(resolved).to.deep.equal([second, first]);
      expect(await resolveCollectionSlugs(app.db.pool, workspaceId, 'eerste', 'collection')).to.deep.equal([first]);
    });

    it('rejects a slug the workspace does not have with 422 on the field, or on field.N', async () => {
      const failure = async (slugs: string | string[], workspace = workspaceId) => {
        try {
          await resolveCollectionSlugs(app.db.pool, workspace, slugs, 'collection');
        } catch (err) {
          return err as ApiError;
        }
        throw new Error('expected a 422');
      };
      const listed = await failure(['eerste', 'nope', 'tweede', 'ook-niet']);
      expect(listed).to.be.instanceOf(ApiError);
      expect(listed.status).to.equal(422);
      expect(Object.keys(listed.errors!)).to.deep.equal(['collection.1', 'collection.3']);
      const single = await failure('nope');
      expect(Object.keys(single.errors!)).to.deep.equal(['collection']);
      // Another workspace's collection is unknown here, though the slug is the same elsewhere.
      const foreign = await failure(['tweede'], otherWorkspaceId);
      expect(Object.keys(foreign.errors!)).to.deep.equal(['collection.0']);
    });
  });
});
