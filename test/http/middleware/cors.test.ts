import { expect } from 'chai';
import type { CreatedKey } from '../../../src/tenancy/keys.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';

// A browser app calls the API as it calls OpenAI's, which answers CORS (QA: a preflight got no
// Access-Control-* header, so the OpenAI SDK in a browser could not call Polder at all).
describe('http/middleware/cors', () => {
  let app: TestApp;
  let key: CreatedKey;
  before(async () => {
    app = await startTestApp();
    key = await app.key();
  });
  after(async () => {
    await app.close();
  });

  const origin = 'https://app.example.eu';

  it('answers a preflight without a key: any origin, the methods, and the headers asked for', async () => {
    const response = await fetch(`${app.baseUrl}/v1/chat/completions`, {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type, x-stainless-os' },
    });
    expect(response.status).to.equal(204);
    expect(response.headers.get('access-control-allow-origin')).to.equal('*');
    expect(response.headers.get('access-control-allow-methods')).to.contain('POST');
    expect(response.headers.get('access-control-allow-headers')).to.equal('authorization, content-type, x-stainless-os');
  });

  it('lets a page read an answer, its errors too, and the headers that matter to a client', async () => {
    const models = await fetch(`${app.baseUrl}/v1/models`, { headers: { origin, authorization: `Bearer ${key.key}` } });
    expect(models.status).to.equal(200);
    expect(models.headers.get('access-control-allow-origin')).to.equal('*');
    expect(models.headers.get('access-control-expose-headers')).to.contain('x-request-id');
    const unauthorized = await fetch(`${app.baseUrl}/v1/models`, { headers: { origin } });
    expect(unauthorized.status).to.equal(401);
    expect(unauthorized.headers.get('access-control-allow-origin')).to.equal('*');
  });

  it('adds nothing for a caller that is no browser, nor to the console', async () => {
    const plain = await fetch(`${app.baseUrl}/v1/models`, { headers: { authorization: `Bearer ${key.key}` } });
    expect(plain.headers.get('access-control-allow-origin')).to.equal(null);
    const page = await fetch(`${app.baseUrl}/console/`, { headers: { origin } });
    expect(page.headers.get('access-control-allow-origin')).to.equal(null);
  });
});
