import { expect } from 'chai';
import { revokeKey } from '../../src/tenancy/keys.js';
import { api, startTestApp, type TestApp } from '../helpers/app.js';
import { waitFor } from '../helpers/db.js';

describe('authentication and scopes', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(async () => {
    await app.close();
  });

  function expectUnauthorized(response: Awaited<ReturnType<typeof api>>) {
    expect(response.status).to.equal(401);
    expect(response.body.message).to.be.a('string').and.not.be.empty;
    expect(response.body.error).to.include({ type: 'authentication_error' });
    expect(response.headers.get('x-request-id')).to.be.a('string');
  }

  it('answers 401 when the Authorization header is missing', async () => {
    const response = await api(app.baseUrl, '/v1/models');
    expectUnauthorized(response);
    expect(response.body.message).to.match(/missing Authorization/);
  });

  it('answers 401 for a malformed Authorization header or token', async () => {
    expectUnauthorized(await api(app.baseUrl, '/v1/models', { headers: { authorization: 'Basic abc' } }));
    expectUnauthorized(await api(app.baseUrl, '/v1/models', { headers: { authorization: 'Bearer' } }));
    expectUnauthorized(await api(app.baseUrl, '/v1/models', { key: 'not-a-polder-key' }));
  });

  it('answers 401 for a well-formed key that does not exist', async () => {
    const unknown = `pld_${'A'.repeat(43)}`;
    expectUnauthorized(await api(app.baseUrl, '/v1/models', { key: unknown }));
  });

  it('accepts a valid key, case-insensitively on "Bearer"', async () => {
    const { key } = await app.key();
    const response = await api(app.baseUrl, '/v1/models', { headers: { authorization: `bearer ${key}` } });
    expect(response.status).to.equal(200);
  });

  it('stops a revoked key within 5 seconds, even while it is cached', async () => {
    const created = await app.key();
    expect((await api(app.baseUrl, '/v1/models', { key: created.key })).status).to.equal(200);
    const revokedAt = Date.now();
    expect(await revokeKey(app.db.pool, created.key_id)).to.equal(true);
    await waitFor(
      async () => (await api(app.baseUrl, '/v1/models', { key: created.key })).status === 401,
      { timeoutMs: 5000, intervalMs: 100, what: 'the revoked key to be refused' },
    );
    expect(Date.now() - revokedAt).to.be.below(5000);
    expectUnauthorized(await api(app.baseUrl, '/v1/models', { key: created.key }));
  });

  it('answers 403 insufficient_scope when a restricted key lacks the route scope', async () => {
    const { key } = await app.key({ kind: 'restricted', scopes: ['chat.create'] });
    const response = await api(app.baseUrl, '/v1/audit-log', { key });
    expect(response.status).to.equal(403);
    expect(response.body).to.include({ code: 'insufficient_scope' });
    expect(response.body.message).to.contain('audit.read');
    expect(response.body.error).to.include({ type: 'permission_error', code: 'insufficient_scope' });
  });

  it('lets a restricted key with the scope through', async () => {
    const { key } = await app.key({ kind: 'restricted', scopes: ['audit.read'] });
    expect((await api(app.baseUrl, '/v1/audit-log', { key })).status).to.equal(200);
  });
});
