import { expect } from 'chai';
import { api, startTestApp, type TestApp } from '../helpers/app.js';
import { embeddingModel1024, loadTestCatalog, SERVICES } from '../helpers/catalog.js';
import { waitFor } from '../helpers/db.js';
import { startStubProvider, type StubProvider } from '../helpers/stubProvider.js';
import { createCollection, ingest, settled } from './documentsFixture.js';

// Memory's texts leave for the embedding provider as a chat's messages leave for the model: masked.
// QA, 2026-11-27: the question of a chat with memory went to the embedding provider in clear
// (name, IBAN, phone), though the chat request itself was masked; facts and documents too.
describe('memory embedding: what leaves for the embedding provider is masked', () => {
  let stub: StubProvider;
  let app: TestApp;
  let key: string;
  before(async () => {
    stub = await startStubProvider({ dimensions: 1024 });
    const { catalog } = loadTestCatalog(
      `
providers:
  - {id: eu-stub, region: eu, kind: openai, base_url: "${stub.url}", api_key: "\${STUB_KEY}", timeout_ms: 10000}
models:
${embeddingModel1024('stub/embed-1024', [['eu-stub', 'embed']])}
  - id: stub/chat
    type: chat
    context_length: 32000
    pricing: {prompt: 1, completion: 1}
    endpoints:
      - {provider: eu-stub, upstream_model: chat}
aliases: {}
${SERVICES}
`,
    );
    app = await startTestApp({ catalog });
    await app.startWorker();
    key = (await app.key()).key;
  });
  after(async () => {
    await app.close();
    await stub.close();
  });

  const embedded = () => stub.requests.filter((r) => r.path.endsWith('/embeddings')).map((r) => JSON.stringify(r.body.input));
  const inClear = ['Jan Jansen', 'jan.jansen@example.nl', 'NL91ABNA0417164300', 'sanne.visser@example.nl', 'Annelies Verbeek', 'NL20INGB0001234567', '06-87654321'];

  it('masks a document’s chunks, a fact, and a chat’s question before they are embedded; the chat still finds the document by its words', async () => {
    const slug = await createCollection(app, key, 'Polissen');
    const document = await ingest(app, key, {
      title: 'Brief',
      collection: slug,
      text: 'Brief aan de heer Jan Jansen (jan.jansen@example.nl, IBAN NL91ABNA0417164300). De verzekering dekt diefstal van de fiets.',
    });
    expect((await settled(app, key, document)).status).to.equal('ready');

    const fact = await api(app.baseUrl, '/v1/recall/facts', {
      method: 'POST',
      key,
      body: { content: 'Mijn e-mail is sanne.visser@example.nl en ik woon in Delft.', user_ref: 'klant-42' },
    });
    expect(fact.status, fact.text).to.equal(202);
    await waitFor(
      async () => ((await api(app.baseUrl, '/v1/recall/facts?user_ref=klant-42', { key })).body.data.length > 0 ? true : undefined),
      { what: 'the fact stored' },
    );

    const chat = await api(app.baseUrl, '/v1/chat/completions', {
      method: 'POST',
      key,
      body: {
        model: 'stub/chat',
        collection: slug,
        user: 'klant-42',
        messages: [{ role: 'user', content: 'Ik ben Annelies Verbeek, IBAN NL20INGB0001234567, tel 06-87654321. Is diefstal van mijn fiets verzekerd?' }],
      },
    });
    expect(chat.status, chat.text).to.equal(200);
    expect(chat.body.sources.map((s: { type: string }) => s.type)).to.include('chunk');

    const inputs = embedded();
    expect(inputs.length, 'the document, the fact and the question were embedded by the provider').to.be.at.least(3);
    for (const value of inClear) expect(inputs.join('\n'), value).not.to.contain(value);
    expect(inputs.join('\n')).to.match(/\[EMAIL_\d+\]/).and.to.match(/\[IBAN_\d+\]/);
    // The chat request itself, as before: masked.
    const sent = JSON.stringify(stub.requests.filter((r) => r.path.endsWith('/chat/completions')).map((r) => r.body));
    for (const value of inClear) expect(sent, value).not.to.contain(value);
  });

  it('searches a question that is only a personal value by its words alone: masked, it would embed as every such question', async () => {
    const slug = await createCollection(app, key, 'Dossiers');
    const document = await ingest(app, key, { title: 'Dossier', collection: slug, text: 'Het dossier van Jan Jansen is afgesloten.' });
    expect((await settled(app, key, document)).status).to.equal('ready');
    const before = embedded().length;
    const chat = await api(app.baseUrl, '/v1/chat/completions', {
      method: 'POST',
      key,
      body: { model: 'stub/chat', collection: slug, cache: false, messages: [{ role: 'user', content: 'Jan Jansen?' }] },
    });
    expect(chat.status).to.equal(200);
    expect(embedded().length, 'no embedding of "[PERSON_1]?"').to.equal(before);
    expect(chat.body.sources.map((s: { document_id?: string }) => s.document_id)).to.deep.equal([document]);
  });

  it('keeps facts apart that differ in a personal value, though masked they embed alike; a restatement still merges', async () => {
    // QA: "bevriend met Jan Bakker" then "bevriend met Piet de Groot" embedded as one masked text
    // (cosine 1), and the second replaced the first; so did a second daughter in one submission.
    const submit = async (content: string) => {
      const accepted = await api(app.baseUrl, '/v1/recall/facts', { method: 'POST', key, body: { content, user_ref: 'klant-friends' } });
      expect(accepted.status).to.equal(202);
      await waitFor(
        async () => {
          const status = (await api(app.baseUrl, `/v1/recall/submissions/${accepted.body.submission_id}`, { key })).body.status;
          return ['done', 'empty', 'failed'].includes(status) ? status : undefined;
        },
        { what: 'the submission extracted' },
      );
    };
    const facts = async () => ((await api(app.baseUrl, '/v1/recall/facts?user_ref=klant-friends', { key })).body.data as { content: string }[]).map((f) => f.content).sort();
    await submit('Ik ben bevriend met Jan Bakker.');
    await submit('Ik ben bevriend met Piet de Groot.');
    await submit('Mijn dochter heet Emma Jansen. Mijn dochter heet Sophie Jansen.');
    expect(await facts()).to.deep.equal([
      'Ik ben bevriend met Jan Bakker.',
      'Ik ben bevriend met Piet de Groot.',
      'Mijn dochter heet Emma Jansen.',
      'Mijn dochter heet Sophie Jansen.',
    ]);
    await submit('ik ben bevriend met jan bakker');
    expect(await facts()).to.have.length(4);
  });
});
