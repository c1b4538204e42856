import { expect } from 'chai';
import type { ChildProcess } from 'node:child_process';
import { api, startTestApp, type TestApp } from '../helpers/app.js';
import { waitFor } from '../helpers/db.js';
import { exited, startProcess } from '../helpers/processes.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhookReceiver.js';

// The Procfile's worker process, killed (SIGKILL) while it waits on a receiver's answer. The
// job stays locked by the dead worker until src/workerLiveness.ts frees it; the next worker
// sends the delivery again, with the same webhook-id, so the receiver can tell it is one message.
describe('a worker killed mid-delivery', function () {
  this.timeout(120_000);
  let app: TestApp;
  let receiver: WebhookReceiver;
  const children: ChildProcess[] = [];
  before(async () => {
    // The API only: every worker here is a process of its own.
    app = await startTestApp({ env: { WEBHOOKS_ALLOW_HTTP: '1' } });
    receiver = await startWebhookReceiver();
  });
  after(async () => {
    const running = children.filter((child) => child.exitCode === null && child.signalCode === null);
    for (const child of running) child.kill('SIGKILL');
    await Promise.all(running.map((child) => exited(child)));
    await receiver.close();
    await app.close();
  });

  const worker = () => {
    const started = startProcess('src/worker.js', { DATABASE_URL: app.db.url, LOG_LEVEL: 'info', WEBHOOKS_ALLOW_HTTP: '1' });
    children.push(started.child);
    return started;
  };

  it('still delivers, at least once, with a stable webhook-id', async () => {
    const { key } = await app.key();
    const created = await api(app.baseUrl, '/v1/webhooks', { method: 'POST', key, body: { url: receiver.url, events: ['memory.erased'] } });
    expect(created.status, created.text).to.equal(201);
    const endpointId = created.body.data.id as string;
    receiver.script({ type: 'hang' });
    expect((await api(app.baseUrl, '/v1/memory?user_ref=kim', { method: 'DELETE', key })).status).to.equal(200);

    const doomed = worker();
    await waitFor(async () => receiver.received.length === 1, { timeoutMs: 20_000, what: `the first worker to post\n${doomed.output()}` });
    doomed.child.kill('SIGKILL');
    await exited(doomed.child);
    const [delivery] = (await api(app.baseUrl, `/v1/webhooks/${endpointId}/deliveries`, { key })).body.data;
    // Nothing was recorded of the attempt that died with the worker.
    expect(delivery).to.include({ status: 'pending', attempts: 0 });

    const rescuer = worker();
    const delivered = await waitFor(
      async () => {
        const [row] = (await api(app.baseUrl, `/v1/webhooks/${endpointId}/deliveries`, { key })).body.data;
        return row.status === 'delivered' ? row : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 200, what: `the rescuing worker to deliver\n${rescuer.output()}` },
    );
    expect(delivered).to.include({ attempts: 1, last_status_code: 200 });
    expect(receiver.received).to.have.length(2);
    expect(receiver.received.map((r) => r.headers['webhook-id'])).to.deep.equal([delivered.event_id, delivered.event_id]);
    expect(receiver.received[0]!.body).to.equal(receiver.received[1]!.body);
    expect(rescuer.output()).to.contain('released the jobs of worker pools whose heartbeat stopped');
    rescuer.child.kill('SIGTERM');
    expect(await exited(rescuer.child)).to.equal(0);
  });
});
