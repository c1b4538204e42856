import { expect } from 'chai';
import { Webhook } from 'standardwebhooks';
import { api, startTestApp, type TestApp } from '../helpers/app.js';
import { waitFor } from '../helpers/db.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhookReceiver.js';

// Reaching 80 % and 100 % of a workspace budget is sent as budget.threshold, from the statement
// that bills the request that crossed the mark.
describe('webhook budget.threshold', function () {
  this.timeout(30_000);
  let app: TestApp;
  let receiver: WebhookReceiver;
  before(async () => {
    app = await startTestApp({ env: { WEBHOOKS_ALLOW_HTTP: '1' } });
    await app.startWorker();
    receiver = await startWebhookReceiver();
  });
  after(async () => {
    await app.close();
    await receiver.close();
  });

  it('sends 80 % and 100 % once each', async () => {
    const { key, workspace_id } = await app.key({ org: 'marks', workspace: 'w' });
    const endpoint = await api(app.baseUrl, '/v1/webhooks', { method: 'POST', key, body: { url: receiver.url, events: ['budget.threshold'] } });
    expect(endpoint.status, endpoint.text).to.equal(201);
    expect((await api(app.baseUrl, '/v1/settings/limits', { method: 'PUT', key, body: { workspace: { credits_per_day: 0.005 } } })).status).to.equal(200);
    let answered = 0;
    for (let i = 0; i < 7; i++) {
      const response = await api(app.baseUrl, '/v1/embeddings', { method: 'POST', key, body: { model: 'local/embed-1024', input: 'woord '.repeat(1000) } });
      if (response.status === 200) answered += 1;
    }
    const expected = answered === 5 ? [80, 100] : [80];
    await waitFor(async () => receiver.received.length === expected.length, { what: 'the threshold webhooks' });
    const events = receiver.received.map((r) => new Webhook(endpoint.body.data.secret).verify(r.body, r.headers) as any);
    expect(events.map((e) => e.data.percent).sort((a, b) => a - b)).to.deep.equal(expected);
    for (const event of events) {
      expect(event).to.deep.include({ type: 'budget.threshold', workspace_id });
      expect(event.data).to.include({ level: 'workspace', window: 'day', limit: 0.005, scope_id: workspace_id });
    }
  });
});
