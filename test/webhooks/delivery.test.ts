import { expect } from 'chai';
import { Webhook } from 'standardwebhooks';
import { api, startTestApp, type TestApp } from '../helpers/app.js';
import { waitFor } from '../helpers/db.js';
import { createLogger } from '../../src/logger.js';
import { registry } from '../../src/metrics.js';
import { deliverWebhook, DEFAULT_WEBHOOK_DELIVERY, MAX_RESPONSE_BYTES } from '../../src/webhooks/delivery.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhookReceiver.js';

// Deliveries through a real graphile-worker to a real receiver: retried on a non-2xx answer or a
// timeout on the schedule of the options (here milliseconds instead of minutes), then failed.
describe('webhook delivery', function () {
  this.timeout(60_000);
  let app: TestApp;
  let receiver: WebhookReceiver;
  let key: string;
  let workspaceId: string;
  const TIMEOUT_MS = 400;

  before(async () => {
    app = await startTestApp({ env: { WEBHOOKS_ALLOW_HTTP: '1' } });
    await app.startWorker({ webhooks: { retryDelaysMs: [30, 30, 30], jitter: 0, timeoutMs: TIMEOUT_MS } });
    const created = await app.key();
    key = created.key;
    workspaceId = created.workspace_id;
  });
  beforeEach(async () => {
    receiver = await startWebhookReceiver();
  });
  afterEach(async () => {
    await receiver.close();
  });
  after(async () => {
    await app.close();
  });

  const createEndpoint = async (url = receiver.url) => {
    const response = await api(app.baseUrl, '/v1/webhooks', { method: 'POST', key, body: { url, events: ['memory.erased'] } });
    expect(response.status, response.text).to.equal(201);
    return response.body.data as { id: string; secret: string };
  };
  const erase = async (userRef: string) => {
    const response = await api(app.baseUrl, `/v1/memory?user_ref=${userRef}`, { method: 'DELETE', key });
    expect(response.status, response.text).to.equal(200);
  };
  const deliveries = async (endpointId: string) => {
    const response = await api(app.baseUrl, `/v1/webhooks/${endpointId}/deliveries`, { key });
    expect(response.status, response.text).to.equal(200);
    return response.body.data as any[];
  };
  const settledDelivery = (endpointId: string, status = 'delivered') =>
    waitFor(async () => (await deliveries(endpointId)).find((d) => d.status === status), { what: `a ${status} delivery`, timeoutMs: 20_000 });

  const attemptCounts = async () =>
    Object.fromEntries((await registry.getSingleMetric('polder_webhook_attempts_total')!.get()).values.map((v) => [v.labels.outcome, v.value]));

  it('a receiver answering 500 twice, then 200: three attempts, delivered once, the row shows it', async () => {
    const counted = await attemptCounts();
    const endpoint = await createEndpoint();
    receiver.script({ type: 'status', status: 500, body: 'down' }, { type: 'status', status: 500, body: 'still down' });
    await erase('retried');
    const delivery = await settledDelivery(endpoint.id);
    expect(delivery).to.include({ event_type: 'memory.erased', status: 'delivered', attempts: 3, last_status_code: 200, last_error: null, next_attempt_at: null });
    expect(delivery.last_response).to.equal('ok');
    expect(receiver.received).to.have.length(3);
    // One message, three attempts: the same webhook-id and body each time, each signed afresh.
    expect(new Set(receiver.received.map((r) => r.headers['webhook-id']))).to.deep.equal(new Set([delivery.event_id]));
    expect(new Set(receiver.received.map((r) => r.body)).size).to.equal(1);
    for (const attempt of receiver.received) new Webhook(endpoint.secret).verify(attempt.body, attempt.headers);
    // /metrics of the worker counts each attempt by its outcome.
    const now = await attemptCounts();
    expect({ delivered: now.delivered! - counted.delivered!, retry: now.retry! - counted.retry!, failed: now.failed! - counted.failed! }).to.deep.equal({
      delivered: 1,
      retry: 2,
      failed: 0,
    });
  });

  it('a receiver that hangs: the attempt times out and is retried', async () => {
    const endpoint = await createEndpoint();
    receiver.script({ type: 'hang' });
    await erase('hanging');
    const pending = await waitFor(async () => (await deliveries(endpoint.id)).find((d) => d.attempts === 1), { what: 'the first attempt to end' });
    expect(pending).to.include({ status: 'pending', last_status_code: null, last_error: `timed out after ${TIMEOUT_MS / 1000} s` });
    const delivery = await settledDelivery(endpoint.id);
    expect(delivery).to.include({ attempts: 2, last_status_code: 200 });
    expect(receiver.received).to.have.length(2);
    expect(receiver.received[1]!.at - receiver.received[0]!.at).to.be.at.least(TIMEOUT_MS - 50);
  });

  it('fails a delivery once the schedule is spent; a retry over the API sends it again', async () => {
    const endpoint = await createEndpoint();
    receiver.script(...Array.from({ length: 4 }, () => ({ type: 'status' as const, status: 503, body: 'x'.repeat(10_000) })));
    await erase('failing');
    const failed = await settledDelivery(endpoint.id, 'failed');
    expect(failed).to.include({ attempts: 4, last_status_code: 503, last_error: 'the receiver answered 503', next_attempt_at: null });
    // The answer is kept, cut at 4 KiB.
    expect(failed.last_response).to.have.length(MAX_RESPONSE_BYTES);
    expect(receiver.received).to.have.length(4);

    // Not while the endpoint is disabled: the attempt would only fail again.
    await api(app.baseUrl, `/v1/webhooks/${endpoint.id}`, { method: 'PATCH', key, body: { enabled: false } });
    const refused = await api(app.baseUrl, `/v1/webhooks/${endpoint.id}/deliveries/${failed.id}/retry`, { method: 'POST', key });
    expect(refused.status).to.equal(409);
    expect(refused.body.message).to.match(/is disabled; enable it/);
    await api(app.baseUrl, `/v1/webhooks/${endpoint.id}`, { method: 'PATCH', key, body: { enabled: true } });

    const retried = await api(app.baseUrl, `/v1/webhooks/${endpoint.id}/deliveries/${failed.id}/retry`, { method: 'POST', key });
    expect(retried.status, retried.text).to.equal(200);
    expect(retried.body.data).to.include({ id: failed.id, status: 'pending' });
    const delivered = await settledDelivery(endpoint.id);
    expect(delivered).to.include({ id: failed.id, attempts: 5, last_status_code: 200 });
    expect(receiver.received[4]!.headers['webhook-id']).to.equal(failed.event_id);
  });

  it('does not follow a redirect', async () => {
    const elsewhere = await startWebhookReceiver();
    try {
      const endpoint = await createEndpoint();
      receiver.script(...Array.from({ length: 4 }, () => ({ type: 'status' as const, status: 307, headers: { location: elsewhere.url } })));
      await erase('redirected');
      const failed = await settledDelivery(endpoint.id, 'failed');
      expect(failed.last_status_code).to.equal(307);
      expect(failed.last_error).to.equal('the receiver answered 307 (redirects are not followed)');
      expect(elsewhere.received).to.have.length(0);
    } finally {
      await elsewhere.close();
    }
  });

  it('POST /test sends a webhook.test event to that endpoint', async () => {
    const endpoint = await createEndpoint();
    const sent = await api(app.baseUrl, `/v1/webhooks/${endpoint.id}/test`, { method: 'POST', key });
    expect(sent.status, sent.text).to.equal(200);
    expect(sent.body.data).to.include({ event_type: 'webhook.test', status: 'pending', attempts: 0 });
    await settledDelivery(endpoint.id);
    const event = new Webhook(endpoint.secret).verify(receiver.received[0]!.body, receiver.received[0]!.headers) as any;
    expect(event).to.deep.include({ type: 'webhook.test', workspace_id: workspaceId, data: { endpoint_id: endpoint.id } });
  });

  it('after a rotation, both the new and the old secret verify for a while', async () => {
    const endpoint = await createEndpoint();
    const rotated = await api(app.baseUrl, `/v1/webhooks/${endpoint.id}/rotate-secret`, { method: 'POST', key });
    expect(rotated.status, rotated.text).to.equal(200);
    const newSecret = rotated.body.data.secret as string;
    expect(newSecret).to.match(/^whsec_[A-Za-z0-9+/]{32}$/).and.not.equal(endpoint.secret);
    expect(new Date(rotated.body.data.previous_secret_signs_until).getTime()).to.be.closeTo(Date.now() + 24 * 3600_000, 60_000);
    await api(app.baseUrl, `/v1/webhooks/${endpoint.id}/test`, { method: 'POST', key });
    await settledDelivery(endpoint.id);
    const [webhook] = receiver.received;
    expect(webhook!.headers['webhook-signature']!.split(' ')).to.have.length(2);
    new Webhook(newSecret).verify(webhook!.body, webhook!.headers);
    new Webhook(endpoint.secret).verify(webhook!.body, webhook!.headers);

    // Once the 24 hours are over, the old secret no longer signs.
    await app.db.pool.query(
      `update webhook_endpoints
          set retired_secrets = (select jsonb_agg(jsonb_set(r, '{until}', to_jsonb(now() - interval '1 second'))) from jsonb_array_elements(retired_secrets) r)
        where id = $1`,
      [endpoint.id],
    );
    await api(app.baseUrl, `/v1/webhooks/${endpoint.id}/test`, { method: 'POST', key });
    await waitFor(async () => receiver.received.length === 2, { what: 'the second test event' });
    const second = receiver.received[1]!;
    new Webhook(newSecret).verify(second.body, second.headers);
    expect(() => new Webhook(endpoint.secret).verify(second.body, second.headers)).to.throw();
  });

  it('a second rotation within the day keeps the first secret signing, beside the two after it', async () => {
    const endpoint = await createEndpoint();
    const rotate = async () => (await api(app.baseUrl, `/v1/webhooks/${endpoint.id}/rotate-secret`, { method: 'POST', key })).body.data.secret as string;
    const first = await rotate();
    const second = await rotate();
    await api(app.baseUrl, `/v1/webhooks/${endpoint.id}/test`, { method: 'POST', key });
    await settledDelivery(endpoint.id);
    const [webhook] = receiver.received;
    expect(webhook!.headers['webhook-signature']!.split(' ')).to.have.length(3);
    for (const secret of [second, first, endpoint.secret]) new Webhook(secret).verify(webhook!.body, webhook!.headers);
    // A burst of rotations signs with the newest few retired secrets, not with every one.
    for (let i = 0; i < 6; i++) await rotate();
    await api(app.baseUrl, `/v1/webhooks/${endpoint.id}/test`, { method: 'POST', key });
    await waitFor(async () => receiver.received.length === 2, { what: 'the second test event' });
    expect(receiver.received[1]!.headers['webhook-signature']!.split(' ')).to.have.length(5);
  });

  it('disables an endpoint that has failed for 3 days, and says so in the audit log', async () => {
    const endpoint = await createEndpoint();
    await app.db.pool.query(`update webhook_endpoints set failing_since = now() - interval '3 days 1 minute' where id = $1`, [endpoint.id]);
    receiver.script(...Array.from({ length: 4 }, () => ({ type: 'status' as const, status: 500 })));
    await erase('given-up');
    await waitFor(async () => !(await api(app.baseUrl, `/v1/webhooks/${endpoint.id}`, { key })).body.data.enabled, { what: 'the endpoint to be disabled' });
    const shown = (await api(app.baseUrl, `/v1/webhooks/${endpoint.id}`, { key })).body.data;
    expect(shown.disabled_reason).to.equal('every delivery failed for 72 hours');
    const audit = await api(app.baseUrl, '/v1/audit-log?action=webhook.disabled', { key });
    expect(audit.status, audit.text).to.equal(200);
    const entries = audit.body.data.filter((e: any) => e.target === endpoint.id);
    expect(entries).to.have.length(1);
    expect(entries[0].actor).to.include({ kind: 'service' });
    // The delivery that was still pending ends failed: a disabled endpoint is sent nothing more.
    const failed = await settledDelivery(endpoint.id, 'failed');
    expect(failed.last_error).to.equal('the endpoint is disabled');
    expect(failed.attempts, 'what was sent, not the give-up that sent nothing').to.equal(receiver.received.length);
    // A test event is still sent to it, once: a failing check is not tried again for a day.
    receiver.script({ type: 'status', status: 500 });
    const test = await api(app.baseUrl, `/v1/webhooks/${endpoint.id}/test`, { method: 'POST', key });
    const checked = await waitFor(async () => (await deliveries(endpoint.id)).find((d) => d.id === test.body.data.id && d.status !== 'pending'), {
      what: 'the test event to the disabled endpoint',
    });
    expect(checked).to.include({ status: 'failed', attempts: 1, next_attempt_at: null });
    // Enabled again, it starts afresh.
    const enabled = await api(app.baseUrl, `/v1/webhooks/${endpoint.id}`, { method: 'PATCH', key, body: { enabled: true } });
    expect(enabled.body.data).to.include({ enabled: true, disabled_reason: null, failing_since: null });
  });

  it('checks the address again at delivery: a host that now resolves to loopback is refused', async () => {
    const endpoint = await createEndpoint();
    // As if the host's DNS answered a public address at creation and loopback now (rebinding).
    const port = new URL(receiver.url).port;
    await app.db.pool.query('update webhook_endpoints set url = $2 where id = $1', [endpoint.id, `https://localhost:${port}/hooks`]);
    const sent = await api(app.baseUrl, `/v1/webhooks/${endpoint.id}/test`, { method: 'POST', key });
    // This attempt by hand, with the production rules (no WEBHOOKS_ALLOW_HTTP), not by the worker.
    await app.db.pool.query('delete from graphile_worker._private_jobs where key = $1', [`webhooks__deliver:${sent.body.data.id}`]);
    await deliverWebhook({ db: app.db.pool, log: createLogger('silent') }, sent.body.data.id, { ...DEFAULT_WEBHOOK_DELIVERY, retryDelaysMs: [] });
    const [delivery] = await deliveries(endpoint.id);
    // The test worker may have made an attempt of its own before its job was deleted (it reads
    // loopback as allowed, and fails on TLS): the attempt by hand is the last one either way.
    expect(delivery).to.include({ status: 'failed', last_status_code: null });
    expect(delivery.attempts).to.be.within(1, 2);
    expect(delivery.last_error).to.match(/^not sent: the URL resolves to (127\.0\.0\.1|::1) \(localhost\), a private, loopback, link-local or reserved address$/);
    expect(receiver.received).to.have.length(0);
  });
});
