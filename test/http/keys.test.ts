import { expect } from 'chai';
import { ExpiredKey, KeyResolver } from '../../src/tenancy/keys.js';
import { api, startTestApp, type JsonResponse, type TestApp } from '../helpers/app.js';
import { waitFor } from '../helpers/db.js';

// Keys over the API, as an organization's admin (an organization key) manages them: what the
// admin sees, and what the keys' holders notice (their requests work, or are refused).

describe('/v1/keys', () => {
  let app: TestApp;
  let admin: string;
  let adminKeyId: string;
  let workspaceId: string;

  const keysApi = (path: string, options: Parameters<typeof api>[2] = {}) => api(app.baseUrl, `/v1/keys${path}`, { key: admin, ...options });
  const create = (body: Record<string, unknown>, key = admin) => api(app.baseUrl, '/v1/keys', { method: 'POST', key, body });
  const chat = (key: string) =>
    api(app.baseUrl, '/v1/chat/completions', {
      method: 'POST',
      key,
      // A bounded answer: a key with a budget is charged its worst case up front, and local/echo's
      // context of a million tokens would pass a budget of 12.5 credits.
      body: { model: 'local/echo', max_tokens: 100, messages: [{ role: 'user', content: `Hallo ${Math.random()}` }] },
    });
  const auditOf = async (action: string): Promise<any[]> => (await api(app.baseUrl, `/v1/audit-log?action=${action}&limit=100`, { key: admin })).body.data;

  function expectCreated(response: JsonResponse): any {
    expect(response.status, response.text).to.equal(201);
    return response.body.data;
  }

  before(async () => {
    app = await startTestApp();
    const created = await app.key({ org: 'acme', workspace: 'main' });
    admin = created.key;
    adminKeyId = created.key_id;
    workspaceId = created.workspace_id;
  });
  after(async () => {
    await app.close();
  });

  it('creates a restricted key that works at once for a chat, with its secret shown only in that answer', async () => {
    const data = expectCreated(
      await create({
        workspace: 'main',
        name: 'Helpdesk bot',
        kind: 'restricted',
        scopes: ['chat.create', 'chat.create'],
        limits: { requests_per_minute: 60, credits_per_month: 12.5 },
      }),
    );
    expect(data).to.have.all.keys(
      'id', 'key', 'name', 'workspace', 'kind', 'scopes', 'limits', 'prefix', 'last4', 'expires_at', 'last_used_at', 'created_at', 'revoked_at',
    );
    expect(data).to.include({ name: 'Helpdesk bot', kind: 'restricted', expires_at: null, revoked_at: null, last4: data.key.slice(-4) });
    expect(data.key).to.match(/^pld_[A-Za-z0-9_-]{43}$/);
    expect(data.prefix).to.equal(data.key.slice(0, 10));
    expect(data.workspace).to.deep.equal({ id: workspaceId, name: 'main' });
    expect(data.scopes).to.deep.equal(['chat.create']);
    expect(data.limits).to.deep.equal({ requests_per_minute: 60, tokens_per_minute: null, credits_per_day: null, credits_per_month: 12.5 });

    const answered = await chat(data.key);
    expect(answered.status, answered.text).to.equal(200);
    expect(answered.body.choices[0].message.content).to.be.a('string');
    // Exactly its scopes: nothing else.
    expect((await api(app.baseUrl, '/v1/usage', { key: data.key })).status).to.equal(403);

    const shown = await keysApi(`/${data.id}`);
    expect(shown.status).to.equal(200);
    expect(shown.body.data).to.not.have.property('key');
    expect(shown.text).to.not.include(data.key);
    expect(shown.body.data.last_used_at).to.be.a('string');
  });

  it('creates an organization key in another workspace named by its id, and one named by its name', async () => {
    const other = await app.key({ org: 'acme', workspace: 'batch' });
    const byId = expectCreated(await create({ workspace: other.workspace_id, name: 'Batch admin', kind: 'organization' }));
    expect(byId.workspace).to.deep.equal({ id: other.workspace_id, name: 'batch' });
    expect(byId.scopes).to.include.members(['keys.write', 'webhooks.read', 'webhooks.write', 'chat.create']);
    const byName = expectCreated(await create({ workspace: 'batch', name: 'Batch admin 2', kind: 'organization', limits: {} }));
    expect(byName.workspace.id).to.equal(other.workspace_id);
    expect(byName.limits).to.deep.equal({ requests_per_minute: null, tokens_per_minute: null, credits_per_day: null, credits_per_month: null });
    expect((await api(app.baseUrl, '/v1/models', { key: byName.key })).status).to.equal(200);
  });

  it('lists the organization’s keys newest first, a page at a time, never with a secret', async () => {
    const secrets: string[] = [admin];
    for (let i = 0; i < 3; i += 1) secrets.push(expectCreated(await create({ workspace: 'main', name: `listed ${i}`, kind: 'restricted' })).key);
    await app.key({ org: 'elsewhere', workspace: 'main' });

    const seen: any[] = [];
    let cursor: string | null = null;
    do {
      const page: JsonResponse = await keysApi(`?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(page.status, page.text).to.equal(200);
      expect(page.body.data.length).to.be.at.most(2);
      for (const secret of secrets) expect(page.text).to.not.include(secret);
      expect(page.text).to.not.match(/key_hash|"key":/);
      seen.push(...page.body.data);
      cursor = page.body.next_cursor;
    } while (cursor);

    const { rows } = await app.db.pool.query<{ id: string }>(
      `select k.id from api_keys k join organizations o on o.id = k.organization_id where o.name = 'acme' order by k.created_at desc, k.id desc`,
    );
    expect(seen.map((k) => k.id)).to.deep.equal(rows.map((r) => r.id));
    expect(seen.slice(0, 3).map((k) => k.name)).to.deep.equal(['listed 2', 'listed 1', 'listed 0']);
    expect(seen.slice(0, 3).map((k) => k.last4)).to.deep.equal(secrets.slice(1).reverse().map((s) => s.slice(-4)));
    // The admin's own key (made by the CLI helper, without a name) is listed too, and shows its use.
    const own = seen.find((k) => k.id === adminKeyId);
    expect(own).to.include({ name: null, kind: 'organization', revoked_at: null });
    expect(own.last_used_at).to.be.a('string');

    const forged = await keysApi('?cursor=bm90LWEtY3Vyc29y');
    expect(forged.status).to.equal(422);
    expect(forged.body.errors).to.have.property('cursor');
  });

  it('keeps last_used_at cheaply: one write per key per minute, not per request', async () => {
    const data = expectCreated(await create({ workspace: 'main', name: 'used', kind: 'restricted' }));
    expect(data.last_used_at).to.equal(null);
    expect((await api(app.baseUrl, '/v1/models', { key: data.key })).status).to.equal(200);
    const first = (await keysApi(`/${data.id}`)).body.data.last_used_at as string;
    expect(Date.parse(first)).to.be.closeTo(Date.now(), 5000);
    // Another process loading the key within the minute reads it, and writes nothing.
    const elsewhere = new KeyResolver(app.db.pool);
    expect((await elsewhere.resolve(data.key))?.keyId).to.equal(data.id);
    expect((await keysApi(`/${data.id}`)).body.data.last_used_at).to.equal(first);
  });

  it('loads the key’s name and limits with its principal', async () => {
    const data = expectCreated(
      await create({ workspace: 'main', name: 'limited', kind: 'restricted', limits: { tokens_per_minute: 1000, credits_per_day: 0.5 } }),
    );
    const principal = await new KeyResolver(app.db.pool).resolve(data.key);
    expect(principal?.keyName).to.equal('limited');
    expect(principal?.keyLimits).to.deep.equal({ requests_per_minute: null, tokens_per_minute: 1000, credits_per_day: 0.5, credits_per_month: null });
  });

  it('applies a change of scopes at once here, and within 5 seconds in another process', async () => {
    const data = expectCreated(await create({ workspace: 'main', name: 'changing', kind: 'restricted', scopes: ['chat.create'] }));
    const elsewhere = new KeyResolver(app.db.pool);
    expect((await elsewhere.resolve(data.key))?.scopes).to.deep.equal(['chat.create']);
    expect((await chat(data.key)).status).to.equal(200);

    const changedAt = Date.now();
    const changed = await keysApi(`/${data.id}`, {
      method: 'PATCH',
      body: { scopes: ['usage.read'], name: 'reporting', limits: { requests_per_minute: 10 } },
    });
    expect(changed.status, changed.text).to.equal(200);
    expect(changed.body.data).to.include({ name: 'reporting' });
    expect(changed.body.data.scopes).to.deep.equal(['usage.read']);
    expect(changed.body.data.limits).to.deep.equal({ requests_per_minute: 10, tokens_per_minute: null, credits_per_day: null, credits_per_month: null });

    // This process forgot the cached key with the change.
    const refused = await chat(data.key);
    expect(refused.status).to.equal(403);
    expect(refused.body.code).to.equal('insufficient_scope');
    expect((await api(app.baseUrl, '/v1/usage', { key: data.key })).status).to.equal(200);

    await waitFor(async () => ((await elsewhere.resolve(data.key))?.scopes.includes('usage.read') ? true : undefined), {
      timeoutMs: 5000,
      intervalMs: 100,
      what: 'another process to see the new scopes',
    });
    expect(Date.now() - changedAt).to.be.below(5000);
    expect((await elsewhere.resolve(data.key))?.keyLimits.requests_per_minute).to.equal(10);
  });

  it('revokes a key: refused at once, shown with revoked_at, and revoking again changes nothing', async () => {
    const data = expectCreated(await create({ workspace: 'main', name: 'short-lived', kind: 'restricted', scopes: ['chat.create'] }));
    expect((await chat(data.key)).status).to.equal(200);
    const revoked = await keysApi(`/${data.id}`, { method: 'DELETE' });
    expect(revoked.status, revoked.text).to.equal(200);
    expect(revoked.body.data.revoked_at).to.be.a('string');

    const refused = await chat(data.key);
    expect(refused.status).to.equal(401);
    expect(refused.body.error).to.include({ type: 'authentication_error', code: 'invalid_api_key' });

    const again = await keysApi(`/${data.id}`, { method: 'DELETE' });
    expect(again.status).to.equal(200);
    expect(again.body.data.revoked_at).to.equal(revoked.body.data.revoked_at);
    expect((await auditOf('api_key.revoked')).filter((e) => e.target === data.id)).to.have.length(1);

    const patched = await keysApi(`/${data.id}`, { method: 'PATCH', body: { name: 'back to life' } });
    expect(patched.status).to.equal(409);
    expect(patched.body.message).to.include('revoked');
  });

  it('refuses an expired key with 401 saying when it expired, even while it is cached', async () => {
    const expiresAt = new Date(Date.now() + 1500).toISOString();
    const data = expectCreated(await create({ workspace: 'main', name: 'trial', kind: 'restricted', scopes: ['chat.create'], expires_at: expiresAt }));
    expect(data.expires_at).to.equal(expiresAt);
    expect((await chat(data.key)).status).to.equal(200);

    const refused = await waitFor(
      async () => {
        const response = await chat(data.key);
        return response.status === 401 ? response : undefined;
      },
      { timeoutMs: 5000, intervalMs: 100, what: 'the key to expire' },
    );
    expect(Date.now()).to.be.at.least(Date.parse(expiresAt));
    expect(refused.body.message).to.include('expired').and.include(expiresAt);
    expect(refused.body.code).to.equal('invalid_api_key');
    expect(refused.body.error).to.include({ type: 'authentication_error', code: 'invalid_api_key' });
    expect(await new KeyResolver(app.db.pool).identify(data.key)).to.be.instanceOf(ExpiredKey);

    // Extending the expiry brings it back.
    const extended = await keysApi(`/${data.id}`, { method: 'PATCH', body: { expires_at: null } });
    expect(extended.status, extended.text).to.equal(200);
    expect(extended.body.data.expires_at).to.equal(null);
    expect((await chat(data.key)).status).to.equal(200);
  });

  it('GET /v1/key tells any key, a restricted one without scopes too, what it is and may do', async () => {
    const restricted = expectCreated(await create({ workspace: workspaceId, name: 'Dashboard', kind: 'restricted', scopes: ['usage.read'], limits: { requests_per_minute: 30 } }));
    const self = await api(app.baseUrl, '/v1/key', { key: restricted.key });
    expect(self.status, self.text).to.equal(200);
    expect(self.body.data).to.include({ id: restricted.id, name: 'Dashboard', kind: 'restricted', last4: restricted.last4 });
    expect(self.body.data.scopes).to.deep.equal(['usage.read']);
    expect(self.body.data.limits).to.include({ requests_per_minute: 30 });
    expect(self.body.data).not.to.have.property('key');
    expect(JSON.stringify(self.body)).not.to.contain(restricted.key);
    const scopeless = expectCreated(await create({ workspace: workspaceId, name: 'Nothing', kind: 'restricted', scopes: [] }));
    expect((await api(app.baseUrl, '/v1/key', { key: scopeless.key })).body.data.scopes).to.deep.equal([]);
    const org = await api(app.baseUrl, '/v1/key', { key: admin });
    expect(org.body.data).to.include({ id: adminKeyId, kind: 'organization' });
    expect((await api(app.baseUrl, '/v1/key', { key: 'pld_not-a-key' })).status).to.equal(401);
  });

  it('answers 403 to a restricted key, even one with keys.write', async () => {
    const restricted = await app.key({ org: 'acme', workspace: 'main', kind: 'restricted', scopes: ['keys.write', 'chat.create'] });
    const attempts: JsonResponse[] = [
      await create({ workspace: 'main', name: 'sneaky', kind: 'organization' }, restricted.key),
      await api(app.baseUrl, '/v1/keys', { key: restricted.key }),
      await api(app.baseUrl, `/v1/keys/${adminKeyId}`, { key: restricted.key }),
      await api(app.baseUrl, `/v1/keys/${adminKeyId}`, { method: 'PATCH', key: restricted.key, body: { name: 'x' } }),
      await api(app.baseUrl, `/v1/keys/${adminKeyId}`, { method: 'DELETE', key: restricted.key }),
    ];
    for (const response of attempts) {
      expect(response.status, response.text).to.equal(403);
      expect(response.body.code).to.equal('insufficient_scope');
      expect(response.body.message).to.include('organization key');
      expect(response.body.error).to.include({ type: 'permission_error' });
    }
    const without = await app.key({ org: 'acme', workspace: 'main', kind: 'restricted', scopes: ['chat.create'] });
    const lacking = await api(app.baseUrl, '/v1/keys', { key: without.key });
    expect(lacking.status).to.equal(403);
    expect(lacking.body.message).to.include('keys.write');
    expect((await api(app.baseUrl, `/v1/keys/${adminKeyId}`)).status).to.equal(401);
    // Nothing was changed by the refused calls.
    expect((await api(app.baseUrl, '/v1/models', { key: admin })).status).to.equal(200);
  });

  it('answers 404 for a key of another organization, and 422 for its workspace', async () => {
    const foreign = await app.key({ org: 'elsewhere', workspace: 'secret-project' });
    for (const [method, body] of [['GET'], ['PATCH', { name: 'mine now' }], ['DELETE']] as const) {
      const response = await keysApi(`/${foreign.key_id}`, { method, ...(body ? { body } : {}) });
      expect(response.status, `${method} ${response.text}`).to.equal(404);
      expect(response.body.error).to.include({ type: 'not_found_error' });
    }
    for (const id of ['not-a-uuid', '00000000-0000-0000-0000-000000000000']) {
      expect((await keysApi(`/${id}`)).status).to.equal(404);
      expect((await keysApi(`/${id}`, { method: 'DELETE' })).status).to.equal(404);
    }
    expect((await api(app.baseUrl, '/v1/models', { key: foreign.key })).status).to.equal(200);

    // Its workspace by id: not one of this organization's.
    for (const workspace of [foreign.workspace_id, '00000000-0000-0000-0000-000000000000']) {
      const response = await create({ workspace, name: 'x', kind: 'restricted' });
      expect(response.status, workspace).to.equal(422);
      expect(response.body.errors).to.have.property('workspace');
    }
    // Its workspace's name names a workspace of this organization, created for it: never the other's.
    const own = expectCreated(await create({ workspace: 'secret-project', name: 'x', kind: 'restricted' }));
    expect(own.workspace.name).to.equal('secret-project');
    expect(own.workspace.id).not.to.equal(foreign.workspace_id);
    const keysInForeign = await app.db.pool.query('select count(*)::int as n from api_keys where workspace_id = $1', [foreign.workspace_id]);
    expect(keysInForeign.rows[0].n).to.equal(1);
  });

  it('creates the workspace a new name names, audited, as the CLI does; a blank one is a 422', async () => {
    const created = expectCreated(await create({ workspace: 'team-claims', name: 'Claims bot', kind: 'restricted', scopes: ['chat.create'] }));
    expect(created.workspace.name).to.equal('team-claims');
    expect((await api(app.baseUrl, '/v1/models', { key: created.key })).status).to.equal(200);
    // The next key for it finds it, by name and by id.
    expect(expectCreated(await create({ workspace: 'team-claims', name: 'Claims batch', kind: 'restricted' })).workspace.id).to.equal(created.workspace.id);
    expect(expectCreated(await create({ workspace: created.workspace.id, name: 'Claims admin', kind: 'organization' })).workspace.name).to.equal('team-claims');
    const audited = await app.db.pool.query("select workspace_id, target, details from audit_log where action = 'workspace.created'");
    expect(audited.rows.filter((row) => row.workspace_id === created.workspace.id)).to.deep.equal([
      { workspace_id: created.workspace.id, target: created.workspace.id, details: { name: 'team-claims' } },
    ]);
    for (const workspace of ['  ', ' team-alpha ', 'a\nb', '\u200b']) {
      const refused = await create({ workspace, name: 'x', kind: 'restricted' });
      expect(refused.status, JSON.stringify(workspace)).to.equal(422);
      expect(refused.body.errors).to.have.property('workspace');
    }
    // Asked for at once, the keys of one new workspace make it once, audited once (QA: three entries).
    const racing = await Promise.all(Array.from({ length: 8 }, (_, i) => create({ workspace: 'race-ws', name: `k${i}`, kind: 'restricted' })));
    expect(new Set(racing.map((response) => expectCreated(response).workspace.id)).size).to.equal(1);
    const raced = await app.db.pool.query("select count(*)::int as n from audit_log where action = 'workspace.created' and details->>'name' = 'race-ws'");
    expect(raced.rows[0].n).to.equal(1);
  });

  it('answers 422 with dotted paths for bad bodies', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ name: 'x', kind: 'restricted' }, 'workspace'],
      [{ workspace: 'main', kind: 'restricted' }, 'name'],
      [{ workspace: 'main', name: '   ', kind: 'restricted' }, 'name'],
      [{ workspace: 'main', name: 'x', kind: 'admin' }, 'kind'],
      [{ workspace: 'main', name: 'x', kind: 'restricted', owner: 'me' }, 'owner'],
      [{ workspace: 'main', name: 'x', kind: 'restricted', scopes: ['chat.create', 'fly'] }, 'scopes.1'],
      [{ workspace: 'main', name: 'x', kind: 'organization', scopes: ['chat.create'] }, 'scopes'],
      [{ workspace: 'main', name: 'x', kind: 'restricted', limits: { requests_per_minute: 0 } }, 'limits.requests_per_minute'],
      [{ workspace: 'main', name: 'x', kind: 'restricted', limits: { tokens_per_minute: 1.5 } }, 'limits.tokens_per_minute'],
      [{ workspace: 'main', name: 'x', kind: 'restricted', limits: { credits_per_day: -1 } }, 'limits.credits_per_day'],
      [{ workspace: 'main', name: 'x', kind: 'restricted', limits: { credits_per_month: 0.000000001 } }, 'limits.credits_per_month'],
      [{ workspace: 'main', name: 'x', kind: 'restricted', limits: { credits_per_month: '5' } }, 'limits.credits_per_month'],
      [{ workspace: 'main', name: 'x', kind: 'restricted', limits: { requests_per_hour: 5 } }, 'limits.requests_per_hour'],
      [{ workspace: 'main', name: 'x', kind: 'restricted', expires_at: 'tomorrow' }, 'expires_at'],
      [{ workspace: 'main', name: 'x', kind: 'restricted', expires_at: '2020-01-01T00:00:00Z' }, 'expires_at'],
    ];
    for (const [body, field] of cases) {
      const response = await create(body);
      expect(response.status, `${JSON.stringify(body)}: ${response.text}`).to.equal(422);
      expect(response.body.errors, JSON.stringify(body)).to.have.property(field);
      expect(response.body.error).to.include({ type: 'invalid_request_error', param: Object.keys(response.body.errors)[0] });
    }
    expect((await api(app.baseUrl, '/v1/keys', { method: 'POST', key: admin, raw: '{"workspace":' })).status).to.equal(400);

    const restricted = expectCreated(await create({ workspace: 'main', name: 'patched', kind: 'restricted' }));
    const patches: [string, Record<string, unknown>, string][] = [
      [restricted.id, {}, 'body'],
      [restricted.id, { kind: 'organization' }, 'kind'],
      [restricted.id, { name: '' }, 'name'],
      [restricted.id, { scopes: ['nope'] }, 'scopes.0'],
      [restricted.id, { limits: { credits_per_day: 0 } }, 'limits.credits_per_day'],
      [restricted.id, { expires_at: '2001-02-03T04:05:06Z' }, 'expires_at'],
      [adminKeyId, { scopes: ['chat.create'] }, 'scopes'],
    ];
    for (const [id, body, field] of patches) {
      const response = await keysApi(`/${id}`, { method: 'PATCH', body });
      expect(response.status, `${JSON.stringify(body)}: ${response.text}`).to.equal(422);
      expect(response.body.errors, JSON.stringify(body)).to.have.property(field);
    }
    // None of the refused changes happened.
    const unchanged = (await keysApi(`/${restricted.id}`)).body.data;
    expect(unchanged).to.include({ name: 'patched', expires_at: null });
    expect(unchanged.scopes).to.deep.equal([]);
  });

  it('writes every change to the audit log with what changed, never the secret', async () => {
    const data = expectCreated(
      await create({ workspace: 'main', name: 'audited', kind: 'restricted', scopes: ['chat.create'], limits: { credits_per_day: 3 } }),
    );
    const updated = await keysApi(`/${data.id}`, {
      method: 'PATCH',
      body: { name: 'audited v2', scopes: ['chat.create', 'memory.read'], limits: { credits_per_day: 5 } },
    });
    expect(updated.status, updated.text).to.equal(200);
    // A PATCH that changes nothing writes nothing.
    expect((await keysApi(`/${data.id}`, { method: 'PATCH', body: { name: 'audited v2' } })).status).to.equal(200);
    expect((await keysApi(`/${data.id}`, { method: 'DELETE' })).status).to.equal(200);

    const log = await api(app.baseUrl, '/v1/audit-log?limit=100', { key: admin });
    const entries = log.body.data.filter((e: any) => e.target === data.id);
    expect(entries.map((e: any) => e.action)).to.deep.equal(['api_key.revoked', 'api_key.updated', 'api_key.created']);
    for (const entry of entries) expect(entry.actor).to.deep.equal({ key_id: adminKeyId, kind: 'organization' });
    const [revoked, changed, created] = entries;
    expect(created.details).to.deep.equal({
      name: 'audited',
      kind: 'restricted',
      scopes: ['chat.create'],
      limits: { requests_per_minute: null, tokens_per_minute: null, credits_per_day: 3, credits_per_month: null },
    });
    expect(changed.details.changes).to.deep.equal({
      name: { from: 'audited', to: 'audited v2' },
      scopes: { from: ['chat.create'], to: ['chat.create', 'memory.read'] },
      limits: { credits_per_day: { from: 3, to: 5 } },
    });
    expect(revoked.details).to.deep.equal({ name: 'audited v2' });
    expect(log.text).to.not.include(data.key);
    const { rows } = await app.db.pool.query(`select details::text from audit_log where details::text like '%' || $1 || '%'`, [data.key.slice(4, 20)]);
    expect(rows).to.deep.equal([]);
  });

  it('clears a key’s name with null, as the CLI makes keys without one (QA)', async () => {
    const data = expectCreated(await create({ workspace: 'main', name: 'named once', kind: 'restricted', scopes: ['chat.create'] }));
    const cleared = await keysApi(`/${data.id}`, { method: 'PATCH', body: { name: null } });
    expect(cleared.status, cleared.text).to.equal(200);
    expect(cleared.body.data.name).to.equal(null);
    expect((await keysApi(`/${data.id}`)).body.data.name).to.equal(null);
    expect((await keysApi(`/${data.id}`, { method: 'PATCH', body: { name: ' ' } })).status).to.equal(422);
  });
});
