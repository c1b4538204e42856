import { expect } from 'chai';
import { api, startTestApp, type TestApp } from '../helpers/app.js';
import { waitFor } from '../helpers/db.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhookReceiver.js';

// One organization's receivers that hang must not hold up another organization's webhooks: a
// workspace's attempts hold at most two slots of the delivery pool at once, however many endpoints
// it has (here 4 of its own against a pool of 4).
describe('webhook delivery: one workspace cannot fill the pool', function () {
  this.timeout(60_000);
  const TIMEOUT_MS = 1500;
  let app: TestApp;
  let hanging: WebhookReceiver;
  let healthy: WebhookReceiver;

  before(async () => {
    app = await startTestApp({ env: { WEBHOOKS_ALLOW_HTTP: '1' } });
    await app.startWorker({ concurrency: 4, webhooks: { retryDelaysMs: [60_000], jitter: 0, timeoutMs: TIMEOUT_MS, slotWaitMs: 100 } });
    [hanging, healthy] = await Promise.all([startWebhookReceiver(), startWebhookReceiver()]);
  });
  after(async () => {
    await Promise.all([hanging.close(), healthy.close()]);
    await app.close();
  });

  const endpoint = async (key: string, url: string) => {
    const response = await api(app.baseUrl, '/v1/webhooks', { method: 'POST', key, body: { url, events: ['memory.erased'] } });
    expect(response.status, response.text).to.equal(201);
    return response.body.data.id as string;
  };
  const erase = async (key: string, userRef: string) => {
    const response = await api(app.baseUrl, `/v1/memory?user_ref=${userRef}`, { method: 'DELETE', key });
    expect(response.status, response.text).to.equal(200);
  };

  it("delivers another workspace's webhook at once while one workspace's four receivers hang, and sends that one's two at a time", async () => {
    const stuck = (await app.key({ org: 'stuck', workspace: 'w' })).key;
    const other = (await app.key({ org: 'other', workspace: 'w' })).key;
    const stuckEndpoints = [];
    for (let i = 0; i < 4; i++) stuckEndpoints.push(await endpoint(stuck, `${hanging.url}/${i}`));
    const otherEndpoint = await endpoint(other, healthy.url);
    hanging.script({ type: 'hang' }, { type: 'hang' }, { type: 'hang' }, { type: 'hang' });

    await erase(stuck, 'klant-1');
    await waitFor(async () => hanging.received.length >= 2 || undefined, { what: 'two attempts at the hanging receivers' });
    const asked = Date.now();
    await erase(other, 'klant-2');
    await waitFor(async () => healthy.received.length === 1 || undefined, { what: "the other workspace's webhook", timeoutMs: 10_000 });
    // Not after a timeout of the hanging ones: a slot of the pool was free for it.
    expect(healthy.received[0]!.at - asked).to.be.below(TIMEOUT_MS - 300);
    const delivered = await waitFor(
      async () => (await api(app.baseUrl, `/v1/webhooks/${otherEndpoint}/deliveries`, { key: other })).body.data.find((d: any) => d.status === 'delivered'),
      { what: 'the delivery marked delivered' },
    );
    expect(delivered).to.include({ status: 'delivered', attempts: 1 });

    // The stuck workspace's four attempts went two at a time: the third began once the first ended.
    await waitFor(async () => hanging.received.length === 4 || undefined, { what: 'all four attempts', timeoutMs: 10_000 });
    const starts = hanging.received.map((r) => r.at).sort((a, b) => a - b);
    expect(starts[2]! - starts[0]!).to.be.at.least(TIMEOUT_MS - 100);
    // Waiting for a slot is no attempt: each delivery counts one, the timeout.
    for (const id of stuckEndpoints) {
      const delivery = await waitFor(
        async () => (await api(app.baseUrl, `/v1/webhooks/${id}/deliveries`, { key: stuck })).body.data.find((d: any) => d.attempts > 0),
        { what: `the attempt of ${id} to end` },
      );
      expect(delivery).to.include({ event_type: 'memory.erased', status: 'pending', attempts: 1, last_error: `timed out after ${TIMEOUT_MS / 1000} s` });
    }
    expect((await app.db.pool.query('select count(*)::int as n from webhook_delivery_slots')).rows[0].n).to.equal(0);
  });
});
