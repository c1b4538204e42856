import { expect } from 'chai';
import OpenAI from 'openai';
import { api, startTestApp, type TestApp } from '../helpers/app.js';

describe('GET /v1/models', () => {
  let app: TestApp;
  let key: string;
  before(async () => {
    app = await startTestApp();
    key = (await app.key()).key;
  });
  after(async () => {
    await app.close();
  });

  it('lists the catalogue in the OpenAI shape, with type, region, size, pricing and capabilities', async () => {
    const response = await api(app.baseUrl, '/v1/models', { key });
    expect(response.status).to.equal(200);
    expect(response.body.object).to.equal('list');
    const byId = new Map<string, any>(response.body.data.map((m: any) => [m.id, m]));
    for (const id of ['mistral/mistral-embed', 'openai/text-embedding-3-small', 'openai/text-embedding-3-large', 'local/echo', 'local/embed-1024']) {
      expect(byId.has(id), id).to.equal(true);
    }
    expect(byId.get('mistral/mistral-embed')).to.include({ object: 'model', type: 'embedding', region: 'eu', dimensions: 1024, reducible: false });
    expect(byId.get('openai/text-embedding-3-large')).to.include({ region: 'external', dimensions: 3072, reducible: true });
    const echo = byId.get('local/echo');
    expect(echo).to.include({ type: 'chat', region: 'eu', available: true });
    expect(echo.context_length).to.be.a('number');
    expect(echo.pricing).to.have.keys('prompt', 'completion');
    expect(echo.capabilities).to.include('tools');
    const chatModels = [...byId.values()].filter((m) => m.type === 'chat');
    expect(chatModels.some((m) => m.id.startsWith('mistral/') && m.region === 'eu')).to.equal(true);
    expect(chatModels.some((m) => m.region === 'external')).to.equal(true);
    expect(response.text).not.to.match(/api_key|API_KEY/);
    // The catalogue's aliases, beside the models, with the chain each stands for.
    expect(response.body.aliases).to.deep.include({ id: 'eu-fast', models: ['mistral/mistral-small-latest', 'local/echo'] });
  });

  it('fetches one model by its id, and 404s an unknown one', async () => {
    const one = await api(app.baseUrl, '/v1/models/local/echo', { key });
    expect(one.status).to.equal(200);
    expect(one.body.id).to.equal('local/echo');
    const missing = await api(app.baseUrl, '/v1/models/nope/nothing', { key });
    expect(missing.status).to.equal(404);
    // OpenAI's SDKs send the id as one segment, its slash percent-encoded.
    const retrieved = await new OpenAI({ baseURL: `${app.baseUrl}/v1`, apiKey: key, maxRetries: 0 }).models.retrieve('local/echo');
    expect(retrieved.id).to.equal('local/echo');
    expect((await api(app.baseUrl, '/v1/models/local%2fecho', { key })).body.id).to.equal('local/echo');
    expect((await api(app.baseUrl, '/v1/models/nope%2Fnothing', { key })).status).to.equal(404);
  });

  it('says what a name without a vendor is: an alias and its chain, or no model', async () => {
    const client = new OpenAI({ baseURL: `${app.baseUrl}/v1`, apiKey: key, maxRetries: 0 });
    const alias = await client.models.retrieve('eu-fast').catch((err: unknown) => err as InstanceType<typeof OpenAI.APIError>);
    expect(alias).to.be.instanceOf(OpenAI.NotFoundError);
    expect((alias as InstanceType<typeof OpenAI.APIError>).message).to.contain('eu-fast is an alias, not a model: it names the chain mistral/mistral-small-latest, local/echo');
    const other = await api(app.baseUrl, '/v1/models/gpt-4o', { key });
    expect(other.status).to.equal(404);
    expect(other.body.message).to.match(/no model gpt-4o: model ids are vendor\/name, such as \S+\/\S+; GET \/v1\/models lists them/);
    expect((await api(app.baseUrl, '/v1/models/gpt-4o')).status).to.equal(401);
  });
});
