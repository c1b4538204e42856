import { expect } from 'chai';
import { api, startTestApp, type TestApp } from '../helpers/app.js';
import { chatBody, postChat } from '../helpers/gateway.js';
import { startStubProvider, type StubProvider } from '../helpers/stubProvider.js';
import { SERVICES, loadTestCatalog } from '../helpers/catalog.js';

// The circuit breaker over real HTTP: the gateway in front of stub providers on loopback, each
// test on its own providers so their circuits do not meet. Cooldowns are short (set per provider
// in the catalogue) and every wait polls with a deadline.

const HANG_TIMEOUT_MS = 400;
const HANG_COOLDOWN_MS = 1_500;
const PROBE_DELAY_MS = 300;

describe('circuit breaker per provider endpoint', () => {
  let app: TestApp;
  let key: string;
  let hang: StubProvider; // brk-hang: hangs until scripted otherwise
  let ok: StubProvider; // brk-ok: the healthy fallback of every chain
  let limited: StubProvider; // brk-limited: answers a 429 with retry-after
  let downC: StubProvider; // brk-c and brk-d: the whole chain fails
  let downD: StubProvider;

  before(async () => {
    [hang, ok, limited, downC, downD] = await Promise.all([
      startStubProvider({ unscripted: { type: 'hang' } }),
      startStubProvider(),
      startStubProvider(),
      startStubProvider(),
      startStubProvider(),
    ]);
    const provider = (id: string, stub: StubProvider, extra = '') =>
      `  - {id: ${id}, region: eu, kind: openai, base_url: "${stub.url}", api_key: "\${STUB_KEY}", timeout_ms: ${HANG_TIMEOUT_MS}${extra}}`;
    const yaml = `
providers:
${provider('brk-hang', hang, `, circuit: {failures: 1, cooldown_ms: ${HANG_COOLDOWN_MS}}`)}
${provider('brk-ok', ok)}
${provider('brk-limited', limited)}
${provider('brk-c', downC, ', circuit: {failures: 1, cooldown_ms: 5000}')}
${provider('brk-d', downD, ', circuit: {failures: 1, cooldown_ms: 5000}')}
models:
  - {id: test/hang, type: chat, context_length: 32000, pricing: {prompt: 1, completion: 1},
     endpoints: [{provider: brk-hang, upstream_model: hang}, {provider: brk-ok, upstream_model: ok}]}
  - {id: test/limited, type: chat, context_length: 32000, pricing: {prompt: 1, completion: 1},
     endpoints: [{provider: brk-limited, upstream_model: limited}, {provider: brk-ok, upstream_model: ok}]}
  - {id: test/doomed, type: chat, context_length: 32000, pricing: {prompt: 1, completion: 1},
     endpoints: [{provider: brk-c, upstream_model: c}, {provider: brk-d, upstream_model: d}]}
  - {id: test/doomed-embed, type: embedding, dimensions: 8, reducible: false, max_input_tokens: 100, max_batch: 4,
     pricing: {prompt: 0.1}, endpoints: [{provider: brk-c, upstream_model: c-embed}, {provider: brk-d, upstream_model: d-embed}]}
${SERVICES}
`;
    app = await startTestApp({ catalog: loadTestCatalog(yaml, { STUB_KEY: 'sk-stub-secret' }).catalog });
    key = (await app.key()).key;
  });

  after(async () => {
    await app.close();
    await Promise.all([hang, ok, limited, downC, downD].map((s) => s.close()));
  });

  const fixture = () => ({ app, key });

  /** A chat through the gateway, timed by the test from send to the end of the body. */
  async function timedChat(model: string, headers: Record<string, string> = {}) {
    const started = performance.now();
    const response = await postChat(fixture(), chatBody({ model }), headers);
    const body = await response.json();
    return { status: response.status, provider: response.headers.get('x-provider'), body, ms: performance.now() - started, headers: response.headers };
  }

  async function metric(name: string, labels: Record<string, string>): Promise<number> {
    const text = await (await fetch(`${app.baseUrl}/metrics`)).text();
    const line = text
      .split('\n')
      .find((l) => l.startsWith(`${name}{`) && Object.entries(labels).every(([k, v]) => l.includes(`${k}="${v}"`)));
    return line ? Number(line.split(' ').at(-1)) : 0;
  }

  async function traceAttempts(requestId: string): Promise<any[]> {
    const trace = await api(app.baseUrl, `/v1/traces/${requestId}`, { key });
    expect(trace.status).to.equal(200);
    return trace.body.attempts;
  }

  it('a hanging endpoint costs its timeout once; then it is skipped at once; after the cooldown one probe; recovered, it closes', async () => {
    const opensBefore = await metric('polder_upstream_circuit_opens_total', { provider: 'brk-hang', reason: 'failures' });

    // 1. The first request pays the timeout and falls back.
    const first = await timedChat('test/hang');
    expect(first.status).to.equal(200);
    expect(first.provider).to.equal('brk-ok');
    expect(first.ms).to.be.at.least(HANG_TIMEOUT_MS);
    expect(hang.requests).to.have.length(1);
    expect(await metric('polder_upstream_circuit_state', { provider: 'brk-hang' })).to.equal(2);
    expect(await metric('polder_upstream_circuit_opens_total', { provider: 'brk-hang', reason: 'failures' })).to.equal(opensBefore + 1);

    // 2. The next 20 fall back without waiting, and the hanging endpoint is not asked.
    const times: number[] = [];
    for (let i = 0; i < 20; i++) {
      const r = await timedChat('test/hang', { 'x-request-id': `breaker-skip-${i}` });
      expect(r.status).to.equal(200);
      expect(r.provider).to.equal('brk-ok');
      times.push(r.ms);
    }
    expect(Math.max(...times), `latencies ${times.map((t) => t.toFixed(1)).join(', ')} ms`).to.be.below(100);
    expect(hang.requests).to.have.length(1);
    const attempts = await traceAttempts('breaker-skip-19');
    expect(attempts.map((a) => [a.provider, a.status, a.error])).to.deep.equal([
      ['brk-hang', null, 'skipped: circuit open'],
      ['brk-ok', 200, null],
    ]);

    // 3. After the cooldown, exactly one request probes it; the others skip it meanwhile. The stub
    //    has recovered (a slow answer, so the probe is in flight long enough to be overlapped).
    hang.script({ type: 'answer', delayMs: PROBE_DELAY_MS });
    const sent: Promise<Awaited<ReturnType<typeof timedChat>>>[] = [];
    const deadline = Date.now() + HANG_COOLDOWN_MS + 3_000;
    while (hang.requests.length < 2) {
      if (Date.now() > deadline) throw new Error('no probe reached the endpoint after its cooldown');
      sent.push(timedChat('test/hang'));
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    const duringProbe = await Promise.all(Array.from({ length: 5 }, () => timedChat('test/hang')));
    expect(duringProbe.map((r) => r.provider)).to.deep.equal(Array(5).fill('brk-ok'));
    expect(hang.requests, 'one probe only').to.have.length(2);

    // 4. The probe succeeded: it was served by the endpoint, and the circuit is closed.
    const polled = await Promise.all(sent);
    expect(polled.filter((r) => r.provider === 'brk-hang')).to.have.length(1);
    expect(polled.every((r) => r.status === 200)).to.equal(true);
    expect(await metric('polder_upstream_circuit_state', { provider: 'brk-hang' })).to.equal(0);
    hang.script({ type: 'answer' });
    const after = await timedChat('test/hang');
    expect(after.provider).to.equal('brk-hang');
    expect(hang.requests).to.have.length(3);
  });

  it('a 429 with retry-after: 2 skips the endpoint for 2 s, then uses it again', async () => {
    limited.script({ type: 'status', status: 429, retryAfter: '2' });
    const sentAt = Date.now();
    const first = await timedChat('test/limited');
    expect(first.provider).to.equal('brk-ok');
    expect(limited.requests).to.have.length(1);
    expect(await metric('polder_upstream_circuit_state', { provider: 'brk-limited' })).to.equal(2);

    // Poll with a deadline until the endpoint serves again; until then every request skips it.
    const skipped: number[] = [];
    let backAt: number | undefined;
    while (backAt === undefined) {
      if (Date.now() - sentAt > 5_000) throw new Error('the endpoint was not used again within 5 s');
      const r = await timedChat('test/limited');
      expect(r.status).to.equal(200);
      if (r.provider === 'brk-limited') backAt = Date.now();
      else {
        expect(r.ms).to.be.below(100);
        skipped.push(Date.now() - sentAt);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
    // The circuit opened when the 429 arrived (after sentAt), so it reopened ≥ 2 s after sentAt.
    expect(backAt - sentAt).to.be.at.least(2_000);
    expect(backAt - sentAt).to.be.below(3_000);
    expect(skipped.length).to.be.at.least(10);
    expect(limited.requests, 'asked only by the first request and the one after 2 s').to.have.length(2);
    expect(await metric('polder_upstream_circuit_state', { provider: 'brk-limited' })).to.equal(0);
  });

  it('every endpoint open: 503 with the attempts and retry-after, for chat, streams and embeddings alike', async () => {
    downC.script({ type: 'status', status: 503 });
    downD.script({ type: 'status', status: 502 });
    const failed = await timedChat('test/doomed');
    expect(failed.status).to.equal(503);
    expect(failed.body.attempts.map((a: any) => [a.provider, a.status])).to.deep.equal([
      ['brk-c', 503],
      ['brk-d', 502],
    ]);

    const open = await timedChat('test/doomed', { 'x-request-id': 'breaker-all-open' });
    expect(open.status).to.equal(503);
    expect(open.ms).to.be.below(100);
    expect(open.body).to.include({ message: 'every model and provider in the chain is unavailable' });
    expect(open.body.attempts).to.deep.equal([
      { model: 'test/doomed', provider: 'brk-c', status: null, error: 'skipped: circuit open' },
      { model: 'test/doomed', provider: 'brk-d', status: null, error: 'skipped: circuit open' },
    ]);
    expect(open.body.error).to.include({ type: 'api_error' });
    // Cooldown 5 s with jitter (4–5 s), some of it already gone: 1 to 5 whole seconds.
    const retryAfter = Number(open.headers.get('retry-after'));
    expect(retryAfter).to.be.within(1, 5);
    expect(Number.isInteger(retryAfter)).to.equal(true);
    expect((await traceAttempts('breaker-all-open')).map((a) => a.error)).to.deep.equal(['skipped: circuit open', 'skipped: circuit open']);

    const stream = await postChat(fixture(), chatBody({ model: 'test/doomed', stream: true }));
    expect(stream.status).to.equal(503);
    expect(Number(stream.headers.get('retry-after'))).to.be.within(1, 5);
    expect((await stream.json()).attempts.map((a: any) => a.error)).to.deep.equal(['skipped: circuit open', 'skipped: circuit open']);

    const embed = await api(app.baseUrl, '/v1/embeddings', { method: 'POST', key, body: { model: 'test/doomed-embed', input: ['hallo'] } });
    expect(embed.status).to.equal(503);
    expect(Number(embed.headers.get('retry-after'))).to.be.within(1, 5);
    expect(embed.body.attempts.map((a: any) => [a.provider, a.error])).to.deep.equal([
      ['brk-c', 'skipped: circuit open'],
      ['brk-d', 'skipped: circuit open'],
    ]);
    expect(downC.requests).to.have.length(1);
    expect(downD.requests).to.have.length(1);
  });
});
