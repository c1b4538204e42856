import { randomUUID } from 'node:crypto';
import { copyFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { createPool, type Pool } from '../../src/db/pool.js';
import { migrate } from '../../src/db/migrate.js';
import { fromRoot } from '../../src/paths.js';
import { databaseUrl } from '../helpers/db.js';

// An upgrade over answers kept before they were tied to their end-user: each is tied through the
// trace of its request id, so the first erasure after the upgrade finds them too.
describe('sql/0022: answers and thread messages tied to their end-user', () => {
  const name = `polder_test_upgrade_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  let admin: Pool;
  let pool: Pool;
  let before22: string;
  before(async () => {
    admin = createPool(databaseUrl('postgres'), 1);
    await admin.query(`create database ${name}`);
    pool = createPool(databaseUrl(name), 3);
    before22 = mkdtempSync(join(tmpdir(), 'polder-sql-'));
    for (const file of readdirSync(fromRoot('sql')).filter((f) => f < '0022')) copyFileSync(fromRoot('sql', file), join(before22, file));
  });
  after(async () => {
    await pool.end();
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end();
    rmSync(before22, { recursive: true, force: true });
  });

  it('ties kept answers and thread messages through their traces, and empties the cache', async () => {
    await migrate(pool, { dir: before22 });
    const { rows } = await pool.query(
      `with org as (insert into organizations (name) values ('acme') returning id)
       insert into workspaces (organization_id, name) select id, 'main' from org returning id, organization_id`,
    );
    const { id: workspace, organization_id: organization } = rows[0];
    const fact = randomUUID();
    await pool.query(
      `insert into traces (workspace_id, organization_id, id, end_user, thread, status, latency_ms, sources, created_at)
       values ($1, $2, 'about-u1', 'u1', 't1', 200, 1, $3, now()),
              ($1, $2, 'about-nobody', null, null, 200, 1, '[]', now())`,
      [workspace, organization, JSON.stringify([{ type: 'fact', id: fact }, { type: 'chunk', id: randomUUID() }])],
    );
    await pool.query(
      `insert into requests (workspace_id, request_id, organization_id, kind, body_hash, state, response, completed_at)
       values ($1, 'about-u1', $2, 'chat', '\\x00', 'completed', '{}', now()),
              ($1, 'about-nobody', $2, 'chat', '\\x00', 'completed', '{}', now())`,
      [workspace, organization],
    );
    await pool.query(`insert into threads (workspace_id, id, organization_id) values ($1, 't1', $2)`, [workspace, organization]);
    await pool.query(
      `insert into thread_messages (workspace_id, thread_id, request_id, position, role, content, created_at)
       values ($1, 't1', 'about-u1', 0, 'user', '"Hoi"', now())`,
      [workspace],
    );
    await pool.query(
      `insert into response_cache (workspace_id, cache_key, response, expires_at) values ($1, '\\x01', '{}', now() + interval '1 hour')`,
      [workspace],
    );

    await migrate(pool);

    const requests = await pool.query('select request_id, end_user, fact_ids from requests order by request_id');
    expect(requests.rows).to.deep.equal([
      { request_id: 'about-nobody', end_user: null, fact_ids: null },
      { request_id: 'about-u1', end_user: 'u1', fact_ids: [fact] },
    ]);
    expect((await pool.query('select end_user from thread_messages')).rows).to.deep.equal([{ end_user: 'u1' }]);
    expect((await pool.query('select 1 from response_cache')).rowCount).to.equal(0);
  });
});
