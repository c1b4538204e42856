import { expect } from 'chai';
import { createKey } from '../../src/tenancy/keys.js';
import { api } from '../helpers/app.js';
import { startWeb, startWorker, stopProcess, type WebProcess, type WorkerProcess } from '../helpers/cluster.js';
import { createTestDatabase, waitFor, type TestDatabase } from '../helpers/db.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhookReceiver.js';

// A receiver that never answers holds each delivery to it for the whole timeout (10 s). The worker
// process runs deliveries in a pool of their own, one at a time per endpoint (sql/0035), so another
// organization's document is ingested, and its own webhook delivered, as quickly as if nobody's
// receiver hung.
describe('a webhook receiver that hangs, in the worker process', function () {
  this.timeout(90_000);
  let db: TestDatabase;
  let web: WebProcess;
  let worker: WorkerProcess;
  let hanging: WebhookReceiver;
  let healthy: WebhookReceiver;
  before(async () => {
    db = await createTestDatabase();
    const env = { DATABASE_URL: db.url, WEBHOOKS_ALLOW_HTTP: '1', WORKER_CONCURRENCY: '4' };
    [web, worker, hanging, healthy] = await Promise.all([startWeb(env), startWorker(env), startWebhookReceiver(), startWebhookReceiver()]);
  });
  after(async () => {
    for (const process of [web, worker]) await stopProcess(process);
    await Promise.all([hanging.close(), healthy.close()]);
    await db.drop();
  });

  it("does not slow another organization's ingest or its webhooks", async () => {
    const slow = await createKey(db.pool, { organization: 'slow', workspace: 'w', kind: 'organization' });
    const other = await createKey(db.pool, { organization: 'other', workspace: 'w', kind: 'organization' });
    hanging.script(...Array.from({ length: 40 }, () => ({ type: 'hang' as const })));
    const endpoint = await api(web.url, '/v1/webhooks', { method: 'POST', key: slow.key, body: { url: hanging.url, events: ['document.ready'] } });
    expect(endpoint.status, endpoint.text).to.equal(201);
    // More attempts at a black hole than the worker has slots for every kind of job.
    for (let i = 0; i < 12; i++) {
      expect((await api(web.url, `/v1/webhooks/${endpoint.body.data.id}/test`, { method: 'POST', key: slow.key })).status).to.equal(200);
    }
    await waitFor(async () => hanging.received.length >= 1, { what: 'the hanging receiver to hold a delivery', timeoutMs: 10_000 });

    expect((await api(web.url, '/v1/webhooks', { method: 'POST', key: other.key, body: { url: healthy.url, events: ['document.ready'] } })).status).to.equal(201);
    const collection = await api(web.url, '/v1/recall/collections', { method: 'POST', key: other.key, body: { name: 'Polissen' } });
    const started = Date.now();
    const document = await api(web.url, '/v1/memory/documents', {
      method: 'POST',
      key: other.key,
      body: { title: 'Inboedel', collection: collection.body.data.slug, text: 'Het eigen risico van de inboedelverzekering is 250 euro.' },
    });
    expect(document.status, document.text).to.equal(201);
    await waitFor(async () => (await api(web.url, `/v1/memory/documents/${document.body.data.id}`, { key: other.key })).body.data.status === 'ready', {
      what: 'the other organization’s document to be ready',
      timeoutMs: 5_000,
    });
    await waitFor(async () => healthy.ofType('document.ready').length === 1, { what: 'its document.ready webhook', timeoutMs: 5_000 });
    expect(Date.now() - started).to.be.below(5_000);
    // The endpoint that hangs is sent one delivery at a time: it holds one slot, not all of them.
    expect(hanging.received).to.have.length(1);
  });
});
