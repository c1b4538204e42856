import { expect } from 'chai';
import { Webhook } from 'standardwebhooks';
import { api, type TestApp } from '../helpers/app.js';
import { waitFor } from '../helpers/db.js';
import { startWebhookReceiver, startWebhookTestbed, type WebhookReceiver } from '../helpers/webhookReceiver.js';

// Reaching 80 % and 100 % of a workspace budget is sent as budget.threshold, from the statement
// that bills the request that crossed the mark, or from the first refusal of a spent budget.
describe('webhook budget.threshold', function () {
  this.timeout(30_000);
  let app: TestApp;
  let receiver: WebhookReceiver;
  before(async () => {
    ({ app, receiver } = await startWebhookTestbed());
  });
  after(async () => {
    await Promise.all([app.close(), receiver.close()]);
  });

  const embed = (key: string) =>
    api(app.baseUrl, '/v1/embeddings', { method: 'POST', key, body: { model: 'local/embed-1024', input: 'woord '.repeat(1000) } });

  it('sends an organization budget\'s marks to each of its workspaces that subscribed', async () => {
    const first = await app.key({ org: 'lotte', workspace: 'team-a' });
    const second = await app.key({ org: 'lotte', workspace: 'team-b' });
    const other = await startWebhookReceiver();
    try {
      const a = await api(app.baseUrl, '/v1/webhooks', { method: 'POST', key: first.key, body: { url: other.url, events: ['budget.threshold'] } });
      const b = await api(app.baseUrl, '/v1/webhooks', { method: 'POST', key: second.key, body: { url: `${other.url}/b`, events: ['budget.threshold'] } });
      expect([a.status, b.status]).to.deep.equal([201, 201]);
      const set = await api(app.baseUrl, '/v1/settings/limits', { method: 'PUT', key: first.key, body: { organization: { credits_per_day: 0.0045 } } });
      expect(set.status, set.text).to.equal(200);
      for (let i = 0; i < 4; i++) expect((await embed(i % 2 ? second.key : first.key)).status).to.equal(200);
      await waitFor(async () => other.received.length === 2, { what: 'the 80 % mark at both workspaces' });
      const events = other.received.map((r) => JSON.parse(r.body));
      expect(events.map((e) => e.workspace_id).sort()).to.deep.equal([first.workspace_id, second.workspace_id].sort());
      for (const event of events) expect(event.data).to.include({ level: 'organization', window: 'day', percent: 80 });
    } finally {
      await other.close();
    }
  });

  it('sends 80 % and 100 % once each', async () => {
    const { key, workspace_id } = await app.key({ org: 'marks', workspace: 'w' });
    const endpoint = await api(app.baseUrl, '/v1/webhooks', { method: 'POST', key, body: { url: receiver.url, events: ['budget.threshold'] } });
    expect(endpoint.status, endpoint.text).to.equal(201);
    expect((await api(app.baseUrl, '/v1/settings/limits', { method: 'PUT', key, body: { workspace: { credits_per_day: 0.005 } } })).status).to.equal(200);
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) {
      const response = await api(app.baseUrl, '/v1/embeddings', { method: 'POST', key, body: { model: 'local/embed-1024', input: 'woord '.repeat(1000) } });
      statuses.push(response.status);
    }
    // The 100 % mark comes when billing reaches it or, as here, when the spent budget first refuses.
    expect(statuses.at(-1)).to.equal(402);
    const expected = [80, 100];
    await waitFor(async () => receiver.received.length === expected.length, { what: 'the threshold webhooks' });
    const events = receiver.received.map((r) => new Webhook(endpoint.body.data.secret).verify(r.body, r.headers) as any);
    expect(events.map((e) => e.data.percent).sort((a, b) => a - b)).to.deep.equal(expected);
    for (const event of events) {
      expect(event).to.deep.include({ type: 'budget.threshold', workspace_id });
      expect(event.data).to.include({ level: 'workspace', window: 'day', limit: 0.005, scope_id: workspace_id });
    }
  });
});
