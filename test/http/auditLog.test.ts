import { expect } from 'chai';
import { changeNonEuAcceptance, revokeKey } from '../../src/tenancy/keys.js';
import { api, startTestApp, type TestApp } from '../helpers/app.js';
import { waitFor } from '../helpers/db.js';

describe('GET /v1/audit-log', () => {
  let app: TestApp;
  let reader: string;
  before(async () => {
    app = await startTestApp();
    await app.startWorker();
    reader = (await app.key({ org: 'acme', workspace: 'main' })).key;
    for (let i = 0; i < 4; i += 1) {
      const created = await app.key({ org: 'acme', workspace: 'main', kind: 'restricted', scopes: ['chat.create'] });
      await revokeKey(app.db.pool, created.key_id);
    }
    await app.key({ org: 'acme', workspace: 'other' });
    await app.key({ org: 'elsewhere', workspace: 'main' });
    await changeNonEuAcceptance(app.db.pool, 'acme', 'sofie');
    await waitFor(
      async () => (await app.db.pool.query('select count(*)::int as n from audit_log')).rows[0].n === 12,
      { what: 'all audit rows' },
    );
  });
  after(async () => {
    await app.close();
  });

  it('lists the workspace entries and its organization-wide ones, newest first, never another workspace', async () => {
    const response = await api(app.baseUrl, '/v1/audit-log?limit=100', { key: reader });
    expect(response.status).to.equal(200);
    const actions = response.body.data.map((e: any) => e.action);
    expect(actions[0]).to.equal('non_eu_acceptance.recorded');
    expect(actions.filter((a: string) => a === 'api_key.created')).to.have.length(5);
    expect(actions.filter((a: string) => a === 'api_key.revoked')).to.have.length(4);
    expect(actions).to.have.length(10);
    const entry = response.body.data[1];
    expect(entry).to.have.all.keys('id', 'at', 'actor', 'action', 'target', 'details');
    expect(entry.actor).to.deep.equal({ key_id: null, kind: 'operator' });
    expect(response.body.next_cursor).to.equal(null);
  });

  it('filters by action and pages with an opaque cursor', async () => {
    const first = await api(app.baseUrl, '/v1/audit-log?action=api_key.revoked&limit=3', { key: reader });
    expect(first.body.data).to.have.length(3);
    expect(first.body.next_cursor).to.be.a('string');
    const second = await api(
      app.baseUrl,
      `/v1/audit-log?action=api_key.revoked&limit=3&cursor=${encodeURIComponent(first.body.next_cursor)}`,
      { key: reader },
    );
    expect(second.body.data).to.have.length(1);
    expect(second.body.next_cursor).to.equal(null);
    const ids = [...first.body.data, ...second.body.data].map((e: any) => e.id);
    expect(new Set(ids).size).to.equal(4);
  });

  it('pages through entries written within one millisecond without skipping any (the cursor keeps microseconds)', async () => {
    // Entries one statement writes (a budget's 80 % and 100 % marks) share a millisecond.
    const { rows } = await app.db.pool.query<{ organization_id: string; workspace_id: string }>(
      "select organization_id, workspace_id from audit_log where action = 'api_key.created' and workspace_id is not null limit 1",
    );
    const { organization_id, workspace_id } = rows[0]!;
    await app.db.pool.query(
      `insert into audit_log (organization_id, workspace_id, at, actor_kind, action, target, details)
       select $1, $2, timestamptz '2030-01-01 00:00:00.000100' + make_interval(secs => n * 0.0001), 'service', 'budget.threshold', 'same-ms', jsonb_build_object('n', n)
         from generate_series(1, 3) as n`,
      [organization_id, workspace_id],
    );
    const seen: number[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await api(app.baseUrl, `/v1/audit-log?action=budget.threshold&limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { key: reader });
      expect(page.status).to.equal(200);
      seen.push(...page.body.data.map((e: any) => e.details.n));
      cursor = page.body.next_cursor;
    } while (cursor !== null && seen.length < 10);
    expect(seen).to.deep.equal([3, 2, 1]);
    await app.db.pool.query("delete from audit_log where target = 'same-ms'");
  });

  it('rejects a bad limit or a forged cursor with 422', async () => {
    const limit = await api(app.baseUrl, '/v1/audit-log?limit=0', { key: reader });
    expect(limit.status).to.equal(422);
    expect(limit.body.errors).to.have.property('limit');
    // Decimal digits only: coercion read "0x10" as 16 and "1e1" as 10.
    for (const written of ['0x10', '1e1', '%201', '2.0']) {
      const odd = await api(app.baseUrl, `/v1/audit-log?limit=${written}`, { key: reader });
      expect(odd.status, written).to.equal(422);
      expect(odd.body.errors.limit, written).to.have.length(1);
    }
    const cursor = await api(app.baseUrl, '/v1/audit-log?cursor=bm90LWEtY3Vyc29y', { key: reader });
    expect(cursor.status).to.equal(422);
    expect(cursor.body.errors).to.have.property('cursor');
  });

  it('shows a change as soon as it is answered: the entry is written with the change', async () => {
    const created = await app.key({ org: 'acme', workspace: 'main', kind: 'restricted', scopes: ['chat.create'] });
    await revokeKey(app.db.pool, created.key_id);
    const changed = await api(app.baseUrl, '/v1/settings/router', { method: 'PUT', key: reader, body: { cache_enabled: false } });
    expect(changed.status).to.equal(200);
    const response = await api(app.baseUrl, '/v1/audit-log?limit=3', { key: reader });
    expect(response.body.data.map((e: any) => [e.action, e.target])).to.deep.equal([
      ['settings.router.updated', response.body.data[0].target],
      ['api_key.revoked', created.key_id],
      ['api_key.created', created.key_id],
    ]);
    expect(response.body.data[0].details.changes).to.deep.equal({ cache_enabled: { from: true, to: false } });
  });
});
