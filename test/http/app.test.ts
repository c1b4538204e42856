import { expect } from 'chai';
import { api, startTestApp, type TestApp } from '../helpers/app.js';
import { capturedLogger } from '../helpers/logs.js';

describe('app', () => {
  let app: TestApp;
  let logs: ReturnType<typeof capturedLogger>;
  let key: string;
  before(async () => {
    logs = capturedLogger();
    app = await startTestApp({ log: logs.log });
    key = (await app.key()).key;
  });
  after(async () => {
    await app.close();
  });

  it('answers an unknown route with a 404 JSON body', async () => {
    const response = await api(app.baseUrl, '/v1/no-such-thing', { key });
    expect(response.status).to.equal(404);
    expect(response.headers.get('content-type')).to.match(/application\/json/);
    expect(response.body.message).to.contain('/v1/no-such-thing');
    expect(response.body.error).to.include({ type: 'not_found_error' });
    const outside = await api(app.baseUrl, '/nowhere');
    expect(outside.status).to.equal(404);
    expect(outside.body.message).to.be.a('string');
  });

  it('refuses query parameters a read does not take, as the lists do (they were ignored on reads without parameters)', async () => {
    for (const path of ['/v1/models?limit=abc', '/v1/webhooks?unknown=1', '/v1/recall/collections?limit=5', '/v1/key?x=1', '/v1/budgets?x=1']) {
      const response = await api(app.baseUrl, path, { key });
      expect(response.status, path).to.equal(422);
      expect(Object.keys(response.body.errors), path).to.have.length(1);
    }
    expect((await api(app.baseUrl, '/v1/models', { key })).status).to.equal(200);
    // The probes outside /v1 take what a load balancer adds.
    expect((await api(app.baseUrl, '/healthz?probe=lb-1')).status).to.equal(200);
  });

  it('takes a long search in the query string, and answers a URL past the header limit with a JSON 431', async () => {
    // 3,000 accented characters: 18 KB percent-encoded, past Node's default of 16 KiB.
    const search = await api(app.baseUrl, `/v1/recall/facts?q=${encodeURIComponent('é'.repeat(3000))}`, { key });
    expect(search.status, search.text).to.equal(200);
    const huge = await fetch(`${app.baseUrl}/v1/models?x=${'a'.repeat(200 * 1024)}`, { headers: { authorization: `Bearer ${key}` } });
    expect(huge.status).to.equal(431);
    const body = (await huge.json()) as any;
    expect(body.message).to.match(/headers \(its URL included\) exceed 131072 bytes/);
    expect(body.error).to.include({ type: 'invalid_request_error', code: 'headers_too_large' });
  });

  it('echoes the caller request id, or generates one, on every response', async () => {
    const given = await api(app.baseUrl, '/v1/models', { key, headers: { 'x-request-id': 'req-123' } });
    expect(given.headers.get('x-request-id')).to.equal('req-123');
    const alias = await api(app.baseUrl, '/healthz', { headers: { 'idempotency-key': 'idem-9' } });
    expect(alias.headers.get('x-request-id')).to.equal('idem-9');
    const onError = await api(app.baseUrl, '/v1/models', { headers: { 'x-request-id': 'req-401' } });
    expect(onError.status).to.equal(401);
    expect(onError.headers.get('x-request-id')).to.equal('req-401');
    const generated = await api(app.baseUrl, '/healthz');
    expect(generated.headers.get('x-request-id')).to.match(/^[0-9a-f-]{36}$/);
    const tooLong = await api(app.baseUrl, '/healthz', { headers: { 'x-request-id': 'x'.repeat(256) } });
    expect(tooLong.headers.get('x-request-id')).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    // Made from the id, not at random: a retry with the same long key is the same request.
    const again = await api(app.baseUrl, '/healthz', { headers: { 'idempotency-key': 'x'.repeat(256) } });
    expect(again.headers.get('x-request-id')).to.equal(tooLong.headers.get('x-request-id'));
    const other = await api(app.baseUrl, '/healthz', { headers: { 'x-request-id': 'y'.repeat(256) } });
    expect(other.headers.get('x-request-id')).not.to.equal(tooLong.headers.get('x-request-id'));
  });

  it('reports health and readiness', async () => {
    expect((await api(app.baseUrl, '/healthz')).body).to.deep.equal({ status: 'ok' });
    const ready = await api(app.baseUrl, '/readyz');
    expect(ready.status).to.equal(200);
    // The spec's ReadinessStatus, which a probe written from it reads.
    expect(ready.body).to.deep.equal({ status: 'ok', checks: { database: true, migrations: true } });
  });

  it('serves the OpenAPI spec without a key', async () => {
    const response = await api(app.baseUrl, '/v1/openapi.json');
    expect(response.status).to.equal(200);
    expect(response.body.openapi).to.match(/^3\.1/);
    expect(response.body.info.version).to.equal('0.0.1');
    expect(response.body.paths).to.have.property('/chat/completions');
  });

  it('answers a wrong method on a known route with a JSON error', async () => {
    const response = await api(app.baseUrl, '/v1/models', { method: 'DELETE', key });
    expect(response.status).to.equal(405);
    expect(response.body.message).to.equal('/v1/models does not take DELETE; it takes HEAD, GET');
    expect(response.body.error).to.include({ type: 'invalid_request_error' });
    // RFC 9110: a 405 says which methods the resource takes (it did not).
    expect(response.headers.get('allow')).to.equal('HEAD, GET');
    // A method no route takes: 501 in the same body, not a bare 500.
    const unknown = await api(app.baseUrl, '/v1/models', { method: 'PROPFIND', key });
    expect(unknown.status).to.equal(501);
    expect(unknown.body.error).to.include({ type: 'invalid_request_error' });
  });

  it('logs one JSON line per request with the request id and never the bearer token', async () => {
    await api(app.baseUrl, '/v1/models', { key, headers: { 'x-request-id': 'log-check-1' } });
    const line = logs.lines().find((l) => l.request_id === 'log-check-1');
    expect(line, 'access log line').to.exist;
    expect(line).to.include({ msg: 'request', status: 200 });
    expect((line!.req as { headers: Record<string, string> }).headers.authorization).to.equal('[redacted]');
    expect(logs.text()).not.to.contain(key);
  });

  it('logs a failure the client saw (5xx) at warn, so LOG_LEVEL=warn still shows it with its request id; other answers at info', async () => {
    const quiet = capturedLogger('warn');
    const warnApp = await startTestApp({ log: quiet.log });
    try {
      const warnKey = (await warnApp.key()).key;
      await api(warnApp.baseUrl, '/v1/models', { key: warnKey, headers: { 'x-request-id': 'quiet-200' } });
      // Every provider of the bundled catalogue lacks its key here but `local`: an unavailable chain is a 503.
      const failed = await api(warnApp.baseUrl, '/v1/chat/completions', {
        method: 'POST',
        key: warnKey,
        headers: { 'x-request-id': 'quiet-503' },
        body: { model: 'mistral/mistral-small-latest', messages: [{ role: 'user', content: 'Hallo' }] },
      });
      expect(failed.status).to.be.at.least(500);
      expect(quiet.lines().find((l) => l.request_id === 'quiet-200')).to.equal(undefined);
      expect(quiet.lines().find((l) => l.request_id === 'quiet-503')).to.include({ msg: 'request', status: failed.status, level: 40 });
    } finally {
      await warnApp.close();
    }
  });

  it('never logs other credential headers, cookies, or the values of personal query parameters', async () => {
    const secretish = 'pk_live_should-not-appear-7c1';
    await api(app.baseUrl, '/v1/recall/facts?user_ref=jan.jansen%40example.nl&q=Jansen%20woont%20in%20Delft&limit=5', {
      key,
      headers: {
        'x-request-id': 'log-check-2',
        'x-api-key': secretish,
        'api-key': secretish,
        cookie: `session=${secretish}`,
        // Keys a caller may put in a header of any name, and an address a proxy adds.
        'x-goog-api-key': secretish,
        'x-auth-token': `${secretish}-2`,
        'x-webhook-secret': `whsec_${secretish}`,
        'x-forwarded-for': '198.51.100.23',
        'user-agent': 'OpenAI/JS 6.49.0',
      },
    });
    await api(app.baseUrl, '/v1/traces?user=jan.jansen%40example.nl&thread=t-jansen&tag=jansen&limit=3', { key, headers: { 'x-request-id': 'log-check-3' } });
    await api(app.baseUrl, '/v1/recall/threads/gesprek-met-jansen', { key });
    const text = logs.text();
    expect(text).to.contain('log-check-2');
    expect(text).not.to.contain(secretish);
    expect(text).not.to.match(/jansen/i);
    const line = logs.lines().find((l) => l.request_id === 'log-check-2')!;
    const req = line.req as { url: string; headers: Record<string, string> };
    // What an operator needs stays: the path, the parameter names, harmless values.
    expect(req.url).to.match(/^\/v1\/recall\/facts\?/);
    expect(req.url).to.contain('limit=5');
    expect(req.url).to.contain('user_ref=');
    expect(req.headers['x-api-key']).to.equal('[redacted]');
    expect(text).not.to.contain('198.51.100.23');
    expect(req.headers['x-goog-api-key']).to.equal('[redacted]');
    expect(req.headers['user-agent']).to.equal('OpenAI/JS 6.49.0');
  });

  it('logs a database error without the statement parameters or the values Postgres quotes', async () => {
    const failure = await app.db.pool.query('select $1::uuid', ['jan.jansen@example.nl']).catch((err: unknown) => err);
    const probe = capturedLogger();
    probe.log.error({ err: failure }, 'unhandled error');
    expect(probe.text()).to.contain('22P02');
    expect(probe.text()).to.contain('invalid input syntax for type uuid');
    expect(probe.text()).not.to.contain('jan.jansen');
  });
});
