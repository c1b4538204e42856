import { expect } from 'chai';
import { chatBody, postChat, startGatewayFixture, type GatewayFixture } from '../helpers/gateway.js';

// What an operator's dashboard sees of chat traffic on /metrics.
describe('chat traffic on /metrics', () => {
  let gw: GatewayFixture;
  before(async () => {
    gw = await startGatewayFixture();
  });
  after(async () => {
    await gw.close();
  });

  const sample = (text: string, name: string, labels: Record<string, string>) => {
    const line = text
      .split('\n')
      .find((l) => l.startsWith(`${name}{`) && Object.entries(labels).every(([k, v]) => l.includes(`${k}="${v}"`)));
    return line ? Number(line.split(' ').at(-1)) : 0;
  };

  it('counts upstream outcomes, fallbacks, cache results and firewall detections', async () => {
    const before = await (await fetch(`${gw.app.baseUrl}/metrics`)).text();
    gw.euA.script({ type: 'status', status: 503 });
    const response = await postChat(gw, chatBody({ messages: [{ role: 'user', content: 'mail me at fallback.test@example.nl' }] }));
    expect(response.status).to.equal(200);
    const after = await (await fetch(`${gw.app.baseUrl}/metrics`)).text();
    const delta = (name: string, labels: Record<string, string>) => sample(after, name, labels) - sample(before, name, labels);
    expect(delta('polder_upstream_request_duration_seconds_count', { provider: 'eu-a', outcome: 'unavailable' })).to.equal(1);
    expect(delta('polder_upstream_request_duration_seconds_count', { provider: 'eu-b', outcome: 'ok' })).to.equal(1);
    expect(delta('polder_upstream_fallbacks_total', { from_provider: 'eu-a', to_provider: 'eu-b' })).to.equal(1);
    expect(delta('polder_chat_cache_results_total', { status: 'MISS' })).to.equal(1);
    expect(delta('polder_firewall_detections_total', { type: 'EMAIL' })).to.equal(1);
    expect(delta('polder_http_requests_total', { route: '/v1/chat/completions', status: '200' })).to.equal(1);
  });
});
