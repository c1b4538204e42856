import { expect } from 'chai';
import { SCOPES } from '../../src/tenancy/scopes.js';
import { createKey, hashSecret, isWellFormedKey, KeyResolver } from '../../src/tenancy/keys.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';

describe('tenancy/keys', () => {
  let db: TestDatabase;
  before(async () => {
    db = await createTestDatabase();
  });
  after(async () => {
    await db.drop();
  });

  it('stores only the SHA-256 of the secret', async () => {
    const created = await createKey(db.pool, { organization: 'acme', workspace: 'main', kind: 'organization' });
    expect(isWellFormedKey(created.key)).to.equal(true);
    const { rows } = await db.pool.query('select * from api_keys where id = $1', [created.key_id]);
    const stored = JSON.stringify(rows[0]);
    expect(stored).not.to.contain(created.key);
    expect(Buffer.compare(rows[0].key_hash, hashSecret(created.key))).to.equal(0);
  });

  it('gives organization keys every scope and restricted keys only theirs', async () => {
    const org = await createKey(db.pool, { organization: 'acme', workspace: 'main', kind: 'organization' });
    const restricted = await createKey(db.pool, {
      organization: 'acme',
      workspace: 'main',
      kind: 'restricted',
      scopes: ['embeddings.create'],
    });
    expect(org.scopes).to.have.members([...SCOPES]);
    expect(restricted.scopes).to.deep.equal(['embeddings.create']);
    expect(restricted.workspace_id).to.equal(org.workspace_id);
  });

  it('serves a warm key from memory without a query', async () => {
    const created = await createKey(db.pool, { organization: 'acme', workspace: 'main', kind: 'organization' });
    let queries = 0;
    const counting = {
      query: ((...args: Parameters<typeof db.pool.query>) => {
        queries += 1;
        return db.pool.query(...args);
      }) as typeof db.pool.query,
    };
    const resolver = new KeyResolver(counting);
    const first = await resolver.resolve(created.key);
    const second = await resolver.resolve(created.key);
    expect(first?.keyId).to.equal(created.key_id);
    expect(second).to.deep.equal(first);
    expect(queries).to.equal(1);
  });
});
