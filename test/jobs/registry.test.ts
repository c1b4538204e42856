import { expect } from 'chai';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { waitFor } from '../helpers/db.js';
import { capturedLogger } from '../helpers/logs.js';
import type { StubProvider } from '../helpers/stubProvider.js';
import { createCollection, ingest, startSlowEmbeddingCatalog } from '../memory/documentsFixture.js';

// A job that fails is logged with the ids its payload names, so an operator finds the failure of
// the document a client created (QA: graphile-worker's own line names the job id alone).
describe('jobs/registry', () => {
  let stub: StubProvider;
  let app: TestApp;
  const logs = capturedLogger('warn');
  before(async () => {
    const slow = await startSlowEmbeddingCatalog();
    stub = slow.stub;
    app = await startTestApp({ catalog: slow.catalog, log: logs.log });
    await app.startWorker();
  });
  after(async () => {
    await app.close();
    await stub.close();
  });

  it('logs a failed attempt at warn with the ids of its payload and the error, never the document’s text', async () => {
    stub.script({ type: 'status', status: 503 }, { type: 'status', status: 503 }, { type: 'status', status: 503 });
    const key = (await app.key()).key;
    const slug = await createCollection(app, key, 'Handboek');
    const text = 'Polisvoorwaarden van Jan Jansen, jan.jansen@example.nl.';
    const document = await ingest(app, key, { title: 'Voorwaarden', collection: slug, text });
    const line = await waitFor(async () => logs.lines().find((l) => l.msg === 'job attempt failed' && l.document_id === document), {
      what: 'the failed attempt logged',
    });
    expect(line).to.include({ task: 'memory__ingest_document', level: 40, attempt: 1 });
    expect(line.workspace_id).to.be.a('string');
    expect(JSON.stringify(line.err)).to.contain('503');
    expect(logs.text()).not.to.contain('jan.jansen@example.nl');
  });
});
