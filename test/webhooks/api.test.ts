import { expect } from 'chai';
import { loadConfig } from '../../src/config.js';
import { api, startTestApp, type TestApp } from '../helpers/app.js';

// /v1/webhooks: endpoints of the acting key's workspace, their secret shown once, every change
// audited, URLs that could reach inside our network refused.
describe('/v1/webhooks', function () {
  this.timeout(30_000);
  let app: TestApp;
  let strict: TestApp;
  let key: string;
  const LOOPBACK = 'http://127.0.0.1:9/hooks';

  before(async () => {
    [app, strict] = await Promise.all([startTestApp({ env: { WEBHOOKS_ALLOW_HTTP: '1' } }), startTestApp()]);
    key = (await app.key()).key;
  });
  after(async () => {
    await Promise.all([app.close(), strict.close()]);
  });

  const create = (target: TestApp, withKey: string, body: unknown) => api(target.baseUrl, '/v1/webhooks', { method: 'POST', key: withKey, body });

  it('creates an endpoint, shows its secret once, and audits every change without the secret', async () => {
    const created = await create(app, key, { url: LOOPBACK, events: ['document.ready', 'document.ready', 'memory.erased'], description: 'CRM sync' });
    expect(created.status, created.text).to.equal(201);
    const endpoint = created.body.data;
    expect(endpoint).to.include({ url: LOOPBACK, description: 'CRM sync', enabled: true, disabled_reason: null });
    expect(endpoint.events).to.deep.equal(['document.ready', 'memory.erased']);
    expect(endpoint.secret).to.match(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(Buffer.from(endpoint.secret.slice(6), 'base64')).to.have.length(24);

    const fetched = await api(app.baseUrl, `/v1/webhooks/${endpoint.id}`, { key });
    expect(fetched.status).to.equal(200);
    expect(fetched.body.data).not.to.have.property('secret');
    const listed = await api(app.baseUrl, '/v1/webhooks', { key });
    expect(listed.body.data.map((e: any) => e.id)).to.include(endpoint.id);
    expect(listed.text).not.to.contain(endpoint.secret);

    const patched = await api(app.baseUrl, `/v1/webhooks/${endpoint.id}`, { method: 'PATCH', key, body: { events: ['facts.extracted'], enabled: false } });
    expect(patched.status, patched.text).to.equal(200);
    expect(patched.body.data).to.include({ enabled: false });
    expect(patched.body.data.events).to.deep.equal(['facts.extracted']);
    const rotated = await api(app.baseUrl, `/v1/webhooks/${endpoint.id}/rotate-secret`, { method: 'POST', key });
    expect(rotated.body.data.secret).to.match(/^whsec_/).and.not.equal(endpoint.secret);
    const deleted = await api(app.baseUrl, `/v1/webhooks/${endpoint.id}`, { method: 'DELETE', key });
    expect(deleted.status).to.equal(200);
    expect((await api(app.baseUrl, `/v1/webhooks/${endpoint.id}`, { key })).status).to.equal(404);

    const audit = await api(app.baseUrl, '/v1/audit-log?limit=100', { key });
    const entries = audit.body.data.filter((e: any) => e.target === endpoint.id).map((e: any) => e.action);
    expect(entries).to.deep.equal(['webhook.deleted', 'webhook.secret_rotated', 'webhook.updated', 'webhook.created']);
    expect(audit.text).not.to.contain(endpoint.secret);
    expect(audit.text).not.to.contain(rotated.body.data.secret);
    const updated = audit.body.data.find((e: any) => e.target === endpoint.id && e.action === 'webhook.updated');
    expect(updated.details.changes.enabled).to.deep.equal({ from: true, to: false });
  });

  it('keeps the path and query of a URL (where receivers put their own token) out of the audit log', async () => {
    const secretUrl = 'http://127.0.0.1:9/services/T0001/B0002/xoxb-receiver-token?token=q-secret';
    const created = (await create(app, key, { url: secretUrl, events: ['memory.erased'] })).body.data;
    await api(app.baseUrl, `/v1/webhooks/${created.id}`, { method: 'PATCH', key, body: { url: 'http://127.0.0.1:9/services/T0001/B0002/other-token' } });
    await api(app.baseUrl, `/v1/webhooks/${created.id}`, { method: 'DELETE', key });
    const audit = await api(app.baseUrl, '/v1/audit-log?limit=100', { key });
    const mine = audit.body.data.filter((e: any) => e.target === created.id);
    expect(mine.map((e: any) => e.action)).to.deep.equal(['webhook.deleted', 'webhook.updated', 'webhook.created']);
    for (const secret of ['xoxb-receiver-token', 'q-secret', 'other-token', 'T0001']) expect(JSON.stringify(mine), secret).not.to.contain(secret);
    const shown = mine.at(-1).details.url as string;
    expect(shown).to.match(/^http:\/\/127\.0\.0\.1:9\/… \(sha256 [0-9a-f]{12}\)$/);
    // Two URLs are told apart.
    expect(mine[1].details.changes.url.from).to.equal(shown).and.not.equal(mine[1].details.changes.url.to);
  });

  it('answers 404 for an endpoint of another workspace, as for one that does not exist', async () => {
    const mine = (await create(app, key, { url: LOOPBACK, events: ['memory.erased'] })).body.data;
    const other = (await app.key({ org: 'acme', workspace: 'elsewhere' })).key;
    const stranger = (await app.key({ org: 'globex', workspace: 'main' })).key;
    for (const foreign of [other, stranger]) {
      expect((await api(app.baseUrl, `/v1/webhooks/${mine.id}`, { key: foreign })).status).to.equal(404);
      expect((await api(app.baseUrl, `/v1/webhooks/${mine.id}`, { method: 'PATCH', key: foreign, body: { enabled: false } })).status).to.equal(404);
      expect((await api(app.baseUrl, `/v1/webhooks/${mine.id}`, { method: 'DELETE', key: foreign })).status).to.equal(404);
      expect((await api(app.baseUrl, `/v1/webhooks/${mine.id}/rotate-secret`, { method: 'POST', key: foreign })).status).to.equal(404);
      expect((await api(app.baseUrl, `/v1/webhooks/${mine.id}/test`, { method: 'POST', key: foreign })).status).to.equal(404);
      expect((await api(app.baseUrl, `/v1/webhooks/${mine.id}/deliveries`, { key: foreign })).status).to.equal(404);
      expect((await api(app.baseUrl, '/v1/webhooks', { key: foreign })).body.data).to.deep.equal([]);
    }
    const sent = await api(app.baseUrl, `/v1/webhooks/${mine.id}/test`, { method: 'POST', key });
    const retryPath = `/v1/webhooks/${mine.id}/deliveries/${sent.body.data.id}/retry`;
    expect((await api(app.baseUrl, retryPath, { method: 'POST', key: other })).status).to.equal(404);
    expect((await api(app.baseUrl, retryPath, { method: 'POST', key })).status).to.equal(200);
    // Ids that are not ids name nothing either.
    const notAnId = await api(app.baseUrl, '/v1/webhooks/not-a-uuid', { key });
    expect(notAnId.status).to.equal(404);
    expect(notAnId.body.message).to.equal('no webhook endpoint not-a-uuid');
    expect((await api(app.baseUrl, `/v1/webhooks/${mine.id}/deliveries/x/retry`, { method: 'POST', key })).status).to.equal(404);
  });

  it('needs webhooks.read to look and webhooks.write to change', async () => {
    const reader = (await app.key({ kind: 'restricted', scopes: ['webhooks.read'] })).key;
    const listed = await api(app.baseUrl, '/v1/webhooks', { key: reader });
    expect(listed.status).to.equal(200);
    const refused = await create(app, reader, { url: LOOPBACK, events: ['memory.erased'] });
    expect(refused.status).to.equal(403);
    expect(refused.body.message).to.include('webhooks.write');
    const nobody = (await app.key({ kind: 'restricted', scopes: ['chat.create'] })).key;
    expect((await api(app.baseUrl, '/v1/webhooks', { key: nobody })).status).to.equal(403);
    const writer = (await app.key({ kind: 'restricted', scopes: ['webhooks.write'] })).key;
    expect((await create(app, writer, { url: LOOPBACK, events: ['memory.erased'] })).status).to.equal(201);
  });

  it('refuses http and addresses inside private networks without WEBHOOKS_ALLOW_HTTP', async () => {
    const strictKey = (await strict.key()).key;
    const refusals: Record<string, RegExp> = {
      'http://example.com/hooks': /^must be an https URL \(plain http only where WEBHOOKS_ALLOW_HTTP=1 is set, in development\)$/,
      'https://127.0.0.1/hooks': /^resolves to 127\.0\.0\.1 \(127\.0\.0\.1\), a private, loopback/,
      'https://localhost:8443/hooks': /^resolves to (127\.0\.0\.1|::1) \(localhost\)/,
      'https://10.1.2.3/hooks': /resolves to 10\.1\.2\.3/,
      'https://192.168.0.10/hooks': /resolves to 192\.168\.0\.10/,
      'https://172.20.0.1/hooks': /resolves to 172\.20\.0\.1/,
      'https://169.254.169.254/latest/meta-data': /resolves to 169\.254\.169\.254/,
      'https://100.64.0.1/': /resolves to 100\.64\.0\.1/,
      'https://192.88.99.1/x': /resolves to 192\.88\.99\.1/,
      'https://0.0.0.0/': /resolves to 0\.0\.0\.0/,
      'https://[::1]/hooks': /resolves to ::1/,
      'https://[fd00::1]/hooks': /resolves to fd00::1/,
      'https://[fe80::1]/hooks': /resolves to fe80::1/,
      'https://[::ffff:127.0.0.1]/hooks': /resolves to ::ffff:7f00:1/,
      'https://[::7f00:1]/hooks': /resolves to ::7f00:1/,
      'https://[2002:7f00:1::1]/hooks': /resolves to 2002:7f00:1::1/,
      'https://[fec0::1]/hooks': /resolves to fec0::1/,
      'https://[::ffff:0:7f00:1]/hooks': /resolves to ::ffff:0:7f00:1/,
      'https://[64:ff9b:1::a00:1]/hooks': /resolves to 64:ff9b:1::a00:1/,
      'https://[3fff::1]/hooks': /resolves to 3fff::1/,
      'https://[2001:10::1]/hooks': /resolves to 2001:10::1/,
      'https://[2001:20::1]/hooks': /resolves to 2001:20::1/,
      'https://[5f00::1]/hooks': /resolves to 5f00::1/,
      'https://user:pass@example.com/hooks': /^must not hold a user name or password$/,
      'not a url': /^is not a URL$/,
      'ftp://example.com/': /^must be an https URL \(plain http only where WEBHOOKS_ALLOW_HTTP=1 is set, in development\)$/,
    };
    for (const [url, reason] of Object.entries(refusals)) {
      const response = await create(strict, strictKey, { url, events: ['memory.erased'] });
      expect(response.status, url).to.equal(422);
      expect(response.body.errors.url, url).to.have.length(1);
      expect(response.body.errors.url[0], url).to.match(reason);
    }
    // Public addresses are what webhooks are for: taken in both families.
    for (const url of ['https://93.184.216.34/hooks', 'https://8.8.8.8/', 'https://1.1.1.1:8443/hooks', 'https://[2606:4700:4700::1111]/hooks']) {
      const response = await create(strict, strictKey, { url, events: ['memory.erased'] });
      expect(response.status, `${url}: ${response.text}`).to.equal(201);
    }
    await strict.db.pool.query('delete from webhook_endpoints');
    // A change of URL is checked the same way.
    const allowed = (await create(app, key, { url: LOOPBACK, events: ['memory.erased'] })).body.data;
    expect(allowed.url).to.equal(LOOPBACK);
    expect((await strict.db.pool.query('select count(*)::int as n from webhook_endpoints')).rows[0].n).to.equal(0);
    const patched = await api(app.baseUrl, `/v1/webhooks/${allowed.id}`, { method: 'PATCH', key, body: { url: 'gopher://x' } });
    expect(patched.status).to.equal(422);
    expect(patched.body.errors.url).to.deep.equal(['must be an http or https URL']);
  });

  it('holds a workspace to 20 endpoints, however many creates race each other', async () => {
    const own = (await app.key({ org: 'many-endpoints', workspace: 'w' })).key;
    const answers = await Promise.all(Array.from({ length: 26 }, (_, i) => create(app, own, { url: `${LOOPBACK}/${i}`, events: ['memory.erased'] })));
    expect(answers.filter((a) => a.status === 201)).to.have.length(20);
    const refused = answers.filter((a) => a.status !== 201);
    expect(refused.map((a) => a.status)).to.deep.equal([409, 409, 409, 409, 409, 409]);
    expect(refused[0]!.body.message).to.match(/at most 20 webhook endpoints/);
    expect((await api(app.baseUrl, '/v1/webhooks', { key: own })).body.data).to.have.length(20);
  });

  it('reads WEBHOOKS_ALLOW_HTTP as 1 or 0, and refuses anything else at start', () => {
    expect(loadConfig({}).webhooksAllowHttp).to.equal(false);
    expect(loadConfig({ WEBHOOKS_ALLOW_HTTP: '0' }).webhooksAllowHttp).to.equal(false);
    expect(loadConfig({ WEBHOOKS_ALLOW_HTTP: '1' }).webhooksAllowHttp).to.equal(true);
    expect(() => loadConfig({ WEBHOOKS_ALLOW_HTTP: 'yes' })).to.throw('WEBHOOKS_ALLOW_HTTP must be 1 or 0, got "yes"');
  });

  it('refuses unknown events, an empty list and unknown fields with a 422 naming them', async () => {
    const unknown = await create(app, key, { url: LOOPBACK, events: ['document.deleted'] });
    expect(unknown.status).to.equal(422);
    expect(unknown.body.errors).to.have.property('events.0');
    const empty = await create(app, key, { url: LOOPBACK, events: [] });
    expect(empty.status).to.equal(422);
    expect(empty.body.errors).to.have.property('events');
    const extra = await create(app, key, { url: LOOPBACK, events: ['memory.erased'], secret: 'mine' });
    expect(extra.status).to.equal(422);
    expect(extra.body.errors).to.have.property('secret');
    const test = await create(app, key, { url: LOOPBACK, events: ['webhook.test'] });
    expect(test.status).to.equal(422);
  });

  it('pages through deliveries newest first with a cursor', async () => {
    const endpoint = (await create(app, key, { url: LOOPBACK, events: ['memory.erased'] })).body.data;
    const sent: string[] = [];
    for (let i = 0; i < 5; i += 1) sent.push((await api(app.baseUrl, `/v1/webhooks/${endpoint.id}/test`, { method: 'POST', key })).body.data.id);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await api(app.baseUrl, `/v1/webhooks/${endpoint.id}/deliveries?limit=2${cursor ? `&cursor=${cursor}` : ''}`, { key });
      expect(page.status, page.text).to.equal(200);
      expect(page.body.data.length).to.be.at.most(2);
      for (const delivery of page.body.data) {
        expect(Object.keys(delivery)).to.include.members([
          'id', 'event_id', 'event_type', 'status', 'attempts', 'last_status_code', 'last_error', 'next_attempt_at', 'created_at',
        ]);
        seen.push(delivery.id);
      }
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(seen).to.deep.equal([...sent].reverse());
    const bad = await api(app.baseUrl, `/v1/webhooks/${endpoint.id}/deliveries?cursor=nonsense`, { key });
    expect(bad.status).to.equal(422);
  });

  it('lists only the deliveries of a status or an event type when asked, on every page', async () => {
    const endpoint = (await create(app, key, { url: LOOPBACK, events: ['memory.erased'] })).body.data;
    const tests: string[] = [];
    for (let i = 0; i < 4; i += 1) tests.push((await api(app.baseUrl, `/v1/webhooks/${endpoint.id}/test`, { method: 'POST', key })).body.data.id);
    expect((await api(app.baseUrl, '/v1/memory?user_ref=filter-user', { method: 'DELETE', key })).status).to.equal(200);
    // Two test deliveries whose retries are spent: the ones an operator looks for to send again.
    await app.db.pool.query(`update webhook_deliveries set status = 'failed', next_attempt_at = null where id = any($1::uuid[])`, [[tests[0], tests[2]]]);
    const all = async (query: string) => {
      const ids: string[] = [];
      let cursor: string | null = null;
      do {
        const page: any = await api(app.baseUrl, `/v1/webhooks/${endpoint.id}/deliveries?limit=1&${query}${cursor ? `&cursor=${cursor}` : ''}`, { key });
        expect(page.status, page.text).to.equal(200);
        ids.push(...page.body.data.map((d: any) => d.id));
        cursor = page.body.next_cursor;
      } while (cursor);
      return ids;
    };
    expect(await all('status=failed')).to.deep.equal([tests[2], tests[0]]);
    const erased = await all('event_type=memory.erased');
    expect(erased).to.have.length(1);
    expect(tests).not.to.include(erased[0]);
    expect(await all('event_type=webhook.test&status=failed')).to.deep.equal([tests[2], tests[0]]);
    const bad = await api(app.baseUrl, `/v1/webhooks/${endpoint.id}/deliveries?status=lost`, { key });
    expect(bad.status).to.equal(422);
    expect(bad.body.errors).to.have.property('status');
  });
});
