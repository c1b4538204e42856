import { expect } from 'chai';
import { api, startTestApp, type TestApp } from '../helpers/app.js';
import pg from 'pg';
import { databaseUrl, waitFor } from '../helpers/db.js';
import { runScript } from '../helpers/processes.js';

describe('cli/admin', () => {
  let app: TestApp;
  const admin = (...args: string[]) => runScript('src/cli/admin.js', args, { DATABASE_URL: app.db.url });

  before(async () => {
    app = await startTestApp();
  });
  after(async () => {
    await app.close();
  });

  it('prints its usage for --help and help, and exits 0', async () => {
    for (const ask of ['--help', 'help', '-h']) {
      const result = await admin(ask);
      expect(result.code, ask).to.equal(0);
      expect(result.stdout).to.contain('usage: npm run --silent admin -- <command>');
      expect(result.stdout).to.contain('accept-non-eu');
    }
  });

  it('create-key prints one JSON line with a working secret', async () => {
    const result = await admin('create-key', '--org', 'acme', '--workspace', 'prod');
    expect(result.code, result.stderr).to.equal(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines).to.have.length(1);
    const created = JSON.parse(lines[0]!);
    expect(created).to.have.all.keys('key', 'key_id', 'organization_id', 'workspace_id', 'kind', 'scopes');
    expect(created.kind).to.equal('organization');
    expect(created.scopes).to.include('embeddings.create');
    expect((await api(app.baseUrl, '/v1/models', { key: created.key })).status).to.equal(200);
  });

  it('creates restricted keys with exactly the given scopes, in the same workspace', async () => {
    const first = JSON.parse((await admin('create-key', '--org', 'acme', '--workspace', 'prod')).stdout);
    const result = await admin(
      'create-key', '--org', 'acme', '--workspace', 'prod', '--kind', 'restricted', '--scopes', 'chat.create,memory.read',
    );
    const created = JSON.parse(result.stdout);
    expect(created.kind).to.equal('restricted');
    expect(created.scopes).to.deep.equal(['chat.create', 'memory.read']);
    expect(created.workspace_id).to.equal(first.workspace_id);
  });

  it('list-keys shows keys without their secrets, and revoke-key stops one', async () => {
    const created = JSON.parse((await admin('create-key', '--org', 'listed', '--workspace', 'w')).stdout);
    const listed = await admin('list-keys', '--org', 'listed');
    expect(listed.code).to.equal(0);
    const body = JSON.parse(listed.stdout);
    expect(body.keys).to.have.length(1);
    expect(body.keys[0]).to.include({ key_id: created.key_id, workspace: 'w', revoked_at: null });
    expect(listed.stdout).not.to.contain(created.key);

    const revoked = await admin('revoke-key', created.key_id);
    expect(revoked.code).to.equal(0);
    expect(JSON.parse(revoked.stdout)).to.deep.equal({ key_id: created.key_id, revoked: true });
    const after = JSON.parse((await admin('list-keys', '--org', 'listed')).stdout);
    expect(after.keys[0].revoked_at).to.be.a('string');
    await waitFor(async () => (await api(app.baseUrl, '/v1/models', { key: created.key })).status === 401, {
      timeoutMs: 5000,
      what: 'the revoked key to be refused',
    });
    // A second revoke is not an error, as a second DELETE /v1/keys/{id} answers 200: the key stays revoked.
    const again = await admin('revoke-key', created.key_id);
    expect(again.code, again.stderr).to.equal(0);
    expect(JSON.parse(again.stdout)).to.deep.equal({ key_id: created.key_id, revoked: true });
    expect(again.stderr).to.match(/already revoked, at \d{4}-/);
    const unknown = await admin('revoke-key', '00000000-0000-4000-8000-000000000000');
    expect(unknown.code).to.equal(1);
    expect(unknown.stderr).to.contain('no key with id 00000000-0000-4000-8000-000000000000');
  });

  it('refuses stray arguments, repeated options and options a command does not take, creating nothing', async () => {
    const cases: [string[], string][] = [
      [['create-key', '--org', 'stray', '--workspace', 'prod', 'extra-pos'], 'create-key takes no arguments besides its options; unexpected "extra-pos"'],
      [['create-key', '--org', 'stray', '--org', 'other', '--workspace', 'prod'], '--org is given more than once'],
      [['create-key', '--org', 'stray', '--workspace', 'prod', '--by', 'me'], 'create-key does not take --by'],
      [['list-keys', '--org', 'stray', '--kind', 'restricted'], 'list-keys does not take --kind'],
      [['revoke-key', '00000000-0000-4000-8000-000000000000', 'extra'], 'revoke-key takes one key_id; unexpected "extra"'],
    ];
    for (const [args, message] of cases) {
      const result = await admin(...args);
      expect(result.code, args.join(' ')).to.equal(2);
      expect(result.stderr, args.join(' ')).to.contain(message).and.contain('usage:');
      expect(result.stdout).to.equal('');
    }
    expect((await admin('list-keys', '--org', 'stray')).code).to.equal(1);
    expect((await admin('list-keys', '--org', 'other')).code).to.equal(1);
  });

  it('makes a restricted key without scopes, as the API does, but warns that it can call nothing', async () => {
    for (const extra of [[], ['--scopes', '']]) {
      const result = await admin('create-key', '--org', 'bare', '--workspace', 'w', '--kind', 'restricted', ...extra);
      expect(result.code, result.stderr).to.equal(0);
      expect(JSON.parse(result.stdout).scopes).to.deep.equal([]);
      expect(result.stderr).to.contain('warning: this restricted key has no scopes');
    }
  });

  it('says what is wrong with the database rather than a driver error', async () => {
    const garbage = await runScript('src/cli/admin.js', ['list-keys', '--org', 'x'], { DATABASE_URL: 'garbage' });
    expect(garbage.stderr).to.contain('DATABASE_URL must be a postgres:// URL');
    expect(garbage.stderr).not.to.contain('ENOTFOUND');
    expect(garbage.code).to.equal(78);

    const missing = `polder_admin_missing_${process.pid}`;
    const absent = await runScript('src/cli/admin.js', ['list-keys', '--org', 'x'], { DATABASE_URL: databaseUrl(missing) });
    expect(absent.code).to.equal(1);
    expect(absent.stderr).to.contain(`admin: database "${missing}" does not exist`);

    const empty = `polder_admin_empty_${process.pid}`;
    const maintenance = new pg.Client({ connectionString: databaseUrl('postgres') });
    await maintenance.connect();
    try {
      await maintenance.query(`drop database if exists ${empty}`);
      await maintenance.query(`create database ${empty}`);
      const bare = await runScript('src/cli/admin.js', ['create-key', '--org', 'x', '--workspace', 'y'], { DATABASE_URL: databaseUrl(empty) });
      expect(bare.code).to.equal(1);
      expect(bare.stderr).to.match(new RegExp(`admin: database "${empty}" on .* is not migrated .*; run npm run migrate`));
    } finally {
      await maintenance.query(`drop database if exists ${empty}`);
      await maintenance.end();
    }
  });

  it('create-key takes a name, limits and an expiry; list-keys shows them, and the API too', async () => {
    const expiresAt = new Date(Date.now() + 86_400_000).toISOString();
    const result = await admin(
      'create-key', '--org', 'limited', '--workspace', 'w', '--kind', 'restricted', '--scopes', 'chat.create',
      '--name', 'Nightly batch', '--rpm', '60', '--tpm', '20000', '--credits-per-day', '2.5', '--credits-per-month', '40',
      '--expires-at', expiresAt,
    );
    expect(result.code, result.stderr).to.equal(0);
    const created = JSON.parse(result.stdout);
    const limits = { requests_per_minute: 60, tokens_per_minute: 20000, credits_per_day: 2.5, credits_per_month: 40 };
    expect(created).to.include({ name: 'Nightly batch', expires_at: expiresAt, kind: 'restricted' });
    expect(created.limits).to.deep.equal(limits);
    expect((await api(app.baseUrl, '/v1/models', { key: created.key })).status).to.equal(200);

    const listed = JSON.parse((await admin('list-keys', '--org', 'limited')).stdout);
    expect(listed.keys).to.have.length(1);
    expect(listed.keys[0]).to.include({ key_id: created.key_id, name: 'Nightly batch', expires_at: expiresAt, last4: created.key.slice(-4) });
    expect(listed.keys[0].limits).to.deep.equal(limits);
    expect(listed.keys[0].last_used_at).to.be.a('string');

    const adminKey = JSON.parse((await admin('create-key', '--org', 'limited', '--workspace', 'w')).stdout);
    const shown = await api(app.baseUrl, `/v1/keys/${created.key_id}`, { key: adminKey.key });
    expect(shown.status, shown.text).to.equal(200);
    expect(shown.body.data).to.include({ name: 'Nightly batch', expires_at: expiresAt });
    expect(shown.body.data.limits).to.deep.equal(limits);

    // A date alone is midnight UTC.
    const byDate = JSON.parse((await admin('create-key', '--org', 'limited', '--workspace', 'w', '--expires-at', '2999-01-31')).stdout);
    expect(byDate.expires_at).to.equal('2999-01-31T00:00:00.000Z');
  });

  it('refuses bad limits, names and expiries with a usage error that says why, creating nothing', async () => {
    const base = ['create-key', '--org', 'strict', '--workspace', 'w'];
    const cases: [string[], RegExp][] = [
      [['--rpm', '0'], /--rpm must be a whole number/],
      [['--rpm', '1.5'], /--rpm must be a whole number/],
      [['--tpm', 'lots'], /--tpm must be a whole number/],
      [['--credits-per-day=-1'], /--credits-per-day must be a number of credits/],
      [['--credits-per-month', '0.000000001'], /--credits-per-month must be a number of credits from 0\.00000001/],
      [['--name', '  '], /--name must be 1 to 120 characters/],
      [['--expires-at', 'next week'], /--expires-at must be an ISO 8601 date/],
      [['--expires-at', '2020-01-01T00:00:00Z'], /--expires-at must lie in the future/],
      [['--rpm'], /usage:|argument missing/],
    ];
    for (const [extra, message] of cases) {
      const result = await admin(...base, ...extra);
      expect(result.code, extra.join(' ')).to.equal(2);
      expect(result.stderr, extra.join(' ')).to.match(message);
      expect(result.stderr).to.contain('usage:');
    }
    expect((await admin('list-keys', '--org', 'strict')).code).to.equal(1);
    // A workspace the API could not name (QA: the CLI made "   " and a 300-character one).
    for (const [workspace, message] of [
      ['   ', /--workspace must name a workspace/],
      [' team ', /--workspace must not begin or end with a space/],
      ['a\nb', /--workspace must not hold a control character/],
      ['w'.repeat(256), /--workspace must be at most 255 characters/],
    ] as const) {
      const result = await admin('create-key', '--org', 'strict', '--workspace', workspace);
      expect(result.code, JSON.stringify(workspace)).to.equal(2);
      expect(result.stderr).to.match(message);
    }
    expect((await admin('list-keys', '--org', 'strict')).code).to.equal(1);
  });

  it('records and withdraws the non-EU acceptance, audited', async () => {
    await admin('create-key', '--org', 'privacy', '--workspace', 'w');
    const accepted = await admin('accept-non-eu', '--org', 'privacy', '--by', 'sofie@example.eu');
    expect(accepted.code, accepted.stderr).to.equal(0);
    expect(JSON.parse(accepted.stdout)).to.include({ non_eu_accepted: true, accepted_by: 'sofie@example.eu' });
    const withdrawn = await admin('withdraw-non-eu', '--org', 'privacy');
    expect(JSON.parse(withdrawn.stdout)).to.include({ non_eu_accepted: false, accepted_by: null });
    await app.startWorker();
    const actions = await waitFor(
      async () => {
        const { rows } = await app.db.pool.query(
          "select action from audit_log where action like 'non_eu_acceptance.%' order by at, id",
        );
        return rows.length === 2 ? rows.map((r) => r.action) : undefined;
      },
      { what: 'both acceptance changes in the audit log' },
    );
    expect(actions).to.deep.equal(['non_eu_acceptance.recorded', 'non_eu_acceptance.withdrawn']);
  });

  it('exits 2 with the usage for bad arguments', async () => {
    for (const args of [[], ['frobnicate'], ['create-key', '--org', 'x'], ['create-key', '--org', 'x', '--workspace', 'y', '--kind', 'restricted', '--scopes', 'fly']]) {
      const result = await admin(...args);
      expect(result.code, args.join(' ')).to.equal(2);
      expect(result.stderr).to.contain('usage:');
    }
  });
});
