import { expect } from 'chai';
import { api } from '../helpers/app.js';
import { waitFor } from '../helpers/db.js';
import { chatBody, postChat, startGatewayFixture, type GatewayFixture } from '../helpers/gateway.js';
import { createCollection, ingest, settled } from '../memory/documentsFixture.js';

// Memory retrieved into a chat: the end-user's facts, the workspace's shared facts and the chunks
// of its collections, or — narrowed by `collection` — the user's facts and those collections only.
describe('retrieval in chat', () => {
  let gw: GatewayFixture;
  let other: string;
  before(async () => {
    gw = await startGatewayFixture();
    await gw.app.startWorker();
    const key = gw.key;
    const polissen = await createCollection(gw.app, key, 'Polissen');
    const handboek = await createCollection(gw.app, key, 'Handboek');
    const ids = [
      await ingest(gw.app, key, { title: 'Inboedel', collection: polissen, text: 'Het eigen risico van de inboedelverzekering is 250 euro per schade. Stort de premie op NL91ABNA0417164300.' }),
      await ingest(gw.app, key, { title: 'Schade', collection: handboek, text: 'Schade aan de inboedel meldt u binnen een week; het eigen risico staat in uw polis.' }),
    ];
    for (const id of ids) expect((await settled(gw.app, key, id)).status).to.equal('ready');
    await api(gw.app.baseUrl, '/v1/recall/facts', { method: 'POST', key, body: { content: 'Ik heb een inboedelverzekering sinds 2019.', user_ref: 'klant-1' } });
    await api(gw.app.baseUrl, '/v1/recall/facts', { method: 'POST', key, body: { content: 'Het eigen risico geldt per schade, niet per jaar.' } });
    await waitFor(
      async () => {
        const personal = await api(gw.app.baseUrl, '/v1/recall/facts?user_ref=klant-1', { key });
        const shared = await api(gw.app.baseUrl, '/v1/recall/facts', { key });
        return personal.body.data.length === 1 && shared.body.data.length === 1;
      },
      { what: 'the personal and the shared fact', timeoutMs: 15_000 },
    );
    // Another workspace with memory of its own, which must never show up here.
    other = (await gw.app.key({ org: 'other', workspace: 'w' })).key;
    const theirs = await createCollection(gw.app, other, 'Polissen');
    const theirDoc = await ingest(gw.app, other, { title: 'Geheim', collection: theirs, text: 'Het eigen risico van de geheime verzekering is nul euro.' });
    await settled(gw.app, other, theirDoc);
  });
  after(async () => {
    await gw.close();
  });
  beforeEach(() => gw.euA.reset());

  const ask = async (extra: Record<string, unknown>, key = gw.key) => {
    const response = await postChat(gw, chatBody({ messages: [{ role: 'user', content: 'Wat is het eigen risico van mijn inboedelverzekering?' }], ...extra }), {}, key);
    return { status: response.status, body: (await response.json()) as any };
  };

  it('blends personal facts, shared facts and every collection without a narrowing', async () => {
    const { status, body } = await ask({ user: 'klant-1' });
    expect(status).to.equal(200);
    const kinds = body.sources.map((s: any) => (s.type === 'fact' ? `fact:${s.text}` : `chunk:${s.collection}`));
    expect(kinds).to.include('fact:Ik heb een inboedelverzekering sinds 2019.');
    expect(kinds).to.include('fact:Het eigen risico geldt per schade, niet per jaar.');
    expect(kinds).to.include('chunk:polissen');
    expect(kinds).to.include('chunk:handboek');
    expect(body.sources[0]).to.include({ type: 'chunk', collection: 'polissen', title: 'Inboedel' });
    for (const source of body.sources) {
      expect(source.score).to.be.a('number');
      if (source.type === 'chunk') {
        expect(source).to.have.all.keys('type', 'id', 'score', 'text', 'document_id', 'title', 'collection');
        // Named by its document and place, not by a number counting every workspace's chunks (which would tell their volume).
        expect(source.id).to.equal(`${source.document_id}:0`);
      }
    }
    expect(JSON.stringify(body.sources)).not.to.contain('geheime');
    // The passages reach the model at the start of the question they answer, masked like everything else.
    const sent = gw.euA.requests[0]!.body.messages;
    expect(sent.map((m: { role: string }) => m.role)).to.deep.equal(['user']);
    expect(sent[0].content).to.contain('250 euro');
    expect(sent[0].content).to.match(/\n\nWat is het eigen risico van mijn inboedelverzekering\?$/);
    expect(JSON.stringify(sent)).not.to.contain('NL91ABNA0417164300');
    expect(JSON.stringify(sent)).to.contain('[IBAN_1]');
    // The retrieval fee is a service credit.
    expect(body.usage.credits.services).to.be.at.least(0.05);
  });

  it('puts the knowledge at the start of the question, so that the conversation before it stays the prefix a provider caches from turn to turn', async () => {
    const system = { role: 'system', content: 'Je bent de assistent van een verzekeraar.' };
    const first = { role: 'user', content: 'Wat is het eigen risico van mijn inboedelverzekering?' };
    const turnOne = await postChat(gw, chatBody({ user: 'klant-1', cache: false, messages: [system, first] }));
    expect(turnOne.status).to.equal(200);
    const answer = { role: 'assistant', content: 'Het eigen risico is 250 euro per schade.' };
    const second = { role: 'user', content: 'En geldt dat eigen risico per schade?' };
    const turnTwo = await postChat(gw, chatBody({ user: 'klant-1', cache: false, messages: [system, first, answer, second] }));
    expect(turnTwo.status).to.equal(200);
    const [one, two] = gw.euA.requests.map((r) => r.body.messages as { role: string; content: string }[]);
    expect(one!.map((m) => m.role)).to.deep.equal(['system', 'user']);
    expect(two!.map((m) => m.role)).to.deep.equal(['system', 'user', 'assistant', 'user']);
    // Not a system message after the conversation began: Mistral refuses one there.
    expect(two![3]!.content).to.contain('250 euro').and.to.match(/\n\nEn geldt dat eigen risico per schade\?$/);
    // The conversation before the question goes as the caller sent it: the prefix the next turn repeats.
    expect(two!.slice(0, 3).map((m) => m.content)).to.deep.equal([system.content, first.content, answer.content]);
  });

  it('retrieves nothing for a question about something memory does not hold, and charges no passages for it', async () => {
    const response = await postChat(gw, chatBody({ user: 'klant-1', messages: [{ role: 'user', content: 'Wat is de hoofdstad van Frankrijk?' }] }));
    const body = (await response.json()) as any;
    expect(response.status).to.equal(200);
    expect(body.sources).to.deep.equal([]);
    expect(JSON.stringify(gw.euA.requests.at(-1)!.body.messages)).not.to.contain('Knowledge retrieved');
  });

  it('narrows to the named collections plus the user own facts', async () => {
    const { body } = await ask({ user: 'klant-1', collection: 'polissen' });
    expect(body.sources.length).to.be.greaterThan(0);
    for (const source of body.sources) {
      if (source.type === 'chunk') expect(source.collection).to.equal('polissen');
      else expect(source.text).to.equal('Ik heb een inboedelverzekering sinds 2019.');
    }
    expect(body.sources.some((s: any) => s.type === 'fact')).to.equal(true);
    const many = await ask({ collection: ['handboek'] });
    expect(many.body.sources.every((s: any) => s.type === 'chunk' && s.collection === 'handboek')).to.equal(true);
  });

  it('refuses an unknown collection slug with 422', async () => {
    const one = await ask({ collection: 'bestaat-niet' });
    expect(one.status).to.equal(422);
    expect(one.body.errors).to.have.property('collection');
    const list = await ask({ collection: ['polissen', 'bestaat-niet'] });
    expect(list.body.errors).to.have.property('collection.1');
    const theirs = await ask({ collection: 'handboek' }, other);
    expect(theirs.status).to.equal(422);
    // At most 100 slugs: a list of 50,000 unknown ones answered 3 MB of errors (QA).
    const many = await ask({ collection: Array.from({ length: 50_000 }, (_, i) => `c${i}`) });
    expect(many.status).to.equal(422);
    expect(Object.keys(many.body.errors)).to.deep.equal(['collection']);
    expect(JSON.stringify(many.body).length).to.be.below(2000);
  });

  it('retrieves nothing for a question without a word, where memory holds a passage without one too, and charges no retrieval for it', async () => {
    const { key } = await gw.app.key({ org: 'no-words', workspace: 'w' });
    const party = await createCollection(gw.app, key, 'Feest');
    expect((await settled(gw.app, key, await ingest(gw.app, key, { title: 'emoji', collection: party, text: '🎉🎉🎉 👍' }))).status).to.equal('ready');
    for (const question of ['???', '🙂', '!!!']) {
      const response = await postChat(gw, chatBody({ messages: [{ role: 'user', content: question }] }), {}, key);
      const body = (await response.json()) as any;
      expect(body.sources, question).to.deep.equal([]);
      expect(body.usage.credits.services, question).to.be.below(0.05);
    }
  });

  it('charges no retrieval fee for a chat narrowed to collections that hold nothing', async () => {
    // QA: the presence check looked at the whole workspace, so an empty collection paid the fee.
    const empty = await createCollection(gw.app, gw.key, 'Nog leeg');
    // Uncached: a later test's chat without memory asks the same prompt, and must reach the provider.
    const { body } = await ask({ collection: empty, cache: false });
    expect(body.sources).to.deep.equal([]);
    expect(body.usage.credits.services).to.be.below(0.05);
    // The end-user's own facts are searched in a narrowed chat: then there is something to search.
    const withFacts = await ask({ collection: empty, user: 'klant-1', cache: false });
    expect(withFacts.body.usage.credits.services).to.be.at.least(0.05);
  });

  it('gives no sources and charges no retrieval fee where there is no memory', async () => {
    const empty = (await gw.app.key({ org: 'empty', workspace: 'w' })).key;
    const { body } = await ask({}, empty);
    expect(body.sources).to.deep.equal([]);
    expect(body.usage.credits.services).to.be.below(0.05);
    expect(gw.euA.requests[0]!.body.messages.every((m: any) => m.role !== 'system')).to.equal(true);
  });

  it('answers a prompt far longer than any search needs, with memory on (the search reads a bounded part)', async () => {
    // Varied words, so every one is a term of the full-text query; the question comes last.
    const filler = Array.from({ length: 20_000 }, (_, i) => `woord${i.toString(36)}`).join(' ');
    // The largest is just under what the firewall scans of one request (FIREWALL_MAX_CHARS).
    for (const size of [132 * 1024, 1_000_000]) {
      const content = `${filler.repeat(Math.ceil(size / filler.length)).slice(0, size)} Wat is het eigen risico van mijn inboedelverzekering?`;
      // A short answer: what is tested is the search over the prompt, not the stub echoing a megabyte back.
      gw.euA.script({ type: 'answer', content: 'ok' });
      const response = await postChat(gw, chatBody({ model: 'test/long', user: 'klant-1', messages: [{ role: 'user', content }] }));
      const body = (await response.json()) as any;
      expect(response.status, JSON.stringify(body).slice(0, 300)).to.equal(200);
      // The question at the end still finds its passage.
      expect(body.sources.some((s: any) => s.type === 'chunk' && s.title === 'Inboedel')).to.equal(true);
    }
  });

  it('retrieves memory only for a key with memory.read, and writes a thread only with memory.write', async () => {
    const chatOnly = (await gw.app.key({ kind: 'restricted', scopes: ['chat.create'] })).key;
    const reader = (await gw.app.key({ kind: 'restricted', scopes: ['chat.create', 'memory.read'] })).key;
    const writer = (await gw.app.key({ kind: 'restricted', scopes: ['chat.create', 'memory.write'] })).key;

    const blind = await ask({ user: 'klant-1' }, chatOnly);
    expect(blind.status).to.equal(200);
    expect(blind.body.sources).to.deep.equal([]);
    expect(blind.body.usage.credits.services).to.be.below(0.05);
    const sent = JSON.stringify(gw.euA.requests.at(-1)!.body.messages);
    expect(sent).not.to.contain('sinds 2019');
    expect(sent).not.to.contain('250 euro');

    const narrowed = await ask({ user: 'klant-1', collection: 'polissen' }, chatOnly);
    expect(narrowed.status).to.equal(200);
    expect(narrowed.body.sources).to.deep.equal([]);
    expect(JSON.stringify(gw.euA.requests.at(-1)!.body.messages)).not.to.contain('250 euro');
    const threaded = await ask({ thread: 'scoped-thread' }, chatOnly);
    expect(threaded.status).to.equal(403);
    expect(threaded.body).to.include({ code: 'insufficient_scope' });
    expect(threaded.body.message).to.contain('memory.write');
    expect((await ask({ thread: 'scoped-thread' }, reader)).status).to.equal(403);
    expect((await api(gw.app.baseUrl, '/v1/recall/threads/scoped-thread', { key: gw.key })).status).to.equal(404);

    const read = await ask({ user: 'klant-1' }, reader);
    expect(read.body.sources.map((s: any) => s.text)).to.include('Ik heb een inboedelverzekering sinds 2019.');
    const written = await ask({ thread: 'scoped-thread' }, writer);
    expect(written.status).to.equal(200);
    expect(written.body.sources).to.deep.equal([]);
    expect((await api(gw.app.baseUrl, '/v1/recall/threads/scoped-thread', { key: gw.key })).status).to.equal(200);
  });

  it('does not hand an answer memory was retrieved into to a key without memory.read, by replay or as a stored response', async () => {
    const chatOnly = (await gw.app.key({ kind: 'restricted', scopes: ['chat.create'] })).key;
    const body = chatBody({ user: 'klant-1', messages: [{ role: 'user', content: 'Wat is het eigen risico van mijn inboedelverzekering?' }] });
    const first = await postChat(gw, body, { 'x-request-id': 'memory-replay-1' });
    expect(((await first.json()) as any).sources).not.to.be.empty;
    for (const stream of [false, true]) {
      const replayed = await postChat(gw, { ...body, stream }, { 'x-request-id': 'memory-replay-1' }, chatOnly);
      expect(replayed.status).to.equal(403);
      const refused = (await replayed.json()) as any;
      expect(refused.code).to.equal('insufficient_scope');
      expect(refused.message).to.contain('memory.read');
      expect(JSON.stringify(refused)).not.to.contain('inboedelverzekering sinds 2019');
    }
    // The key that asked (it has memory.read) still gets its replay.
    expect((await postChat(gw, body, { 'x-request-id': 'memory-replay-1' })).headers.get('x-replay')).to.equal('true');

    // Nor by its trace: a key that reads traces but not memory sees the rest of it.
    const tracesOnly = (await gw.app.key({ kind: 'restricted', scopes: ['traces.read'] })).key;
    const traced = await api(gw.app.baseUrl, '/v1/traces/memory-replay-1', { key: tracesOnly });
    expect(traced.status).to.equal(200);
    expect(JSON.stringify(traced.body)).not.to.match(/sinds 2019|250 euro/);
    expect(traced.body.request.messages.map((m: any) => m.content)).to.deep.equal([
      '[withheld: memory retrieved into this request; reading it needs the scope memory.read]',
      'Wat is het eigen risico van mijn inboedelverzekering?',
    ]);
    expect(traced.body.response).to.equal(null);
    expect(traced.body.notes.join(' ')).to.contain('this key lacks memory.read');
    expect(traced.body.usage.prompt_tokens).to.be.above(0);
    const bothScopes = (await gw.app.key({ kind: 'restricted', scopes: ['traces.read', 'memory.read'] })).key;
    const full = await api(gw.app.baseUrl, '/v1/traces/memory-replay-1', { key: bothScopes });
    expect(full.body.request.messages[0].content).to.contain('250 euro');
    expect(full.body.response.choices).to.have.length(1);

    const created = await api(gw.app.baseUrl, '/v1/responses', { method: 'POST', key: gw.key, body: { model: body.model, user: 'klant-1', input: 'Wat is het eigen risico van mijn inboedelverzekering?' } });
    expect(created.status).to.equal(200);
    expect(created.body.sources).not.to.be.empty;
    const read = await api(gw.app.baseUrl, `/v1/responses/${created.body.id}`, { key: chatOnly });
    expect(read.status).to.equal(403);
    expect(read.body.message).to.contain('memory.read');
    const continued = await api(gw.app.baseUrl, '/v1/responses', { method: 'POST', key: chatOnly, body: { model: body.model, previous_response_id: created.body.id, input: 'En nu?' } });
    expect(continued.status).to.equal(403);
    expect((await api(gw.app.baseUrl, `/v1/responses/${created.body.id}`, { key: gw.key })).status).to.equal(200);

    // A turn that continues it carries what memory gave the first, though nothing was retrieved into it.
    const next = await api(gw.app.baseUrl, '/v1/responses', { method: 'POST', key: gw.key, body: { model: body.model, previous_response_id: created.body.id, input: 'Dank je.' } });
    expect(next.status, next.text).to.equal(200);
    expect(next.body.sources ?? []).to.deep.equal([]);
    const readNext = await api(gw.app.baseUrl, `/v1/responses/${next.body.id}`, { key: chatOnly });
    expect(readNext.status).to.equal(403);
    expect(readNext.body.message).to.contain('memory.read');
    expect((await api(gw.app.baseUrl, `/v1/responses/${next.body.id}`, { key: gw.key })).status).to.equal(200);
  });

  it('sends sources on the finish chunk of a stream', async () => {
    const response = await postChat(gw, chatBody({ stream: true, user: 'klant-1', messages: [{ role: 'user', content: 'eigen risico inboedel?' }] }));
    const text = await response.text();
    const finish = text
      .split('\n\n')
      .filter((b) => b.startsWith('data: {'))
      .map((b) => JSON.parse(b.slice(6)))
      .find((c) => c.choices[0]?.finish_reason);
    expect(finish.sources.length).to.be.greaterThan(0);
  });

  it('leaves a placeholder the caller typed as written: it never stands for personal data from memory', async () => {
    // A model repeats what it is asked to; the passage's IBAN is numbered after the typed one.
    gw.euA.script({ type: 'answer', content: 'Herhaald: [IBAN_1] en iban_1. Premie op [IBAN_2].' });
    const response = await postChat(
      gw,
      chatBody({ collection: 'polissen', messages: [{ role: 'user', content: 'Herhaal letterlijk: [IBAN_1] en iban_1. Waar stort ik de premie van de inboedelverzekering?' }] }),
    );
    const body = (await response.json()) as any;
    expect(response.status).to.equal(200);
    const sent = JSON.stringify(gw.euA.requests[0]!.body.messages);
    expect(sent).to.contain('Stort de premie op [IBAN_2]');
    expect(body.choices[0].message.content).to.equal('Herhaald: [IBAN_1] en iban_1. Premie op NL91ABNA0417164300.');
  });

  it('masks the rows of a table retrieved from a later chunk by their columns, as in the chunk with the header', async () => {
    const rows = Array.from({ length: 400 }, (_, i) => `Lid ${i},lid${i}@example.nl,06123${String(i).padStart(5, '0')},Utrecht,K${10000 + i}`);
    rows.splice(390, 0, 'Zebedeus Quackenbush,zq@example.nl,0612345670,Utrecht,K99999');
    const polissen = (await api(gw.app.baseUrl, '/v1/recall/collections', { key: gw.key })).body.data.find((c: any) => c.slug === 'polissen').slug;
    const id = await ingest(gw.app, gw.key, { title: 'Ledenlijst', collection: polissen, text: `naam,email,telefoon,plaats,klantnummer\n${rows.join('\n')}` });
    expect((await settled(gw.app, gw.key, id)).status).to.equal('ready');
    const response = await postChat(gw, chatBody({ collection: 'polissen', messages: [{ role: 'user', content: 'Wie is klant K99999?' }] }));
    const body = (await response.json()) as any;
    expect(response.status).to.equal(200);
    const retrieved = body.sources.find((s: any) => s.type === 'chunk' && s.text.includes('K99999'));
    expect(retrieved, 'the chunk with the row').to.not.equal(undefined);
    expect(retrieved.text.startsWith('naam,email,telefoon,plaats,klantnummer\n')).to.equal(true);
    const sent = JSON.stringify(gw.euA.requests[0]!.body.messages);
    expect(sent).to.contain('K99999');
    expect(sent).not.to.contain('Quackenbush');
    expect(sent).not.to.contain('Zebedeus');
  });

  it('masks the rows of a table under a title, retrieved from a later chunk, and never sends the slug of a collection named after a person', async () => {
    const rows = Array.from({ length: 600 }, (_, i) => `| Bewoner ${i} | Kamer${i} |`);
    rows.splice(555, 1, '| Ngozi Okonkwo | Kamer555 |');
    const dossier = await createCollection(gw.app, gw.key, 'Dossier Jan de Vries');
    const id = await ingest(gw.app, gw.key, { title: 'Bewoners', collection: dossier, text: `# Klantenlijst\n\nWie waar woont:\n\n| naam | kamer |\n|---|---|\n${rows.join('\n')}` });
    expect((await settled(gw.app, gw.key, id)).status).to.equal('ready');
    const response = await postChat(gw, chatBody({ collection: dossier, messages: [{ role: 'user', content: 'Wie woont in Kamer555?' }] }));
    const body = (await response.json()) as any;
    expect(response.status).to.equal(200);
    const retrieved = body.sources.find((s: any) => s.type === 'chunk' && s.text.includes('Kamer555'));
    expect(retrieved, 'the chunk with the row').to.not.equal(undefined);
    expect(retrieved.text.startsWith('| naam | kamer |\n')).to.equal(true);
    // The caller still sees where a passage came from.
    expect(retrieved.collection).to.equal(dossier);
    const sent = JSON.stringify(gw.euA.requests[0]!.body.messages);
    expect(sent).to.contain('Kamer555');
    expect(sent).not.to.contain('Okonkwo');
    expect(sent).not.to.contain('jan-de-vries');
  });

  it('retrieves a text once, however many documents hold it (a document uploaded twice, a copy with a line added)', async () => {
    const kopieen = await createCollection(gw.app, gw.key, 'Kopieen');
    const same = 'De dakpannen worden elk voorjaar door de dakdekker nagekeken; een kapotte pan vervangt hij meteen.';
    const ids = [];
    for (let i = 0; i < 5; i++) ids.push(await ingest(gw.app, gw.key, { title: `Dak ${i}`, collection: kopieen, text: same }));
    ids.push(await ingest(gw.app, gw.key, { title: 'Dak plus', collection: kopieen, text: `${same} Bel hem op werkdagen.` }));
    ids.push(await ingest(gw.app, gw.key, { title: 'Goot', collection: kopieen, text: 'De dakgoot wordt in het najaar door de dakdekker schoongemaakt.' }));
    for (const id of ids) expect((await settled(gw.app, gw.key, id)).status).to.equal('ready');
    const response = await postChat(gw, chatBody({ collection: kopieen, messages: [{ role: 'user', content: 'Wanneer kijkt de dakdekker de dakpannen en de dakgoot na?' }] }));
    const body = (await response.json()) as any;
    expect(response.status).to.equal(200);
    const texts: string[] = body.sources.map((s: any) => s.text);
    expect(texts.filter((text) => text.includes('dakpannen'))).to.have.length(1);
    expect(texts.some((text) => text.includes('dakgoot'))).to.equal(true);
  });
});
