import type Router from '@koa/router';
import { expect } from 'chai';
import { Validator } from '../../src/http/validation.js';
import { startTestApp, type TestApp } from '../helpers/app.js';

// Routes are registered from spec/openapi.yaml (src/http/operations.ts): this holds the two in step.
describe('operations: the spec and the routes', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  /** "METHOD /path" of every route of the app's routers, HEAD (added for GET) and the console's pages left out. */
  function routes(): string[] {
    const out: string[] = [];
    for (const middleware of t.app.middleware) {
      const router = (middleware as { router?: Router }).router;
      if (!router) continue;
      for (const layer of router.stack) {
        if (String(layer.path).startsWith('/console') || layer.methods.length === 0) continue;
        for (const method of layer.methods) if (method !== 'HEAD') out.push(`${method} ${String(layer.path)}`);
      }
    }
    return out.sort();
  }

  it('every operation of the spec has exactly one route, and every route is an operation of the spec', () => {
    const spec = Object.values(new Validator().operations)
      .map((op) => `${op.method} ${op.fullPath.replace(/\{(\w+)\}/g, ':$1')}`)
      .sort();
    const registered = routes();
    expect(registered.filter((r, i) => registered.indexOf(r) !== i), 'routes registered twice').to.deep.equal([]);
    expect(registered).to.deep.equal(spec);
  });

  it('a route answers with the scope the spec gives it', async () => {
    const key = await t.key({ kind: 'restricted', scopes: ['chat.create'] });
    const res = await fetch(`${t.baseUrl}/v1/traces`, { headers: { authorization: `Bearer ${key.key}` } });
    expect(res.status).to.equal(403);
    expect(((await res.json()) as { error: { message: string } }).error.message).to.include('traces.read');
  });

  it('GET /v1/models/{vendor}/{name} is served as the spec declares it', async () => {
    const key = await t.key();
    const res = await fetch(`${t.baseUrl}/v1/models/local/echo`, { headers: { authorization: `Bearer ${key.key}` } });
    expect(res.status).to.equal(200);
    expect(((await res.json()) as { id: string }).id).to.equal('local/echo');
  });
});
