import { expect } from 'chai';
import { Webhook } from 'standardwebhooks';
import { withTransaction } from '../../src/db/transaction.js';
import { createDocument } from '../../src/memory/documents.js';
import { api, startTestApp, type TestApp } from '../helpers/app.js';
import { waitFor } from '../helpers/db.js';
import { startWebhookReceiver, type ReceivedWebhook, type WebhookReceiver } from '../helpers/webhookReceiver.js';
import { createCollection, ingest, prose, settled } from '../memory/documentsFixture.js';

// What finishes in the background reaches a subscribed receiver as one signed event, which the
// reference library (standardwebhooks) verifies with the secret shown at creation.
describe('webhook events', function () {
  this.timeout(60_000);
  let app: TestApp;
  let receiver: WebhookReceiver;
  let key: string;
  let workspaceId: string;
  let organizationId: string;
  let secret: string;
  let slug: string;

  before(async () => {
    app = await startTestApp({ env: { WEBHOOKS_ALLOW_HTTP: '1' } });
    await app.startWorker({ webhooks: { retryDelaysMs: [50, 50, 50] } });
    receiver = await startWebhookReceiver();
    const created = await app.key();
    key = created.key;
    workspaceId = created.workspace_id;
    organizationId = created.organization_id;
    const endpoint = await api(app.baseUrl, '/v1/webhooks', {
      method: 'POST',
      key,
      body: { url: receiver.url, events: ['document.ready', 'document.failed', 'facts.extracted', 'memory.erased'], description: 'all' },
    });
    expect(endpoint.status, endpoint.text).to.equal(201);
    secret = endpoint.body.data.secret;
    slug = await createCollection(app, key, 'Handboek');
  });
  after(async () => {
    await app.close();
    await receiver.close();
  });

  /** Waits for the one webhook of `type` that `match` accepts, and checks its signature. */
  const eventOf = async (type: string, match: (data: any) => boolean): Promise<{ webhook: ReceivedWebhook; event: any }> => {
    const webhook = await waitFor(async () => receiver.ofType(type).find((r) => match(JSON.parse(r.body).data)), {
      what: `a ${type} webhook`,
      timeoutMs: 20_000,
    });
    const event = new Webhook(secret).verify(webhook.body, webhook.headers) as any;
    return { webhook, event };
  };

  const deliveriesOf = async (type: string) =>
    (
      await app.db.pool.query(
        `select d.status, d.attempts, e.data from webhook_deliveries d join webhook_events e on e.id = d.event_id
          where d.workspace_id = $1 and e.type = $2`,
        [workspaceId, type],
      )
    ).rows;

  it('an ingest that turns ready sends exactly one document.ready, verified by standardwebhooks', async () => {
    const id = await ingest(app, key, { title: 'Polis', text: prose(3_000), collection: slug });
    expect((await settled(app, key, id)).status).to.equal('ready');
    const { webhook, event } = await eventOf('document.ready', (data) => data.document_id === id);
    expect(event).to.deep.include({ type: 'document.ready', workspace_id: workspaceId });
    expect(event.data).to.deep.equal({ document_id: id, collection: slug, status: 'ready' });
    expect(event.id).to.equal(webhook.headers['webhook-id']);
    expect(new Date(event.created_at).getTime()).to.be.closeTo(Date.now(), 60_000);
    expect(webhook.headers['content-type']).to.equal('application/json');
    // Another secret does not verify it.
    expect(() => new Webhook('whsec_' + Buffer.alloc(24, 7).toString('base64')).verify(webhook.body, webhook.headers)).to.throw();

    const rows = await waitFor(async () => {
      const all = (await deliveriesOf('document.ready')).filter((r) => r.data.document_id === id);
      return all.length === 1 && all[0].status === 'delivered' ? all : undefined;
    }, { what: 'the delivery row to say delivered' });
    expect(rows[0]).to.include({ status: 'delivered', attempts: 1 });
    expect(receiver.ofType('document.ready').filter((r) => JSON.parse(r.body).data.document_id === id)).to.have.length(1);
  });

  it('a document that fails sends document.failed', async () => {
    // A workspace policy that leaves the memory embedding model no provider fails an ingest
    // accepted before it was set (a new one is refused up front): stored directly, as then.
    const allow = async (providers: string[] | null) =>
      expect((await api(app.baseUrl, '/v1/settings/router', { method: 'PUT', key, body: { allowed_providers: providers } })).status).to.equal(200);
    await allow(['scaleway']);
    let document: any;
    let id: string;
    try {
      id = (
        await withTransaction(app.db.pool, (db) =>
          createDocument(db, { organizationId, workspaceId }, { title: 'Verboden', text: 'Medewerkers melden ziekte voor negen uur.', collection: slug }),
        )
      ).id;
      document = await settled(app, key, id);
    } finally {
      await allow(null);
    }
    expect(document.status).to.equal('failed');
    const { event } = await eventOf('document.failed', (data) => data.document_id === id);
    expect(event.data).to.deep.equal({ document_id: id, collection: slug, status: 'failed' });
    // The reason stays in the API, out of the event.
    expect(document.error).to.be.a('string').and.not.empty;
    expect(JSON.stringify(event)).not.to.contain(document.error);
  });

  it('an extraction sends facts.extracted with counts, never the facts themselves', async () => {
    const submitted = await api(app.baseUrl, '/v1/recall/facts', {
      method: 'POST',
      key,
      body: { content: 'I live in Utrecht. My favourite colour is green.', user_ref: 'anna' },
    });
    expect(submitted.status, submitted.text).to.equal(202);
    const { webhook, event } = await eventOf('facts.extracted', (data) => data.user_ref === 'anna');
    expect(Object.keys(event.data).sort()).to.deep.equal(['added', 'deleted', 'submission_id', 'updated', 'user_ref']);
    expect(event.data.added).to.be.greaterThan(0);
    expect(event.data).to.include({ updated: 0, deleted: 0, user_ref: 'anna' });
    const submission = await app.db.pool.query('select id from fact_submissions where workspace_id = $1 and user_ref = $2', [workspaceId, 'anna']);
    expect(event.data.submission_id).to.equal(submission.rows[0].id);
    expect(webhook.body).not.to.match(/Utrecht|green/i);
  });

  it('an erasure sends memory.erased, also one that found nothing', async () => {
    const erased = await api(app.baseUrl, '/v1/memory?user_ref=nobody-here', { method: 'DELETE', key });
    expect(erased.status, erased.text).to.equal(200);
    const { event } = await eventOf('memory.erased', (data) => data.user_ref === 'nobody-here');
    expect(event.data).to.deep.equal({
      user_ref: 'nobody-here',
      deleted: { facts: 0, submissions: 0, threads: 0, traces: 0, replays: 0, cache_entries: 0, responses: 0 },
    });

    await waitFor(async () => receiver.ofType('facts.extracted').length > 0, { what: 'the facts of anna' });
    const anna = await api(app.baseUrl, '/v1/memory?user_ref=anna', { method: 'DELETE', key });
    expect(anna.status, anna.text).to.equal(200);
    const { event: annaEvent } = await eventOf('memory.erased', (data) => data.user_ref === 'anna');
    expect(annaEvent.data.deleted).to.deep.equal(anna.body.deleted);
    expect(annaEvent.data.deleted.facts).to.be.greaterThan(0);
    // The earlier events that named anna went with the erasure; only the erasure's own is left.
    const left = await app.db.pool.query(`select type from webhook_events where workspace_id = $1 and data ->> 'user_ref' = 'anna'`, [workspaceId]);
    expect(left.rows.map((r) => r.type)).to.deep.equal(['memory.erased']);
  });

  it('sends only the events an enabled endpoint subscribed to', async () => {
    const other = await startWebhookReceiver();
    try {
      const onlyErasures = await api(app.baseUrl, '/v1/webhooks', { method: 'POST', key, body: { url: other.url, events: ['memory.erased'] } });
      const disabled = await api(app.baseUrl, '/v1/webhooks', {
        method: 'POST',
        key,
        body: { url: `${other.url}/disabled`, events: ['document.ready', 'memory.erased'], enabled: false },
      });
      expect(onlyErasures.status).to.equal(201);
      expect(disabled.status).to.equal(201);
      const id = await ingest(app, key, { title: 'Nog een', text: prose(1_000), collection: slug });
      await settled(app, key, id);
      await api(app.baseUrl, '/v1/memory?user_ref=bert', { method: 'DELETE', key });
      await waitFor(async () => other.ofType('memory.erased').length === 1, { what: 'the erasure at the second receiver' });
      await eventOf('document.ready', (data) => data.document_id === id);
      expect(other.received.map((r) => [r.path, JSON.parse(r.body).type])).to.deep.equal([['/hooks', 'memory.erased']]);
      const rows = await app.db.pool.query('select count(*)::int as n from webhook_deliveries where endpoint_id = $1', [disabled.body.data.id]);
      expect(rows.rows[0].n).to.equal(0);
    } finally {
      await other.close();
    }
  });

  it('records no event when no endpoint subscribes to it', async () => {
    const lonely = await app.key({ org: 'acme', workspace: 'lonely' });
    await api(app.baseUrl, '/v1/memory?user_ref=x', { method: 'DELETE', key: lonely.key });
    const rows = await app.db.pool.query('select count(*)::int as n from webhook_events where workspace_id = $1', [lonely.workspace_id]);
    expect(rows.rows[0].n).to.equal(0);
  });
});
