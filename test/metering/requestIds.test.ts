import { expect } from 'chai';
import type { CreatedKey } from '../../src/tenancy/keys.js';
import { api, startTestApp, type TestApp } from '../helpers/app.js';

describe('metering/requestIds', () => {
  let app: TestApp;
  let key: CreatedKey;
  before(async () => {
    app = await startTestApp();
    key = await app.key();
  });
  after(async () => {
    await app.close();
  });

  it('refuses an id that a usage row already bills, such as a document ingest', async () => {
    await app.db.pool.query(
      `insert into usage (organization_id, workspace_id, request_id, kind, model, prompt_tokens, created_at)
       values ($1, $2, 'ingest:3f1c2a9e-0000-4000-8000-000000000001', 'ingest', 'local/embed-1024', 12, now())`,
      [key.organization_id, key.workspace_id],
    );
    const response = await api(app.baseUrl, '/v1/chat/completions', {
      method: 'POST',
      key: key.key,
      headers: { 'x-request-id': 'ingest:3f1c2a9e-0000-4000-8000-000000000001' },
      body: { model: 'local/echo', messages: [{ role: 'user', content: 'Hoi' }] },
    });
    expect(response.status).to.equal(422);
    expect(response.body.errors['X-Request-Id'][0]).to.match(/already used/);
    const claims = await app.db.pool.query('select 1 from requests where request_id = $1', ['ingest:3f1c2a9e-0000-4000-8000-000000000001']);
    expect(claims.rowCount).to.equal(0);
  });
});
