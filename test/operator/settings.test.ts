import { expect } from 'chai';
import { changeNonEuAcceptance, KeyResolver } from '../../src/tenancy/keys.js';
import { api } from '../helpers/app.js';
import { waitFor } from '../helpers/db.js';
import { chatBody, postChat, startGatewayFixture, type GatewayFixture } from '../helpers/gateway.js';

describe('GET/PUT /v1/settings/router', () => {
  let gw: GatewayFixture;
  let org: { key: string; key_id: string; organization_id: string; workspace_id: string };
  let restricted: { key: string; key_id: string };

  const put = (body: unknown, key = org.key) => api(gw.app.baseUrl, '/v1/settings/router', { method: 'PUT', key, body });
  const get = (key = org.key) => api(gw.app.baseUrl, '/v1/settings/router', { key });
  const auditOf = async (action: string, n: number) =>
    waitFor(
      async () => {
        const response = await api(gw.app.baseUrl, `/v1/audit-log?action=${action}&limit=100`, { key: org.key });
        return response.body.data.length >= n ? response.body.data : undefined;
      },
      { what: `${n} ${action} audit entries` },
    );

  before(async () => {
    gw = await startGatewayFixture();
    await gw.app.startWorker();
    org = await gw.app.key({ org: 'settings-org', workspace: 'main' });
    restricted = await gw.app.key({ org: 'settings-org', workspace: 'main', kind: 'restricted', scopes: ['settings.write', 'chat.create'] });
  });
  after(async () => {
    await gw.close();
  });
  beforeEach(() => {
    gw.euA.reset();
    gw.euB.reset();
  });

  it('shows the defaults, the acceptance state and what the acceptance allows', async () => {
    const response = await get();
    expect(response.status).to.equal(200);
    const { non_eu_acceptance: acceptance, ...settings } = response.body;
    expect(settings).to.deep.equal({
      allowed_providers: null,
      allowed_models: null,
      firewall_default: true,
      firewall_language: 'auto',
      cache_enabled: true,
      extraction_model: null,
      updated_at: null,
    });
    expect(acceptance).to.include({ accepted: false, accepted_at: null, accepted_by: null });
    expect(acceptance.statement).to.match(/^Not accepted: nothing leaves the EU/);
    expect(acceptance.statement).to.include('unmasked');
  });

  it('narrows routing at once: allowed_models makes another model a 422', async () => {
    // A request first, so this process holds the key's principal (with the old settings) in its cache.
    expect((await postChat(gw, chatBody({ model: 'test/chat-a' }), {}, org.key)).status).to.equal(200);
    const changed = await put({ allowed_models: ['test/chat-b', 'local/echo', 'local/echo'] });
    expect(changed.status).to.equal(200);
    expect(changed.body.allowed_models).to.deep.equal(['test/chat-b', 'local/echo']);
    expect(Date.parse(changed.body.updated_at)).to.not.be.NaN;

    const refused = await postChat(gw, chatBody({ model: 'test/chat-a' }), {}, org.key);
    expect(refused.status).to.equal(422);
    expect(((await refused.json()) as any).errors.model[0]).to.include('not allowed');
    expect((await postChat(gw, chatBody({ model: 'test/chat-b' }), {}, org.key)).status).to.equal(200);
    // The same workspace through another key sees it too.
    expect((await postChat(gw, chatBody({ model: 'test/chat-a' }), {}, restricted.key)).status).to.equal(422);

    const entries = await auditOf('settings.router.updated', 1);
    expect(entries[0].actor).to.deep.equal({ key_id: org.key_id, kind: 'organization' });
    expect(entries[0].target).to.equal(org.workspace_id);
    expect(entries[0].details).to.deep.equal({ changes: { allowed_models: { from: null, to: ['test/chat-b', 'local/echo'] } } });
    expect((await put({ allowed_models: null })).body.allowed_models).to.equal(null);
  });

  it('narrows routing at once: allowed_providers skips a provider', async () => {
    const changed = await put({ allowed_providers: ['eu-b', 'local'] });
    expect(changed.status).to.equal(200);
    const response = await postChat(gw, chatBody({ model: 'test/chat-a' }), {}, org.key);
    expect(response.status).to.equal(200);
    expect(response.headers.get('x-provider')).to.equal('eu-b');
    expect(gw.euA.requests).to.have.length(0);
    await put({ allowed_providers: null });
    const back = await postChat(gw, chatBody({ model: 'test/chat-a' }), {}, org.key);
    expect(back.headers.get('x-provider')).to.equal('eu-a');
  });

  it('names the workspace policy, on the model, when allowed_providers leaves a chat or an embedding no provider', async () => {
    // QA: an embeddings request was told its `provider` field was at fault; it has none.
    await put({ allowed_providers: ['local'] });
    try {
      const embedding = await api(gw.app.baseUrl, '/v1/embeddings', { method: 'POST', key: org.key, body: { model: 'test/eu-embed', input: 'x', encoding_format: 'float' } });
      const chat = await postChat(gw, chatBody({ model: 'test/chat-a' }), {}, org.key);
      for (const body of [embedding.body, (await chat.json()) as Record<string, any>]) {
        expect(body.code).to.equal('validation_failed');
        expect(body.errors).to.have.all.keys('model');
        expect(body.errors.model[0]).to.contain('allowed_providers');
      }
      // The caller's own preferences that leave nothing are the caller's field.
      await put({ allowed_providers: null });
      const preferred = await postChat(gw, chatBody({ model: 'test/chat-a', provider: { only: ['local'] } }), {}, org.key);
      expect(((await preferred.json()) as Record<string, any>).errors).to.have.all.keys('provider');
    } finally {
      await put({ allowed_providers: null });
    }
  });

  it('checks ids against the catalogue (422)', async () => {
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ allowed_models: ['test/chat-a', 'nope/model'] }, 'allowed_models.1', /unknown model "nope\/model"/],
      [{ allowed_models: ['test-chain'] }, 'allowed_models.0', /is an alias; list its models instead: test\/chat-a, test\/chat-b/],
      [{ allowed_models: [] }, 'allowed_models', /at least one/],
      [{ allowed_providers: ['eu-a', 'mars'] }, 'allowed_providers.1', /unknown provider "mars"/],
      [{ extraction_model: 'local/embed-1024' }, 'extraction_model', /is an embedding model/],
      [{ extraction_model: 'nope/model' }, 'extraction_model', /unknown model/],
      [{ firewall_language: 'es' }, 'firewall_language', /must be one of/],
      [{ cache_enabled: 'yes' }, 'cache_enabled', /boolean/],
      [{ surprise: true }, 'surprise', /not a known field/],
      [{ non_eu_acceptance: 'maybe' }, 'non_eu_acceptance', /must be one of/],
    ];
    for (const [body, field, message] of cases) {
      const response = await put(body);
      expect(response.status, JSON.stringify(body)).to.equal(422);
      expect(response.body.errors, JSON.stringify(body)).to.have.property(field);
      expect(response.body.errors[field].join(' '), JSON.stringify(body)).to.match(message);
    }
    expect((await get()).body.allowed_models).to.equal(null);
  });

  it('keeps the extraction model a chat model the policy allows', async () => {
    const set = await put({ extraction_model: 'test/chat-b', firewall_language: 'nl', cache_enabled: false });
    expect(set.status).to.equal(200);
    expect(set.body).to.include({ extraction_model: 'test/chat-b', firewall_language: 'nl', cache_enabled: false });
    const narrowed = await put({ allowed_models: ['local/echo'] });
    expect(narrowed.status).to.equal(422);
    expect(narrowed.body.errors.allowed_models[0]).to.include('test/chat-b');
    expect((await put({ allowed_models: ['local/echo'], extraction_model: 'local/echo' })).status).to.equal(200);
    // The cache switch is in force: a repeated request is not answered from the cache.
    const body = chatBody({ model: 'local/echo' });
    await postChat(gw, body, {}, org.key);
    expect((await postChat(gw, body, {}, org.key)).headers.get('x-cache')).to.equal('BYPASS');
    await put({ allowed_models: null, extraction_model: null, firewall_language: 'auto', cache_enabled: true });
    const entries = await auditOf('settings.router.updated', 5);
    const changes = entries.map((e: any) => e.details.changes);
    expect(changes).to.deep.include({
      extraction_model: { from: null, to: 'test/chat-b' },
      firewall_language: { from: 'auto', to: 'nl' },
      cache_enabled: { from: true, to: false },
    });
  });

  it('refuses firewall_default: false without the acceptance (403 egress_refused)', async () => {
    const response = await put({ firewall_default: false });
    expect(response.status).to.equal(403);
    expect(response.body.code).to.equal('egress_refused');
    expect(response.body.message).to.include('unmasked');
    expect((await get()).body.firewall_default).to.equal(true);
  });

  it('lets only an organization key record or withdraw the acceptance', async () => {
    for (const value of ['record', 'withdraw']) {
      const response = await put({ non_eu_acceptance: value }, restricted.key);
      expect(response.status).to.equal(403);
      expect(response.body.code).to.equal('insufficient_scope');
      expect(response.body.message).to.include('needs an organization key');
    }
    expect((await get(restricted.key)).body.non_eu_acceptance.accepted).to.equal(false);
    const noScope = await gw.app.key({ org: 'settings-org', workspace: 'main', kind: 'restricted', scopes: ['chat.create', 'audit.read'] });
    expect((await get(noScope.key)).status).to.equal(403);
    expect((await put({ cache_enabled: true }, noScope.key)).status).to.equal(403);
  });

  it('records and withdraws the acceptance with who and when, audited, in force at once', async () => {
    // firewall: false is refused before, in this process's cached principal too.
    expect((await postChat(gw, chatBody({ firewall: false }), {}, org.key)).status).to.equal(403);
    const before = Date.now();
    const recorded = await put({ non_eu_acceptance: 'record', firewall_default: false });
    expect(recorded.status).to.equal(200);
    const acceptance = recorded.body.non_eu_acceptance;
    expect(acceptance).to.include({ accepted: true, accepted_by: org.key_id });
    expect(Date.parse(acceptance.accepted_at)).to.be.at.least(before - 1000);
    expect(acceptance.statement).to.match(/^Accepted on /);
    expect(recorded.body.firewall_default).to.equal(false);
    expect((await postChat(gw, chatBody({ firewall: false }), {}, org.key)).status).to.equal(200);
    // The other workspace of the organization sees the organization's acceptance too.
    const sibling = await gw.app.key({ org: 'settings-org', workspace: 'sibling' });
    expect((await get(sibling.key)).body.non_eu_acceptance.accepted).to.equal(true);
    expect((await get(sibling.key)).body.firewall_default).to.equal(true);

    const withdrawn = await put({ non_eu_acceptance: 'withdraw' });
    expect(withdrawn.status).to.equal(200);
    expect(withdrawn.body.non_eu_acceptance).to.include({ accepted: false, accepted_at: null, accepted_by: null });
    // Withdrawn: the workspace's firewall default is on again, so its chats go on, masked; an
    // unmasked one is refused at once.
    expect(withdrawn.body.firewall_default).to.equal(true);
    expect(withdrawn.body.non_eu_acceptance.statement).not.to.include('firewall_default off');
    expect((await postChat(gw, chatBody(), {}, org.key)).status).to.equal(200);
    const refused = await postChat(gw, chatBody({ firewall: false }), {}, org.key);
    expect(refused.status).to.equal(403);
    expect(((await refused.json()) as any).code).to.equal('egress_refused');

    const [recordedEntry] = await auditOf('non_eu_acceptance.recorded', 1);
    expect(recordedEntry.actor).to.deep.equal({ key_id: org.key_id, kind: 'organization' });
    expect(recordedEntry.target).to.equal(org.organization_id);
    expect(recordedEntry.details).to.include({ by: org.key_id, workspace_id: org.workspace_id });
    const [withdrawnEntry] = await auditOf('non_eu_acceptance.withdrawn', 1);
    expect(withdrawnEntry.actor.key_id).to.equal(org.key_id);
    expect(withdrawnEntry.details.previous.accepted_by).to.equal(org.key_id);
    const updates = await auditOf('settings.router.updated', 6);
    expect(updates.map((e: any) => e.details.changes)).to.deep.include({ firewall_default: { from: true, to: false } });
    // The withdrawal's own change, said to be its.
    expect(updates[0].details).to.deep.equal({ changes: { firewall_default: { from: false, to: true } }, because: 'non_eu_acceptance.withdrawn' });
    expect(updates[0].actor.key_id).to.equal(org.key_id);
    // The sibling workspace's log shows the organization-wide entries as well.
    const siblingLog = await api(gw.app.baseUrl, '/v1/audit-log?limit=100', { key: sibling.key });
    const actions = siblingLog.body.data.map((e: any) => e.action);
    expect(actions).to.include.members(['non_eu_acceptance.recorded', 'non_eu_acceptance.withdrawn']);
    expect(actions).to.not.include('settings.router.updated');
  });

  it('writes nothing and audits nothing when nothing changes', async () => {
    const count = async () => (await gw.app.db.pool.query('select count(*)::int as n from audit_log')).rows[0].n;
    const before = await count();
    const response = await put({ cache_enabled: true, non_eu_acceptance: 'withdraw' });
    expect(response.status).to.equal(200);
    expect(await count()).to.equal(before);
  });

  it('keeps each workspace to its own settings', async () => {
    await put({ allowed_providers: ['local'] });
    const elsewhere = await gw.app.key({ org: 'settings-org', workspace: 'elsewhere' });
    expect((await get(elsewhere.key)).body.allowed_providers).to.equal(null);
    expect((await postChat(gw, chatBody({ model: 'test/chat-a' }), {}, elsewhere.key)).status).to.equal(200);
    const stranger = await gw.app.key({ org: 'another-org', workspace: 'main' });
    expect((await get(stranger.key)).body.allowed_providers).to.equal(null);
    await put({ allowed_providers: null });
  });

  it('lets the acceptance made by the operator CLI show who recorded it', async () => {
    await changeNonEuAcceptance(gw.app.db.pool, 'settings-org', 'sofie');
    const state = (await get()).body.non_eu_acceptance;
    expect(state).to.include({ accepted: true, accepted_by: 'sofie' });
    expect((await put({ firewall_default: false })).body.firewall_default).to.equal(false);
    // Withdrawn by the operator: the firewall default is back on too, audited as the operator's.
    await changeNonEuAcceptance(gw.app.db.pool, 'settings-org', null);
    expect((await get()).body.firewall_default).to.equal(true);
    const [entry] = await auditOf('settings.router.updated', 1);
    expect(entry).to.deep.include({ actor: { key_id: null, kind: 'operator' }, details: { changes: { firewall_default: { from: false, to: true } }, because: 'non_eu_acceptance.withdrawn' } });
  });
});

describe('KeyResolver: forgetting the principals of a workspace or an organization', () => {
  it('drops only the matching cached principals, so the next request reads the new settings', async () => {
    const { startTestApp } = await import('../helpers/app.js');
    const app = await startTestApp();
    try {
      const a = await app.key({ org: 'o1', workspace: 'w1' });
      const b = await app.key({ org: 'o1', workspace: 'w2' });
      const c = await app.key({ org: 'o2', workspace: 'w1' });
      const resolver = new KeyResolver(app.db.pool, 60_000);
      for (const k of [a, b, c]) expect((await resolver.resolve(k.key))?.settings.cacheEnabled).to.equal(true);
      await app.db.pool.query('insert into workspace_settings (workspace_id, organization_id, cache_enabled) values ($1, $2, false), ($3, $2, false)', [
        a.workspace_id,
        a.organization_id,
        b.workspace_id,
      ]);
      await app.db.pool.query('insert into workspace_settings (workspace_id, organization_id, cache_enabled) values ($1, $2, false)', [c.workspace_id, c.organization_id]);
      // Cached: nothing changes until forgotten.
      expect((await resolver.resolve(a.key))?.settings.cacheEnabled).to.equal(true);
      resolver.forgetWorkspace(a.workspace_id);
      expect((await resolver.resolve(a.key))?.settings.cacheEnabled).to.equal(false);
      expect((await resolver.resolve(b.key))?.settings.cacheEnabled).to.equal(true);
      resolver.forgetOrganization(a.organization_id);
      expect((await resolver.resolve(b.key))?.settings.cacheEnabled).to.equal(false);
      expect((await resolver.resolve(c.key))?.settings.cacheEnabled).to.equal(true);
    } finally {
      await app.close();
    }
  });
});
