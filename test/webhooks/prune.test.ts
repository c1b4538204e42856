import { expect } from 'chai';
import { addJob } from '../../src/jobs/registry.js';
import { postWebhook } from '../../src/webhooks/delivery.js';
import { api, type TestApp } from '../helpers/app.js';
import { waitFor } from '../helpers/db.js';
import { startWebhookTestbed, type WebhookReceiver } from '../helpers/webhookReceiver.js';

describe('webhooks: retention and the pinned connection', function () {
  this.timeout(30_000);
  let app: TestApp;
  let receiver: WebhookReceiver;
  before(async () => {
    ({ app, receiver } = await startWebhookTestbed());
  });
  after(async () => {
    await Promise.all([app.close(), receiver.close()]);
  });

  it('webhooks__prune deletes events and deliveries past 30 days, except those still pending', async () => {
    const { key } = await app.key();
    const endpoint = (await api(app.baseUrl, '/v1/webhooks', { method: 'POST', key, body: { url: receiver.url, events: ['memory.erased'] } })).body.data;
    const send = async () => (await api(app.baseUrl, `/v1/webhooks/${endpoint.id}/test`, { method: 'POST', key })).body.data.event_id as string;
    const [old, oldPending, fresh] = [await send(), await send(), await send()];
    await waitFor(async () => receiver.received.length === 3, { what: 'the three deliveries' });
    await app.db.pool.query(`update webhook_events set created_at = now() - interval '31 days' where id = any($1::uuid[])`, [[old, oldPending]]);
    await app.db.pool.query(`update webhook_deliveries set status = 'pending', next_attempt_at = now() + interval '1 hour' where event_id = $1`, [oldPending]);

    await addJob(app.db.pool, 'webhooks__prune', {});
    await waitFor(
      async () => (await app.db.pool.query("select 1 from graphile_worker.jobs where task_identifier = 'webhooks__prune'")).rowCount === 0,
      { what: 'the prune job to finish' },
    );
    const events = await app.db.pool.query('select id from webhook_events');
    expect(events.rows.map((r) => r.id).sort()).to.deep.equal([oldPending, fresh].sort());
    const deliveries = (await api(app.baseUrl, `/v1/webhooks/${endpoint.id}/deliveries`, { key })).body.data;
    expect(deliveries.map((d: any) => d.event_id).sort()).to.deep.equal([oldPending, fresh].sort());
  });

  it('connects to the address that was checked, whatever the host name would resolve to now', async () => {
    // hooks.invalid resolves nowhere: only a connection pinned to 127.0.0.1 can reach the receiver.
    const port = new URL(receiver.url).port;
    const before = receiver.received.length;
    const attempt = await postWebhook(
      { url: new URL(`http://hooks.invalid:${port}/pinned`), address: '127.0.0.1', family: 4 },
      { 'content-type': 'application/json' },
      '{}',
      2_000,
    );
    expect(attempt).to.include({ delivered: true, statusCode: 200 });
    expect(receiver.received).to.have.length(before + 1);
    expect(receiver.received[before]).to.include({ path: '/pinned' });
    expect(receiver.received[before]!.headers.host).to.equal(`hooks.invalid:${port}`);
  });
});
